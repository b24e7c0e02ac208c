package pluginhost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/host"
	"github.com/hearth-agent/hearth/sdk/wire"
)

// serveChannels answers a child's channels.register and
// channels.unregister: the channel becomes the plugin's in the host (it
// must implement sdk/host.ChannelHost, as *kernel.Kernel does), and its
// output is delivered by calling channel.send on the child.
func (p *Process) serveChannels(conn *wire.Conn, handle func(string, wire.Handler)) {
	ch := func() (host.ChannelHost, error) {
		if c, ok := p.opts.Host.(host.ChannelHost); ok {
			return c, nil
		}
		return nil, &wire.Error{Code: wire.CodeUnavailable, Message: "this host has no plugin channels"}
	}
	handle(wire.MethodChannelsRegister, func(_ context.Context, raw json.RawMessage) (any, error) {
		var reg sdk.ChannelRegistration
		if err := wire.DecodeParams(raw, &reg); err != nil {
			return nil, err
		}
		c, err := ch()
		if err != nil {
			return nil, err
		}
		if reg.Output {
			reg.Send = remoteChannel(conn, p.name)
		}
		if err := c.RegisterPluginChannel(p.name, reg); err != nil {
			return nil, &wire.Error{Code: wire.CodeRegisterRefused, Message: err.Error()}
		}
		return struct{}{}, nil
	})
	handle(wire.MethodChannelsUnregister, func(_ context.Context, raw json.RawMessage) (any, error) {
		var n wire.ChannelNameParams
		if err := wire.DecodeParams(raw, &n); err != nil {
			return nil, err
		}
		c, err := ch()
		if err != nil {
			return nil, err
		}
		if err := c.UnregisterChannel(p.name, n.Name); err != nil {
			return nil, &wire.Error{Code: wire.CodeRegisterRefused, Message: err.Error()}
		}
		return struct{}{}, nil
	})
}

// remoteChannel delivers an output message by calling channel.send on the
// child; the handler's value comes back as the tool result.
func remoteChannel(conn *wire.Conn, plugin string) func(context.Context, sdk.OutputMessage) (any, error) {
	return func(ctx context.Context, msg sdk.OutputMessage) (any, error) {
		var res wire.ChannelSendResult
		err := conn.Call(ctx, wire.MethodChannelSend, wire.ChannelSendParams{OutputMessage: msg}, &res)
		var rerr *wire.Error
		switch {
		case err == nil:
		case errors.As(err, &rerr) && rerr.Code == wire.CodeToolFailed:
			return nil, errors.New(rerr.Message)
		default:
			return nil, fmt.Errorf("plugin %s: channel %s: %w", plugin, msg.Channel, callError(plugin, err))
		}
		if len(res.Result) == 0 {
			return nil, nil
		}
		return remoteValue{raw: res.Result}, nil
	}
}
