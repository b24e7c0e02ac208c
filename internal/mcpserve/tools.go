package mcpserve

import (
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hearth-agent/hearth/internal/tools"
	"github.com/hearth-agent/hearth/sdk"
)

// mcpTool describes t to MCP clients. Its annotations come from its
// effect (the declared one; a tool that resolves its effect from the
// arguments may do less):
//
//	read          readOnlyHint
//	write         destructiveHint
//	money, public destructiveHint, openWorldHint
//
// and a tool whose results are untrusted (an MCP server's, a remote
// plugin's) is openWorldHint too. No tool is idempotentHint: Hearth does
// not know.
func mcpTool(t *tools.Tool) *mcp.Tool {
	yes, no := true, false
	a := &mcp.ToolAnnotations{Title: t.Def.Title}
	switch t.Def.EffectiveEffect() {
	case sdk.EffectRead:
		a.ReadOnlyHint, a.DestructiveHint, a.OpenWorldHint = true, &no, &no
	case sdk.EffectWrite:
		a.DestructiveHint, a.OpenWorldHint = &yes, &no
	default: // money, public
		a.DestructiveHint, a.OpenWorldHint = &yes, &yes
	}
	if t.Def.Untrusted {
		a.OpenWorldHint = &yes
	}
	return &mcp.Tool{
		Name: t.Name, Title: t.Def.Title, Description: t.Def.Description,
		InputSchema: inputSchema(t.Schema), Annotations: a,
	}
}

// inputSchema is the tool's parameter schema as MCP wants it: an object
// schema. The registry compiles every schema to one (toolcall.Compile);
// should one not be, the SDK would panic, so it is made one here.
func inputSchema(raw json.RawMessage) any {
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return map[string]any{"type": "object"}
	}
	if m["type"] != "object" {
		m["type"] = "object"
		return m
	}
	return raw
}
