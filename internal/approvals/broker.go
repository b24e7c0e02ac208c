// Package approvals lets an approval asked in one channel be answered in
// another. A Broker keeps every pending approval request; the approver a
// turn gets (Broker.Approver) publishes its request and returns the first
// answer, whether the channel's own prompt gives it or another channel
// (the web UI, the HTTP API) calls Broker.Decide.
package approvals

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hearth-agent/hearth/internal/policy"
	"github.com/hearth-agent/hearth/sdk"
)

// Errors Decide returns.
var (
	// ErrNotFound means no approval request has that id.
	ErrNotFound = errors.New("no such pending approval")
	// ErrAlreadyDecided means the request was answered (or expired)
	// before this answer came.
	ErrAlreadyDecided = errors.New("the approval was already decided")
	// ErrBadAnswer means the answer is not once, always or deny.
	ErrBadAnswer = errors.New(`the answer must be "once", "always" or "deny"`)
)

// Answers a request can end with besides policy's three, reported in
// Decided events.
const (
	Expired   = "expired"   // nobody answered before the request expired
	Cancelled = "cancelled" // the turn ended (interrupted, closed) first
)

// keepDecided is how many decided requests are remembered, so that a late
// Decide learns ErrAlreadyDecided rather than ErrNotFound.
const keepDecided = 512

// Pending is one approval request waiting for an answer.
type Pending struct {
	Request policy.ApprovalRequest
	Channel string    // the channel of the turn that asked
	ChatID  string    // its chat
	Asked   time.Time // when the request was published
}

// EventKind says what an Event reports.
type EventKind int

// The events a Broker publishes.
const (
	Requested EventKind = iota + 1 // a request is pending
	Decided                        // a request was answered, expired or cancelled
)

// Event is a change of the pending requests.
type Event struct {
	Kind    EventKind
	Pending Pending // the request, for both kinds
	// Answer is Decided's outcome: "once", "always", "deny", Expired or
	// Cancelled. By is who gave it: the answering channel, or "policy".
	Answer string
	By     string
}

// Broker holds the pending approval requests of every channel. The zero
// value is not usable; call New.
type Broker struct {
	mu      sync.Mutex
	pending map[int64]*entry
	decided map[int64]bool // recently decided ids
	order   []int64        // decided ids, oldest first
	subs    map[int]func(Event)
	nextSub int
	now     func() time.Time
}

type entry struct {
	p      Pending
	answer chan decision // buffered; receives the remote answer once
	done   bool          // decided; guarded by Broker.mu
}

type decision struct {
	answer policy.Answer
	by     string
}

// New returns an empty Broker.
func New() *Broker {
	return &Broker{pending: map[int64]*entry{}, decided: map[int64]bool{}, subs: map[int]func(Event){}, now: time.Now}
}

// NeedsConfirm reports whether answering req "always" must be confirmed
// (the API's "confirm": "always"): lasting permission to spend, publish,
// or grant access.
func NeedsConfirm(req *policy.ApprovalRequest) bool {
	return req.Grant || req.Effect == sdk.EffectMoney || req.Effect == sdk.EffectPublic
}

// Approver wraps a channel's own approver (nil when the channel cannot
// ask anyone: API and web turns, plugin injections, the OpenAI endpoint).
// The returned approver publishes each request as pending and returns the
// first answer: local's, or one given with Decide. Whichever loses is
// cancelled: local's context ends when Decide answers first, and Decide
// gets ErrAlreadyDecided after local answered. A local approver that
// fails while the request is still open leaves it to the other channels.
// When ctx ends (the request expired, the turn was cancelled) the request
// is withdrawn and the approver returns ctx's error.
func (b *Broker) Approver(local policy.Approver) policy.Approver {
	return func(ctx context.Context, req *policy.ApprovalRequest) (policy.Answer, error) {
		e := b.add(req)
		lctx, cancel := context.WithCancel(ctx)
		defer cancel()
		var localDone chan localResult
		if local != nil {
			localDone = make(chan localResult, 1)
			go func() {
				a, err := local(lctx, req)
				localDone <- localResult{a, err}
			}()
		}
		// waitLocal waits for the local prompt to give up once cancelled,
		// so that it never outlives the request.
		waitLocal := func() {
			cancel()
			if localDone != nil {
				<-localDone
			}
		}
		for {
			select {
			case d := <-e.answer:
				waitLocal()
				return d.answer, nil
			case r := <-localDone:
				localDone = nil
				if r.err == nil && b.claim(e, r.answer, byLocal(e.p)) {
					return r.answer, nil
				}
				if r.err == nil {
					// Decide won the race; its answer is in e.answer.
					d := <-e.answer
					return d.answer, nil
				}
				// The local channel could not ask; others still can.
			case <-ctx.Done():
				waitLocal()
				answer := Cancelled
				if errors.Is(ctx.Err(), context.DeadlineExceeded) {
					answer = Expired
				}
				if !b.claimWithout(e, answer) {
					// Answered just as the context ended: the answer stands.
					d := <-e.answer
					return d.answer, nil
				}
				return "", fmt.Errorf("approval %d: %w", req.ID, context.Cause(ctx))
			}
		}
	}
}

