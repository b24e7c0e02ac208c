package kernel

import (
	"context"
	"errors"
	"sort"
	"sync"
	"time"

	"github.com/hearth-agent/hearth/internal/llm"
	"github.com/hearth-agent/hearth/internal/policy"
	"github.com/hearth-agent/hearth/sdk"
)

// EventKind says what an Event reports.
type EventKind int

// The events a turn emits, in the order they can happen.
const (
	EventReasoning   EventKind = iota + 1 // a piece of the model's reasoning
	EventText                             // a piece of the model's answer
	EventToolStart                        // a tool call is about to run
	EventToolEnd                          // a tool call finished
	EventFinal                            // the final answer, after before_output
	EventError                            // the turn failed
	EventInterrupted                      // the turn was interrupted
	// EventTurnStarted says a turn begins answering an input (Text is the
	// input's text). Only observers (Observe) receive it: channels know
	// when they sent something.
	EventTurnStarted
	// EventTurnEnded says a turn is over and everything it wrote is
	// stored (its answer, or the note that it did not finish, and its
	// trace); Outcome says how it ended. Only observers receive it,
	// after every other event of the turn.
	EventTurnEnded
	// EventToolProgress reports how far a running tool call has got (the
	// tool's ToolContext.Progress): Done out of Total (0 when unknown) and
	// Text, a short message. At most about ten a second per call; the
	// latest comes before the call's EventToolEnd, none after it.
	EventToolProgress
	// EventRetry says a model call failed before its answer began and is
	// about to be tried again: Retry says why and after how long, and
	// Text says it for people ("429 rate limited, retrying in 2 s").
	EventRetry
	// EventCompacted says the session's older history was compacted into
	// a summary before this turn's model call, or, when the summary call
	// failed, left out of the context (compact.go); Text says which, for
	// people. The stored history is unchanged.
	EventCompacted
)

// Event is one thing a channel may show while a turn runs.
type Event struct {
	Kind    EventKind
	Text    string  // delta text, final text, or error message
	Tool    string  // tool name (model-visible) for tool events
	CallID  string  // tool call id for tool events
	Args    string  // arguments of EventToolStart
	IsError bool    // EventToolEnd: the result is an error
	Done    float64 // EventToolProgress: work done so far
	Total   float64 // EventToolProgress: all the work; 0 when unknown
	// Metadata is EventToolEnd's result metadata for renderers (xbot's
	// ToolResult.Metadata: a diff, a kind).
	Metadata map[string]string
	Err      error      // EventError
	Usage    llm.Usage  // EventFinal: usage of the turn's model calls
	Retry    *llm.Retry // EventRetry
	Cost     *Cost      // EventFinal: what the turn's model calls cost, nil when not known
	TraceID  string     // the turn's trace (see TraceSaver); empty when not traced
	Outcome  *Outcome   // EventTurnEnded
}

// Input is one message for the agent.
type Input struct {
	sdk.Injection
	// OnEvent receives the turn's events. When nil, the channel's sink
	// (SetSink) does, if there is one.
	OnEvent func(Event)
	// Approver asks the person in this channel to approve a tool call;
	// nil means nobody can be asked, and calls that need approval are
	// refused.
	Approver policy.Approver
	// Actor is who started the input; empty means the user typing, whose
	// tool calls are made by the agent.
	Actor sdk.Actor
	// Plugin is the plugin that injected the input, set by the host (see
	// Kernel.Inject); empty for a channel's own input. A plugin's input
	// gets the plugin's rights, never the owner's.
	Plugin string
	// Owner marks the input as the owner's own, typed in the web UI or
	// sent through the HTTP API into a stored session of any channel: its
	// conversation is the owner's (scope.Owner), whatever the channel and
	// the user id. Only Hearth's own server sets it; it never comes from
	// an injection or a user id, so a person on a chat app who picks the
	// id "owner" is not the owner. It is ignored when Plugin is set.
	Owner bool
	// Untrusted, when set, says the text is third party's and names where
	// it came from ("mcp-x prompt review": a prompt of an MCP server, sent
	// as the user's message): the turn is tainted from its start, as if
	// an untrusted tool had returned the text, so calls that write, spend
	// or publish need approval. It only ever makes the policy stricter.
	Untrusted string

	// release, if set, is called once the input is answered or dropped
	// (it gives back the plugin's injection slot).
	release func()
}

// Outcome is how a turn ended.
type Outcome struct {
	Text        string    // the final answer
	Err         error     // why the turn failed
	Interrupted bool      // an interrupt or cancellation ended the turn
	TraceID     string    // the turn's trace; empty when not traced
	Usage       llm.Usage // the tokens of the turn's model calls
	// Cost is what those calls cost, at their sources' prices; nil when
	// a call's price is not known (see llm.PriceOf).
	Cost *Cost
}

