package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/hearth-agent/hearth/internal/approvals"
	"github.com/hearth-agent/hearth/internal/kernel"
	"github.com/hearth-agent/hearth/sdk"
)

// The event stream: every turn's kernel events (through kernel.Observe)
// and every approval change (through the approvals broker) become Events
// on a bus, which hands each to the streams that want it: the session's
// own (GET /v1/sessions/{id}/events) and the global one (GET /v1/events).
//
// A turn never waits for a client. Each stream has a buffer of
// streamBuffer events; a stream that falls that far behind is dropped: it
// receives a final "error" event saying so and ends, and the client
// reconnects (and reads the messages it missed with GET .../messages).

// Event names, as the SSE "event:" line carries them.
const (
	EvTurnStarted      = "turn.started"
	EvReasoningDelta   = "reasoning.delta"
	EvContentDelta     = "content.delta"
	EvToolStarted      = "tool.started"
	EvToolFinished     = "tool.finished"
	EvToolProgress     = "tool.progress"
	EvModelRetry       = "model.retry"
	EvApprovalRequest  = "approval.requested"
	EvApprovalDecided  = "approval.decided"
	EvTurnFinished     = "turn.finished"
	EvTurnInterrupted  = "turn.interrupted"
	EvError            = "error"
	streamBuffer       = 256
	maxEventResult     = 16 << 10
	sessionIDCacheSize = 4096
)

// eventsKeepAlive is how often an idle event stream gets a comment line
// (proxies close silent connections) and has its token checked again; a
// variable so tests can shorten it.
var eventsKeepAlive = 15 * time.Second

// Event is the data of one server-sent event. Which fields are set depends
// on the event's name (see docs/http-api.md); session_id is always set
// (0 for an approval asked outside any stored session).
type Event struct {
	SessionID int64 `json:"session_id"`
	// Text: turn.started (the input), reasoning.delta and content.delta
	// (the piece), turn.finished (the final answer), model.retry (what
	// happened, for people: "429 rate limited, retrying in 2 s").
	Text string `json:"text,omitempty"`
	// CallID, Tool: tool.started and tool.finished.
	CallID string `json:"call_id,omitempty"`
	Tool   string `json:"tool,omitempty"`
	// Arguments: tool.started, the call's JSON arguments.
	Arguments string `json:"arguments,omitempty"`
	// IsError, Result: tool.finished. A result over 16 KiB is cut there
	// and ResultTruncated is set; the whole result is in the messages.
	IsError         bool   `json:"is_error,omitempty"`
	Result          string `json:"result,omitempty"`
	ResultTruncated bool   `json:"result_truncated,omitempty"`
	// Progress: tool.progress (with CallID and Tool), how far a running
	// call has got. At most about ten a second per call; the latest comes
	// before the call's tool.finished.
	Progress *Progress `json:"progress,omitempty"`
	// Retry: model.retry, a model call that failed before its answer
	// began and is tried again.
	Retry *Retry `json:"retry,omitempty"`
	// Approval: approval.requested.
	Approval *Approval `json:"approval,omitempty"`
	// ID, Answer, By: approval.decided. Answer is once, always, deny,
	// expired or cancelled; By is the channel that answered, or "policy".
	ID     int64  `json:"id,omitempty"`
	Answer string `json:"answer,omitempty"`
	By     string `json:"by,omitempty"`
	// Usage, TraceID: turn.finished.
	Usage   *Usage `json:"usage,omitempty"`
	TraceID string `json:"trace_id,omitempty"`
	// Message: error.
	Message string `json:"message,omitempty"`
	// Plugin: plugin.widgets, the plugin whose widgets changed.
	Plugin string `json:"plugin,omitempty"`
}

// Progress is a running tool call's progress: Done out of Total (0 when
// the tool does not know the total) and a short message.
type Progress struct {
	Done    float64 `json:"done"`
	Total   float64 `json:"total,omitempty"`
	Message string  `json:"message,omitempty"`
}

// Retry is a model call tried again: the retry's number (1 for the
// first), the wait before it in milliseconds, and why ("429 rate
// limited", "503 service unavailable", "timed out", ...).
type Retry struct {
	Attempt int    `json:"attempt"`
	AfterMS int64  `json:"after_ms"`
	Reason  string `json:"reason"`
	// Source, when set, is the fallback source the call goes on with at
	// once ("qwen"); Reason then names the source that failed.
	Source string `json:"source,omitempty"`
}

