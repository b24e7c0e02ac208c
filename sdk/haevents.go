package sdk

import "sync"

// EventType names a kind of kernel event a plugin can subscribe to
// (HomeAgent's; see PluginSDK.Events).
type EventType string

// The kernel events, HomeAgent's names. Hearth delivers, for the turns a
// plugin injected itself: EventRawInput (the input, payload "text"),
// EventReasoningDelta and EventContentDelta (pieces of the model's
// reasoning and answer, payload "text"), EventToolCall (payload "tool",
// "call_id", "arguments" at the start of a call; "tool", "call_id",
// "is_error" at its end), EventAgentOutput (the final answer, payload
// "text") and EventSystem (an error or interruption, payload "text").
// EventAgentLLMChain, EventReasoning and EventStage are accepted by
// Subscribe and never delivered.
const (
	EventRawInput       EventType = "raw_input"
	EventAgentOutput    EventType = "agent_output"
	EventAgentLLMChain  EventType = "agent_llm_chain"
	EventToolCall       EventType = "tool_call"
	EventReasoning      EventType = "reasoning"
	EventStage          EventType = "stage"
	EventSystem         EventType = "system"
	EventReasoningDelta EventType = "reasoning_delta"
	EventContentDelta   EventType = "content_delta"
)

// Event is one kernel event as a subscriber receives it. Its text has the
// host's secrets masked.
type Event struct {
	Type      EventType      `json:"type"`
	Source    string         `json:"source"`  // the channel of the turn
	Payload   map[string]any `json:"payload"` // see the EventType constants
	Timestamp int64          `json:"timestamp"`
}

// EventHandler receives a subscribed event. Handlers of one subscription
// run one at a time, in the order of the turn's events, on a goroutine of
// their own; a handler that falls far behind loses events.
type EventHandler func(evt *Event)

// EventSubscriber subscribes to kernel events. It is read-only: a plugin
// cannot publish.
type EventSubscriber interface {
	// Subscribe calls handler with each event of eventType until the
	// returned function is called.
	Subscribe(eventType EventType, handler EventHandler) func()
}

// eventBackend is implemented by backends that deliver kernel events
// (sdk/host.EventHost): Hearth's kernel for compiled-in plugins.
type eventBackend interface {
	SubscribeEvents(plugin string, eventType EventType, handler EventHandler) (stop func())
}

// Events returns the kernel's event subscription for this plugin. It
// delivers only the events of turns the plugin itself injected, never
// those of other channels or sessions, with secrets masked. Where the
// host delivers no events (a child-process plugin: HomeAgent gives its
// external plugins none either) Subscribe logs a warning and returns a
// no-op; it never returns nil, unlike HomeAgent's.
func (s *PluginSDK) Events() EventSubscriber {
	if eb, ok := s.b.(eventBackend); ok {
		return pluginEvents{plugin: s.name, b: eb}
	}
	return &noEvents{s: s}
}

// pluginEvents binds a plugin's name to its backend's events.
type pluginEvents struct {
	plugin string
	b      eventBackend
}

// Subscribe is the backend's.
func (p pluginEvents) Subscribe(eventType EventType, handler EventHandler) func() {
	if handler == nil {
		return func() {}
	}
	return p.b.SubscribeEvents(p.plugin, eventType, handler)
}

// noEvents is the subscriber of a host without events.
type noEvents struct {
	s    *PluginSDK
	once sync.Once
}

// Subscribe warns, once, that no event is delivered.
func (n *noEvents) Subscribe(eventType EventType, _ EventHandler) func() {
	n.once.Do(func() {
		n.s.Logger().Warn("kernel events are not delivered to this plugin in this host (Hearth delivers them only to compiled-in plugins)", "event", string(eventType))
	})
	return func() {}
}
