package wire

import (
	"encoding/json"

	"github.com/hearth-agent/hearth/sdk"
)

// The channel methods (HomeAgent's RegisterInputChannel and
// RegisterOutputChannel over the wire; docs/protocol.md, "Channels").
const (
	// MethodChannelsRegister declares (or completes) a channel of the
	// plugin; params sdk.ChannelRegistration. Group core.
	MethodChannelsRegister = "channels.register"
	// MethodChannelsUnregister removes the output half of a channel;
	// params ChannelNameParams. Group core.
	MethodChannelsUnregister = "channels.unregister"
	// MethodChannelSend is the host asking the plugin to deliver one
	// message through its output channel; params ChannelSendParams,
	// result ChannelSendResult.
	MethodChannelSend = "channel.send"
)

// ChannelNameParams names a channel.
type ChannelNameParams struct {
	Name string `json:"name"`
}

// ChannelSendParams is one message for the plugin's output channel.
type ChannelSendParams struct {
	sdk.OutputMessage
}

// ChannelSendResult is the output handler's value, JSON as the handler's
// encodes; the model sees it as the output_send__<name> call's result.
type ChannelSendResult struct {
	Result json.RawMessage `json:"result,omitempty"`
}