// Usage is the tokens a turn's model calls used, and what they cost
// when every call's price is known: Cost in Currency (ISO 4217).
type Usage struct {
	PromptTokens     int      `json:"prompt_tokens"`
	CompletionTokens int      `json:"completion_tokens"`
	CachedTokens     int      `json:"cached_tokens"`
	Cost             *float64 `json:"cost,omitempty"`
	Currency         string   `json:"currency,omitempty"`
}

// message is one event on the bus, encoded once for every stream: frame
// is the whole server-sent event as written (see frameSSE).
type message struct {
	session int64
	frame   []byte
}

// stream is one subscriber of the bus. Its queue grows as events come
// and is emptied by each take, so an idle stream (most of a thousand
// open ones) holds no buffer.
type stream struct {
	session int64         // 0: every session
	wake    chan struct{} // one token: the queue has events, or the stream ended

	mu       sync.Mutex
	queue    []*message
	ended    bool
	overflow bool // it ended for falling behind
}

// push queues m; false when st is already streamBuffer events behind,
// which ends it as overflowed.
func (st *stream) push(m *message) bool {
	st.mu.Lock()
	ok := !st.ended
	switch {
	case !ok:
	case len(st.queue) >= streamBuffer:
		st.ended, st.overflow, ok = true, true, false
	default:
		st.queue = append(st.queue, m)
	}
	st.mu.Unlock()
	st.signal()
	return ok
}

// end ends st; the events queued are still taken.
func (st *stream) end() {
	st.mu.Lock()
	st.ended = true
	st.mu.Unlock()
	st.signal()
}

func (st *stream) signal() {
	select {
	case st.wake <- struct{}{}:
	default:
	}
}

// take returns the events queued, in order, appended to buf (which it
// may keep: pass the previous batch to reuse its array), whether the
// stream has ended, and whether for falling behind. Called when wake
// fires.
func (st *stream) take(buf []*message) (msgs []*message, ended, overflow bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	clear(buf)
	msgs, st.queue = st.queue, buf[:0]
	return msgs, st.ended, st.overflow
}

// bus fans events out to the streams: those of the event's session and
// the global ones, never walking the streams of other sessions.
type bus struct {
	mu        sync.Mutex
	seq       uint64
	all       map[*stream]struct{}           // every session's events
	bySession map[int64]map[*stream]struct{} // one session's
	closed    bool
}

func newBus() *bus {
	return &bus{all: map[*stream]struct{}{}, bySession: map[int64]map[*stream]struct{}{}}
}

// subscribe opens a stream of session's events (0: all); nil once the bus
// is closed.
func (b *bus) subscribe(session int64) *stream {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil
	}
	st := &stream{session: session, wake: make(chan struct{}, 1)}
	set := b.all
	if session != 0 {
		set = b.bySession[session]
		if set == nil {
			set = map[*stream]struct{}{}
			b.bySession[session] = set
		}
	}
	set[st] = struct{}{}
	return st
}

// unsubscribe ends st, if the bus has not.
func (b *bus) unsubscribe(st *stream) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.remove(st)
}

// remove takes st off the bus and ends it; b.mu is held.
func (b *bus) remove(st *stream) {
	if st.session == 0 {
		delete(b.all, st)
	} else if set := b.bySession[st.session]; set != nil {
		delete(set, st)
		if len(set) == 0 {
			delete(b.bySession, st.session)
		}
	}
	st.end()
}

// publish hands ev to every stream that wants it, never waiting: a stream
// whose queue is full is ended as overflowed.
func (b *bus) publish(name string, ev Event) {
	data, err := json.Marshal(ev)
	if err != nil {
		return // Event always marshals
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.seq++
	m := &message{session: ev.SessionID, frame: frameSSE(b.seq, name, data)}
	for st := range b.bySession[m.session] {
		if !st.push(m) {
			b.remove(st)
		}
	}
	for st := range b.all {
		if !st.push(m) {
			b.remove(st)
		}
	}
}

// close ends every stream and refuses new ones.
func (b *bus) close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed = true
	for st := range b.all {
		b.remove(st)
	}
	for _, set := range b.bySession {
		for st := range set {
			b.remove(st)
		}
	}
}

// core is the state of the sessions, events and approvals routes.
type core struct {
	bus    *bus
	broker *approvals.Broker
	stops  []func()

	idMu sync.Mutex
	ids  map[[2]string]int64 // channel, chat -> store session id
}