type localResult struct {
	answer policy.Answer
	err    error
}

func byLocal(p Pending) string {
	if p.Request.Requests.Channel != "" {
		return p.Request.Requests.Channel
	}
	return p.Channel
}

// Decide answers the pending request id on behalf of by (the channel
// answering: "web", "api"). It returns ErrNotFound for an unknown id,
// ErrAlreadyDecided when another answer came first, ErrBadAnswer for an
// answer other than once, always or deny. It does not check confirmation:
// callers ask for it when NeedsConfirm and the answer is always.
func (b *Broker) Decide(id int64, answer policy.Answer, by string) error {
	switch answer {
	case policy.AllowOnce, policy.AllowAlways, policy.Refuse:
	default:
		return ErrBadAnswer
	}
	b.mu.Lock()
	e := b.pending[id]
	if e == nil {
		decided := b.decided[id]
		b.mu.Unlock()
		if decided {
			return ErrAlreadyDecided
		}
		return ErrNotFound
	}
	b.mu.Unlock()
	if !b.claim(e, answer, by) {
		return ErrAlreadyDecided
	}
	e.answer <- decision{answer, by}
	return nil
}

// Get returns the pending request id.
func (b *Broker) Get(id int64) (Pending, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	e := b.pending[id]
	if e == nil {
		return Pending{}, false
	}
	return e.p, true
}

// Pending returns the requests waiting for an answer, oldest first.
func (b *Broker) Pending() []Pending {
	b.mu.Lock()
	out := make([]Pending, 0, len(b.pending))
	for _, e := range b.pending {
		out = append(out, e.p)
	}
	b.mu.Unlock()
	slices.SortFunc(out, func(a, b Pending) int {
		if c := a.Asked.Compare(b.Asked); c != 0 {
			return c
		}
		return int(a.Request.ID - b.Request.ID)
	})
	return out
}

// Subscribe calls fn with every Requested and Decided event until stop is
// called. fn runs with the broker locked, in the order of the events: it
// must return quickly and must not call the Broker.
func (b *Broker) Subscribe(fn func(Event)) (stop func()) {
	b.mu.Lock()
	defer b.mu.Unlock()
	id := b.nextSub
	b.nextSub++
	b.subs[id] = fn
	var once sync.Once
	return func() {
		once.Do(func() {
			b.mu.Lock()
			delete(b.subs, id)
			b.mu.Unlock()
		})
	}
}

// add publishes req as pending.
func (b *Broker) add(req *policy.ApprovalRequest) *entry {
	channel, chat := req.Requests.Channel, ""
	if c, rest, ok := strings.Cut(req.Session, "/"); ok {
		channel, chat = c, rest
	}
	e := &entry{p: Pending{Request: *req, Channel: channel, ChatID: chat, Asked: b.now()}, answer: make(chan decision, 1)}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.pending[req.ID] = e
	b.publish(Event{Kind: Requested, Pending: e.p})
	return e
}

// claim decides e with answer if nobody has; it reports whether this
// answer won.
func (b *Broker) claim(e *entry, answer policy.Answer, by string) bool {
	return b.finish(e, string(answer), by)
}

// claimWithout withdraws e, expired or cancelled, unless it was answered.
func (b *Broker) claimWithout(e *entry, why string) bool {
	return b.finish(e, why, "policy")
}

func (b *Broker) finish(e *entry, answer, by string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if e.done {
		return false
	}
	e.done = true
	id := e.p.Request.ID
	delete(b.pending, id)
	b.decided[id] = true
	b.order = append(b.order, id)
	if len(b.order) > keepDecided {
		delete(b.decided, b.order[0])
		b.order = b.order[1:]
	}
	b.publish(Event{Kind: Decided, Pending: e.p, Answer: answer, By: by})
	return true
}

// publish sends ev to every subscriber; b.mu is held.
func (b *Broker) publish(ev Event) {
	for _, fn := range b.subs {
		fn(ev)
	}
}