// ErrInterrupted is the cause given to a turn cancelled by an interrupt.
var ErrInterrupted = errors.New("interrupted by a newer input")

type sessionKey struct{ channel, chat string }

func (k sessionKey) String() string { return k.channel + "/" + k.chat }

type pending struct {
	in   Input
	ctx  context.Context // the submitter's context, for Ask
	done chan Outcome    // buffered; receives exactly one outcome
}

// session is one conversation's queue and history. Inputs of a session are
// answered one at a time, in order, except that an interrupt goes first
// and cancels the turn in flight.
type session struct {
	key sessionKey

	// guarded by Kernel.mu
	queue      []*pending
	running    bool
	cancelTurn context.CancelCauseFunc

	// owned by the session's worker goroutine
	historyLoaded bool
	storeID       int64
	history       []llm.Message
	summary       string // of the history compacted out of s.history (compact.go); "" when none

	// plugins whose on-demand tools the agent loaded with plugins__use
	usedMu sync.Mutex
	used   map[string]bool

	idleSince time.Time // guarded by Kernel.mu; when its last turn ended
}

// evictIdle drops the longest-idle quarter of the sessions once there are
// Options.MaxSessions of them; their history is in the store and is read
// again when they next speak. Without a store it would be lost, so then
// nothing is dropped. k.mu is held.
func (k *Kernel) evictIdle() {
	if k.store == nil || len(k.sessions) < k.cfg.MaxSessions {
		return
	}
	idle := make([]*session, 0, len(k.sessions))
	for _, s := range k.sessions {
		if !s.running && len(s.queue) == 0 {
			idle = append(idle, s)
		}
	}
	if len(idle) == 0 {
		return
	}
	sort.Slice(idle, func(i, j int) bool { return idle[i].idleSince.Before(idle[j].idleSince) })
	for _, s := range idle[:len(idle)/4+1] {
		delete(k.sessions, s.key)
	}
}

func (s *session) pluginUsed(plugin string) bool {
	s.usedMu.Lock()
	defer s.usedMu.Unlock()
	return s.used[plugin]
}

func (s *session) usePlugin(plugin string) {
	s.usedMu.Lock()
	defer s.usedMu.Unlock()
	if s.used == nil {
		s.used = map[string]bool{}
	}
	s.used[plugin] = true
}

// Submit queues in for its session and returns a channel that receives the
// outcome once.
func (k *Kernel) Submit(in Input) <-chan Outcome {
	return k.submit(context.Background(), in)
}

// Ask submits in and waits for the outcome. Cancelling ctx cancels the
// turn (or withdraws the input if it has not started).
func (k *Kernel) Ask(ctx context.Context, in Input) Outcome {
	done := k.submit(ctx, in)
	select {
	case out := <-done:
		return out
	case <-ctx.Done():
		// The turn sees ctx too and ends; wait so it is not left running.
		return <-done
	}
}

func (k *Kernel) submit(ctx context.Context, in Input) <-chan Outcome {
	if in.Approver == nil {
		if a := k.fallback.Load(); a != nil {
			in.Approver = *a
		}
	}
	k.channelChat(&in)
	p := &pending{in: in, ctx: ctx, done: make(chan Outcome, 1)}
	key := sessionKey{in.Channel, in.ChatID}
	k.mu.Lock()
	if k.closed {
		k.mu.Unlock()
		if in.release != nil {
			in.release()
		}
		p.done <- Outcome{Err: ErrClosed}
		return p.done
	}
	defer k.mu.Unlock()
	s := k.sessions[key]
	if s == nil {
		k.evictIdle()
		s = &session{key: key}
		k.sessions[key] = s
	}
	if in.Interrupt {
		s.queue = append([]*pending{p}, s.queue...)
		if s.cancelTurn != nil {
			s.cancelTurn(ErrInterrupted)
		}
	} else {
		s.queue = append(s.queue, p)
	}
	if !s.running {
		s.running = true
		k.wg.Add(1)
		go k.work(s)
	}
	return p.done
}

