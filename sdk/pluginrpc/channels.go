package pluginrpc

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/host"
	"github.com/hearth-agent/hearth/sdk/internal/codec"
	"github.com/hearth-agent/hearth/sdk/wire"
)

var _ host.ChannelHost = (*child)(nil)

// RegisterPluginChannel implements host.ChannelHost: the registration
// goes to the host (channels.register), the output handler stays here and
// answers channel.send.
func (c *child) RegisterPluginChannel(_ string, reg sdk.ChannelRegistration) error {
	if err := c.conn.Call(context.Background(), wire.MethodChannelsRegister, reg, nil); err != nil {
		return fmt.Errorf("registering channel %q: %w", reg.Name, err)
	}
	if reg.Output {
		c.mu.Lock()
		if c.channels == nil {
			c.channels = map[string]sdk.ToolHandler{}
		}
		c.channels[reg.Name] = reg.Handler
		c.mu.Unlock()
	}
	return nil
}

// UnregisterChannel implements host.ChannelHost.
func (c *child) UnregisterChannel(_ string, name string) error {
	if err := c.conn.Call(context.Background(), wire.MethodChannelsUnregister, wire.ChannelNameParams{Name: name}, nil); err != nil {
		return fmt.Errorf("unregistering channel %q: %w", name, err)
	}
	c.mu.Lock()
	delete(c.channels, name)
	c.mu.Unlock()
	return nil
}

// channelSend runs an output channel's handler for the host.
func (c *child) channelSend(_ context.Context, raw json.RawMessage) (any, error) {
	var p wire.ChannelSendParams
	if err := codec.Unmarshal(raw, &p); err != nil {
		return nil, &wire.Error{Code: wire.CodeInvalidParams, Message: err.Error()}
	}
	c.mu.Lock()
	h := c.channels[p.Channel]
	c.mu.Unlock()
	if h == nil {
		return nil, &wire.Error{Code: wire.CodeNotRegistered, Message: "unknown output channel " + p.Channel}
	}
	v, err := safeHandler(h, p.Args())
	if err != nil {
		return nil, &wire.Error{Code: wire.CodeToolFailed, Message: err.Error()}
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, &wire.Error{Code: wire.CodeToolFailed, Message: "the result could not be encoded as JSON: " + err.Error()}
	}
	return wire.ChannelSendResult{Result: b}, nil
}

// safeHandler runs h, turning a panic into an error.
func safeHandler(h sdk.ToolHandler, args map[string]any) (v any, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("output handler panicked: %v", r)
		}
	}()
	return h(args)
}