// coreState returns the server's core, starting it on first use: it
// observes the kernel and the approvals broker until closeStreams.
func (s *Server) coreState() *core {
	s.coreOnce.Do(func() {
		c := &core{bus: newBus(), broker: approvals.New(), ids: map[[2]string]int64{}}
		if s.app.Kernel != nil {
			c.stops = append(c.stops, s.app.Kernel.Observe(func(in sdk.Injection, ev kernel.Event) {
				s.kernelEvent(c, in, ev)
			}))
		}
		c.stops = append(c.stops, c.broker.Subscribe(func(ev approvals.Event) { s.approvalEvent(c, ev) }))
		c.stops = append(c.stops, s.widgetEvents(c)) // widgets.go
		if k := s.app.Kernel; k != nil {
			// Inputs without a prompt of their own (plugin injections, the
			// OpenAI endpoint) ask through the broker too.
			k.SetFallbackApprover(c.broker.Approver(nil))
			c.stops = append(c.stops, func() { k.SetFallbackApprover(nil) })
		}
		s.core = c
	})
	return s.core
}

// Approvals returns the daemon's approvals broker: wrap a channel's own
// approver with its Approver so that the web UI and the API can answer
// what the channel asks.
func (s *Server) Approvals() *approvals.Broker { return s.coreState().broker }

// closeStreams ends every open event stream and stops observing; for a
// graceful shutdown.
func (s *Server) closeStreams() {
	c := s.coreState()
	for _, stop := range c.stops {
		stop()
	}
	c.bus.close()
}

// sessionID returns the store id of channel/chat, opening the session if
// it is new; 0 when the store fails.
func (s *Server) sessionID(c *core, channel, chat string) int64 {
	key := [2]string{channel, chat}
	c.idMu.Lock()
	id, ok := c.ids[key]
	c.idMu.Unlock()
	if ok {
		return id
	}
	sess, err := s.app.Store.Session(context.Background(), channel, chat)
	if err != nil {
		s.log.Warn("finding the session of an event", "channel", channel, "err", err)
		return 0
	}
	c.rememberID(channel, chat, sess.ID)
	return sess.ID
}

// rememberID notes that channel/chat is the stored session id.
func (c *core) rememberID(channel, chat string, id int64) {
	key := [2]string{channel, chat}
	c.idMu.Lock()
	defer c.idMu.Unlock()
	if old, ok := c.ids[key]; ok && old == id {
		return
	}
	if len(c.ids) >= sessionIDCacheSize {
		clear(c.ids)
	}
	c.ids[key] = id
}

// kernelEvent turns a kernel event into a stream event. It runs on the
// turn's goroutine and never blocks on a client.
func (s *Server) kernelEvent(c *core, in sdk.Injection, ev kernel.Event) {
	e := Event{SessionID: s.sessionID(c, in.Channel, in.ChatID)}
	mask := s.app.Sources.Secrets().String
	var name string
	switch ev.Kind {
	case kernel.EventTurnStarted:
		name, e.Text = EvTurnStarted, ev.Text
	case kernel.EventReasoning:
		name, e.Text = EvReasoningDelta, ev.Text
	case kernel.EventText:
		name, e.Text = EvContentDelta, ev.Text
	case kernel.EventToolStart:
		name, e.CallID, e.Tool, e.Arguments = EvToolStarted, ev.CallID, ev.Tool, mask(ev.Args)
	case kernel.EventToolProgress:
		name, e.CallID, e.Tool = EvToolProgress, ev.CallID, ev.Tool
		e.Progress = &Progress{Done: ev.Done, Total: ev.Total, Message: mask(ev.Text)}
	case kernel.EventRetry:
		if ev.Retry == nil {
			return
		}
		name, e.Text = EvModelRetry, mask(ev.Text)
		e.Retry = &Retry{Attempt: ev.Retry.Attempt, AfterMS: ev.Retry.After.Milliseconds(), Reason: mask(ev.Retry.Reason),
			Source: ev.Retry.Source}
	case kernel.EventToolEnd:
		// A tool's result is where a secret turns up (a file read, a
		// command's output): the model keys and the API token are masked.
		name, e.CallID, e.Tool, e.IsError = EvToolFinished, ev.CallID, ev.Tool, ev.IsError
		e.Result, e.ResultTruncated = truncate(mask(ev.Text), maxEventResult)
	case kernel.EventTurnEnded:
		// A turn's last event, sent once all it wrote is stored: a client
		// that reads the messages on turn.finished finds the answer there.
		out := ev.Outcome
		switch {
		case out.Interrupted:
			name = EvTurnInterrupted
		case out.Err != nil:
			name, e.Message, e.TraceID = EvError, s.turnError(out.Err), out.TraceID
		default:
			name, e.Text, e.TraceID = EvTurnFinished, mask(out.Text), out.TraceID
			e.Usage = &Usage{PromptTokens: out.Usage.PromptTokens, CompletionTokens: out.Usage.CompletionTokens, CachedTokens: out.Usage.CachedTokens}
			if c := out.Cost; c != nil {
				amount := c.Amount
				e.Usage.Cost, e.Usage.Currency = &amount, c.Currency
			}
		}
	default: // EventFinal, EventError, EventInterrupted: told by EventTurnEnded
		return
	}
	c.bus.publish(name, e)
}

