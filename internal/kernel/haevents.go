package kernel

import (
	"sync"
	"time"

	"github.com/hearth-agent/hearth/internal/redact"
	"github.com/hearth-agent/hearth/sdk"
)

// eventBuffer is how many events a subscription holds for a handler that
// is behind; past it, events are dropped (and logged) rather than the
// turn waiting.
const eventBuffer = 256

// SubscribeEvents delivers to handler the events of eventType of the
// turns plugin injected (HomeAgent's PluginSDK.Events): never another
// channel's or session's turns. Texts and arguments have the provider's
// secrets and key-like strings masked. handler runs on a goroutine of the
// subscription, one event at a time; a panic in it is logged and the
// subscription goes on. stop ends the subscription.
func (k *Kernel) SubscribeEvents(plugin string, eventType sdk.EventType, handler sdk.EventHandler) (stop func()) {
	ch := make(chan *sdk.Event, eventBuffer)
	done := make(chan struct{})
	stopObs := k.Observe(func(in sdk.Injection, ev Event) {
		if in.Source != plugin {
			return
		}
		e := k.haEvent(in, ev)
		if e == nil || e.Type != eventType {
			return
		}
		select {
		case ch <- e:
		default:
			k.log.Warn("plugin event dropped: the handler is behind", "plugin", plugin, "event", string(e.Type))
		}
	})
	go func() {
		for {
			select {
			case e := <-ch:
				k.deliverEvent(plugin, handler, e)
			case <-done:
				return
			}
		}
	}()
	return k.haSubs.add(plugin, func(id int) func() {
		return sync.OnceFunc(func() {
			stopObs()
			close(done)
			k.haSubs.remove(plugin, id)
		})
	})
}

// eventSubs are the plugins' live subscriptions, ended when the plugin
// is withdrawn.
type eventSubs struct {
	mu   sync.Mutex
	next int
	subs map[string]map[int]func()
}

// add keeps the stop function newStop makes for a new subscription id of
// plugin, and returns it.
func (e *eventSubs) add(plugin string, newStop func(id int) func()) func() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.subs == nil {
		e.subs = map[string]map[int]func(){}
	}
	if e.subs[plugin] == nil {
		e.subs[plugin] = map[int]func(){}
	}
	e.next++
	stop := newStop(e.next)
	e.subs[plugin][e.next] = stop
	return stop
}

// remove forgets subscription id of plugin.
func (e *eventSubs) remove(plugin string, id int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.subs[plugin], id)
}

// stopAll ends plugin's subscriptions.
func (e *eventSubs) stopAll(plugin string) {
	e.mu.Lock()
	stops := e.subs[plugin]
	delete(e.subs, plugin)
	e.mu.Unlock()
	for _, stop := range stops {
		stop()
	}
}

// deliverEvent calls handler, logging a panic.
func (k *Kernel) deliverEvent(plugin string, handler sdk.EventHandler, e *sdk.Event) {
	defer func() {
		if r := recover(); r != nil {
			k.log.Error("plugin event handler panicked", "plugin", plugin, "event", string(e.Type), "panic", r)
		}
	}()
	handler(e)
}

// haEvent translates a turn event into HomeAgent's, or nil for one
// HomeAgent has no name for.
func (k *Kernel) haEvent(in sdk.Injection, ev Event) *sdk.Event {
	mask := func(s string) string { return redact.KeyLike(k.maskText(s)) }
	e := &sdk.Event{Source: in.Channel, Timestamp: time.Now().UnixMilli()}
	switch ev.Kind {
	case EventTurnStarted:
		e.Type, e.Payload = sdk.EventRawInput, map[string]any{"text": mask(ev.Text)}
	case EventReasoning:
		e.Type, e.Payload = sdk.EventReasoningDelta, map[string]any{"text": mask(ev.Text)}
	case EventText:
		e.Type, e.Payload = sdk.EventContentDelta, map[string]any{"text": mask(ev.Text)}
	case EventToolStart:
		e.Type, e.Payload = sdk.EventToolCall, map[string]any{"tool": ev.Tool, "call_id": ev.CallID, "arguments": mask(ev.Args)}
	case EventToolEnd:
		e.Type, e.Payload = sdk.EventToolCall, map[string]any{"tool": ev.Tool, "call_id": ev.CallID, "is_error": ev.IsError}
	case EventFinal:
		e.Type, e.Payload = sdk.EventAgentOutput, map[string]any{"text": mask(ev.Text)}
	case EventError, EventInterrupted:
		e.Type, e.Payload = sdk.EventSystem, map[string]any{"text": mask(ev.Text)}
	default:
		return nil
	}
	return e
}