// work answers a session's inputs until its queue is empty.
func (k *Kernel) work(s *session) {
	defer k.wg.Done()
	for {
		k.mu.Lock()
		if len(s.queue) == 0 {
			s.running = false
			s.cancelTurn = nil
			s.idleSince = time.Now()
			k.mu.Unlock()
			return
		}
		p := s.queue[0]
		s.queue = s.queue[1:]
		ctx, cancel := context.WithCancelCause(k.base)
		s.cancelTurn = cancel
		k.mu.Unlock()

		stop := context.AfterFunc(p.ctx, func() { cancel(context.Cause(p.ctx)) })
		k.obs.notify(p.in.Injection, Event{Kind: EventTurnStarted, Text: k.maskText(p.in.Text)})
		out := k.turn(ctx, s, p.in)
		k.obs.notify(p.in.Injection, Event{Kind: EventTurnEnded, TraceID: out.TraceID, Outcome: &out})
		stop()
		cancel(nil)
		if p.in.release != nil {
			p.in.release()
		}
		// The session is idle before its caller hears the outcome, so a
		// reset right after an answer is not refused as busy.
		k.mu.Lock()
		last := len(s.queue) == 0
		if last {
			s.running, s.cancelTurn, s.idleSince = false, nil, time.Now()
		}
		k.mu.Unlock()
		p.done <- out
		if last {
			return
		}
	}
}

// emitter returns the function a turn reports its events to: the
// input's OnEvent or the channel's sink, then every observer.
func (k *Kernel) emitter(in Input) func(Event) {
	emit := func(ev Event) {
		if ev.Kind == EventFinal && k.obs.empty() {
			// Nobody shows it; the answer itself stays out of the log.
			k.log.Info("answer for a channel without a sink", "channel", in.Channel, "source", in.Source, "chars", len(ev.Text))
		}
	}
	if in.OnEvent != nil {
		emit = in.OnEvent
	} else if sink := k.sinkFor(in); sink != nil {
		emit = func(ev Event) { sink(in.Injection, ev) }
	}
	return func(ev Event) {
		emit(ev)
		k.obs.notify(in.Injection, ev)
	}
}

// Observe calls fn with every event of every turn, on every channel, in
// addition to the turn's OnEvent or sink, and with EventTurnStarted before
// each turn. fn runs on the turn's goroutine, in the order of the turn's
// events: it must return quickly and never block (hand the event to a
// buffer and return). stop removes fn; after it returns fn is not called
// again. The daemon's event stream is built on it (internal/server).
func (k *Kernel) Observe(fn func(in sdk.Injection, ev Event)) (stop func()) {
	return k.obs.add(fn)
}

// observers is the set Observe keeps. Notifying holds the read lock, so
// turns notify at once and stop waits for a call in progress.
type observers struct {
	mu   sync.RWMutex
	next int
	fns  map[int]func(sdk.Injection, Event)
}

func (o *observers) add(fn func(sdk.Injection, Event)) func() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.fns == nil {
		o.fns = map[int]func(sdk.Injection, Event){}
	}
	id := o.next
	o.next++
	o.fns[id] = fn
	var once sync.Once
	return func() {
		once.Do(func() {
			o.mu.Lock()
			delete(o.fns, id)
			o.mu.Unlock()
		})
	}
}

// empty reports whether nobody observes.
func (o *observers) empty() bool {
	o.mu.RLock()
	defer o.mu.RUnlock()
	return len(o.fns) == 0
}

// notify calls every observer with ev. The read lock is held while they
// run, so that stop waits for a call in progress.
func (o *observers) notify(in sdk.Injection, ev Event) {
	o.mu.RLock()
	defer o.mu.RUnlock()
	for _, fn := range o.fns {
		fn(in, ev)
	}
}

// ErrBusy means the session is answering and cannot be reset now.
var ErrBusy = errors.New("the session is busy")

// ResetSession forgets a session's history, in memory and in the store.
// It fails with ErrBusy while the session has a turn running or queued.
func (k *Kernel) ResetSession(ctx context.Context, channel, chatID string) error {
	key := sessionKey{channel, chatID}
	k.mu.Lock()
	s := k.sessions[key]
	if s != nil && s.running {
		k.mu.Unlock()
		return ErrBusy
	}
	if s != nil {
		s.history, s.historyLoaded, s.summary = nil, false, ""
	}
	k.mu.Unlock()
	if k.store == nil {
		return nil
	}
	sess, err := k.store.Session(ctx, channel, chatID)
	if err != nil {
		return err
	}
	return k.store.ClearSession(ctx, sess.ID)
}

// Busy reports whether the session of channel and chatID has a turn
// running or inputs queued.
func (k *Kernel) Busy(channel, chatID string) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	s := k.sessions[sessionKey{channel, chatID}]
	return s != nil && (s.running || len(s.queue) > 0)
}

// SetFallbackApprover makes a ask for the inputs that bring no Approver of
// their own (plugin injections, programs' turns): the daemon sets its
// approvals broker, so that someone can answer from the web UI. Nil
// removes it; then such calls are refused as nobody can be asked.
func (k *Kernel) SetFallbackApprover(a policy.Approver) {
	if a == nil {
		k.fallback.Store(nil)
		return
	}
	k.fallback.Store(&a)
}