// truncate cuts s to at most n bytes, on a rune boundary.
func truncate(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n], true
}

// approvalEvent publishes an approvals broker event. It runs with the
// broker locked: it must not call the broker.
func (s *Server) approvalEvent(c *core, ev approvals.Event) {
	id := s.sessionID(c, ev.Pending.Channel, ev.Pending.ChatID)
	switch ev.Kind {
	case approvals.Requested:
		a := approvalOf(ev.Pending, id)
		c.bus.publish(EvApprovalRequest, Event{SessionID: id, Approval: &a})
	case approvals.Decided:
		c.bus.publish(EvApprovalDecided, Event{SessionID: id, ID: ev.Pending.Request.ID, Answer: ev.Answer, By: ev.By})
	}
}

// serveEvents streams session's events (0: all) as server-sent events
// until the client goes, the stream falls behind, the server closes, or
// the token the stream was opened with stops being the token (rotated):
// it is checked again before each batch of events (those queued while the
// last were written), after they were queued, and at each keep-alive, and
// a stream whose token is no longer good ends with a final "error" event.
func (s *Server) serveEvents(w http.ResponseWriter, r *http.Request, session int64) {
	c := s.coreState()
	flusher, ok := w.(http.Flusher)
	if !ok {
		writeError(w, http.StatusInternalServerError, "no_streaming", "this connection cannot stream events")
		return
	}
	st := c.bus.subscribe(session)
	if st == nil {
		writeError(w, http.StatusServiceUnavailable, "shutting_down", "the server is shutting down")
		return
	}
	defer c.bus.unsubscribe(st)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no") // nginx: do not buffer the stream
	w.WriteHeader(http.StatusOK)
	_, _ = fmt.Fprint(w, ": hearth events\n\n")
	flusher.Flush()
	tick := time.NewTicker(eventsKeepAlive)
	defer tick.Stop()
	var batch []*message
	for {
		select {
		case <-st.wake:
			var ended, overflow bool
			batch, ended, overflow = st.take(batch)
			// The token is checked after the events were taken: every
			// one of them was published before a check that passed.
			if len(batch) > 0 && !s.tokenOK(r) {
				s.endRevoked(w, flusher, session)
				return
			}
			for _, m := range batch {
				if writeSSE(w, m) != nil {
					return
				}
			}
			if ended && overflow {
				writeSSE(w, &message{frame: frameSSE(0, EvError, overflowData(session))})
			}
			// One flush for what came together: a turn's events often
			// do, and each flush is a system call.
			flusher.Flush()
			if ended {
				return
			}
		case <-tick.C:
			if !s.tokenOK(r) {
				s.endRevoked(w, flusher, session)
				return
			}
			if _, err := fmt.Fprint(w, ": keep-alive\n\n"); err != nil {
				return
			}
			flusher.Flush()
		case <-r.Context().Done():
			return
		}
	}
}

// endRevoked ends a stream whose token is no longer the token.
func (s *Server) endRevoked(w http.ResponseWriter, flusher http.Flusher, session int64) {
	data, _ := json.Marshal(Event{SessionID: session,
		Message: "the API token changed (hearth token --rotate): this stream is closed; reconnect with the new token"})
	_ = writeSSE(w, &message{frame: frameSSE(0, EvError, data)})
	flusher.Flush()
}

func overflowData(session int64) []byte {
	data, _ := json.Marshal(Event{SessionID: session,
		Message: "this stream fell behind and was closed; reconnect, and read missed messages with GET /v1/sessions/{id}/messages"})
	return data
}

// frameSSE is one event as written: id (unless 0), event and data lines,
// and the blank line that ends it. Data is one line of JSON (JSON never
// holds a raw newline).
func frameSSE(id uint64, name string, data []byte) []byte {
	buf := make([]byte, 0, len(data)+len(name)+40)
	if id != 0 {
		buf = append(buf, "id: "...)
		buf = strconv.AppendUint(buf, id, 10)
		buf = append(buf, '\n')
	}
	buf = append(buf, "event: "...)
	buf = append(buf, name...)
	buf = append(buf, "\ndata: "...)
	buf = append(buf, data...)
	return append(buf, "\n\n"...)
}

// writeSSE writes one event.
func writeSSE(w io.Writer, m *message) error {
	_, err := w.Write(m.frame)
	return err
}
