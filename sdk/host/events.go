package host

import "github.com/hearth-agent/hearth/sdk"

// EventHost is implemented by hosts that deliver kernel events to a
// plugin (sdk.PluginSDK.Events, HomeAgent's event subscription): Hearth's
// kernel. On a host without it, Subscribe delivers nothing and logs a
// warning.
type EventHost interface {
	// SubscribeEvents calls handler with the events of eventType of the
	// turns plugin injected, secrets masked, until stop is called. It
	// must never block a turn: handler runs on a goroutine of its own.
	SubscribeEvents(plugin string, eventType sdk.EventType, handler sdk.EventHandler) (stop func())
}

// eventBinding is a binding whose host delivers events.
type eventBinding struct {
	*binding
	ev EventHost
}

// SubscribeEvents is the host's.
func (b eventBinding) SubscribeEvents(plugin string, eventType sdk.EventType, handler sdk.EventHandler) func() {
	return b.ev.SubscribeEvents(plugin, eventType, handler)
}

// bind returns the backend for h: b, with events where h delivers them.
func bind(h Host, b *binding) any {
	if ev, ok := h.(EventHost); ok {
		return eventBinding{binding: b, ev: ev}
	}
	return b
}
