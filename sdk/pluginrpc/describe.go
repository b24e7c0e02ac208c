package pluginrpc

import (
	"context"
	"encoding/json"

	"github.com/hearth-agent/hearth/sdk/internal/codec"
	"github.com/hearth-agent/hearth/sdk/wire"
)

// describe answers tool.describe: the current text of a tool's
// DescriptionFunc (a dynamic description, PKU harness's Dynamic<string>).
func (c *child) describe(_ context.Context, raw json.RawMessage) (any, error) {
	var p wire.ToolDescribeParams
	if err := codec.Unmarshal(raw, &p); err != nil {
		return nil, &wire.Error{Code: wire.CodeInvalidParams, Message: err.Error()}
	}
	c.mu.Lock()
	def := c.defs[p.Tool]
	c.mu.Unlock()
	if def.DescriptionFunc == nil {
		return nil, &wire.Error{Code: wire.CodeNotRegistered, Message: "no dynamic description for tool " + p.Tool}
	}
	return wire.TextResult{Text: def.DescriptionFunc()}, nil
}
