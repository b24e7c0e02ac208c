package remote

import (
	"context"
	"net/http"
	"slices"

	"github.com/hearth-agent/hearth/internal/channel/terminal"
	"github.com/hearth-agent/hearth/internal/kernel"
	"github.com/hearth-agent/hearth/sdk"
)

// viewed are the channels whose turns have a viewer of their own (the web
// UI, OpenAI clients, `hearth ask`): the fallback sink "" is not given
// them, as the kernel gives sinks only turns nobody else shows.
var viewed = map[string]bool{"web": true, "openai": true, terminal.AskChannel: true}

// SetSink routes the events of turns this Agent did not start to fn: those
// of channel's sessions, or with channel "" those of every channel without
// a sink of its own (except the viewed ones: web, openai, ask). A nil fn
// removes the sink. While any sink is set the Agent follows the daemon's
// GET /v1/events; if that stream is lost for good, the fallback sink (or
// another) gets an error event from source "hearth".
func (a *Agent) SetSink(channel string, fn kernel.Sink) {
	a.mu.Lock()
	if fn == nil {
		delete(a.sinks, channel)
	} else {
		a.sinks[channel] = fn
	}
	var (
		start, stop context.CancelFunc
		ctx         context.Context
		stopped     chan struct{}
	)
	switch {
	case len(a.sinks) > 0 && a.stop == nil:
		ctx, start = context.WithCancel(context.Background())
		a.stop, a.stopped = start, make(chan struct{})
		stopped = a.stopped
	case len(a.sinks) == 0 && a.stop != nil:
		stop, stopped = a.stop, a.stopped
		a.stop, a.stopped, a.own = nil, nil, map[id][]string{}
	}
	a.mu.Unlock()
	if start != nil {
		// Subscribed before SetSink returns, so that no answer given
		// after it is missed.
		resp, err := a.subscribe(ctx, "/v1/events", "")
		go a.notify(ctx, stopped, resp, err)
	}
	if stop != nil {
		stop()
		<-stopped
	}
}

// Close stops following the daemon's events (as removing every sink
// does). The Agent stays usable.
func (a *Agent) Close() error {
	a.mu.Lock()
	stop, stopped := a.stop, a.stopped
	a.stop, a.stopped, a.sinks, a.own = nil, nil, map[string]kernel.Sink{}, map[id][]string{}
	a.mu.Unlock()
	if stop != nil {
		stop()
		<-stopped
	}
	return nil
}

// notify follows GET /v1/events (resp, or err when it could not be
// opened) and gives the sinks the events of turns
// not started here, until ctx ends.
func (a *Agent) notify(ctx context.Context, stopped chan<- struct{}, resp *http.Response, err error) {
	defer close(stopped)
	if err != nil {
		if ctx.Err() == nil {
			a.notifyError(err)
		}
		return
	}
	events := make(chan item)
	go a.follow(ctx, "/v1/events", resp, events, nil)
	foreign := map[id]sessionKey{} // sessions running a turn not started here
	for it := range events {       // ends once follow has returned
		if it.err != nil {
			a.notifyError(it.err)
			continue
		}
		if it.resumed {
			clear(foreign) // their ends may be lost
			continue
		}
		w, err := decodeEvent(it.ev)
		if err != nil {
			continue
		}
		if it.ev.Event == evTurnStarted {
			delete(foreign, w.SessionID)
			if a.claim(w.SessionID, w.Text) {
				continue
			}
			if key, ok := a.describe(ctx, w.SessionID); ok {
				foreign[w.SessionID] = key
			}
			continue
		}
		key, ok := foreign[w.SessionID]
		if !ok {
			continue
		}
		ev, ok := kernelEvent(it.ev.Event, w)
		if !ok {
			continue
		}
		if endsTurn(it.ev.Event) {
			delete(foreign, w.SessionID)
		}
		if fn := a.sinkFor(key.channel); fn != nil {
			fn(sdk.Injection{Channel: key.channel, ChatID: key.chat}, ev)
		}
	}
}

// sinkFor is the sink of channel's turns, or nil.
func (a *Agent) sinkFor(channel string) kernel.Sink {
	a.mu.Lock()
	defer a.mu.Unlock()
	if fn, ok := a.sinks[channel]; ok {
		return fn
	}
	if viewed[channel] {
		return nil
	}
	return a.sinks[""]
}

// notifyError tells a sink that notifications stopped.
func (a *Agent) notifyError(err error) {
	a.mu.Lock()
	fn := a.sinks[""]
	for _, s := range a.sinks {
		if fn == nil {
			fn = s
		}
	}
	a.mu.Unlock()
	if fn != nil {
		fn(sdk.Injection{Source: "hearth"}, kernel.Event{Kind: kernel.EventError, Err: err, Text: err.Error()})
	}
}

// describe is the channel and chat of session sid.
func (a *Agent) describe(ctx context.Context, sid id) (sessionKey, bool) {
	a.mu.Lock()
	key, ok := a.info[sid]
	a.mu.Unlock()
	if ok {
		return key, true
	}
	var s wireSession
	if err := a.send(ctx, http.MethodGet, "/v1/sessions/"+string(sid), nil, &s); err != nil {
		return sessionKey{}, false
	}
	key = sessionKey{s.Channel, s.ChatID}
	a.mu.Lock()
	a.info[sid] = key
	a.mu.Unlock()
	return key, true
}

// expect notes that a turn with text is about to be sent to session sid,
// so that the sink stream knows it for this Agent's own.
func (a *Agent) expect(sid id, text string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.stop != nil {
		a.own[sid] = append(a.own[sid], text)
	}
}

// unexpect withdraws what expect noted, for a turn that did not start.
func (a *Agent) unexpect(sid id, text string) { a.claim(sid, text) }

// claim reports whether a turn started on sid with text is this Agent's
// own, and forgets it.
func (a *Agent) claim(sid id, text string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	i := slices.Index(a.own[sid], text)
	if i < 0 {
		return false
	}
	a.own[sid] = slices.Delete(a.own[sid], i, i+1)
	if len(a.own[sid]) == 0 {
		delete(a.own, sid)
	}
	return true
}
