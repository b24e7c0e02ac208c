package remote

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"

	"github.com/hearth-agent/hearth/internal/kernel"
	"github.com/hearth-agent/hearth/internal/policy"
)

// messageBody is the body of POST /v1/sessions/{id}/messages.
type messageBody struct {
	Text      string `json:"text"`
	Interrupt bool   `json:"interrupt"`
	Wait      bool   `json:"wait"`
	// Untrusted is kernel.Input.Untrusted: the text is a third party's
	// (a prompt's), and the daemon taints the turn from its start.
	Untrusted string `json:"untrusted,omitempty"`
}

// messageAnswer is its answer with "wait": true.
type messageAnswer struct {
	Text string `json:"text"`
}

// decision is the body of POST /v1/approvals/{id}.
type decision struct {
	Answer  string `json:"answer"`
	Confirm string `json:"confirm,omitempty"`
}

// Ask runs one turn in the daemon, as kernel.Kernel.Ask does in-process:
// it follows the session's events (GET /v1/sessions/{id}/events), sends
// in.Text with "wait": true (in.Interrupt as "interrupt" and
// in.Untrusted as "untrusted"), and hands
// the turn's events to in.OnEvent. Which turn on the stream is this one
// is known by its turn.started text. An approval.requested of the turn is
// put to in.Approver and its answer posted to /v1/approvals/{id}; an
// approval.decided from elsewhere cancels the prompt's context.
// Cancelling ctx ends Ask at once with an interrupted outcome; the daemon
// goes on with the turn until this Agent's next message to the session,
// which is sent with "interrupt": true. If the daemon stops answering, the turn ends with an error
// wrapping ErrDaemonGone.
func (a *Agent) Ask(ctx context.Context, in kernel.Input) kernel.Outcome {
	sid, err := a.session(ctx, in.Channel, in.ChatID)
	if err != nil {
		return failed(ctx, err)
	}
	t := &turn{a: a, in: in, sid: sid, approvals: map[id]context.CancelFunc{}}
	out := t.run(ctx)
	var apiErr *APIError
	if errors.As(out.Err, &apiErr) && apiErr.Status == http.StatusNotFound {
		a.forget(in.Channel, in.ChatID) // deleted elsewhere: open it again next time
	}
	return out
}

// leave notes that a turn of sid was left running.
func (a *Agent) leave(sid id) {
	a.mu.Lock()
	a.abandoned[sid] = true
	a.mu.Unlock()
}

// left reports whether a turn of sid was left running, and forgets it.
func (a *Agent) left(sid id) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	ok := a.abandoned[sid]
	delete(a.abandoned, sid)
	return ok
}

// failed is the outcome of a turn that could not be sent.
func failed(ctx context.Context, err error) kernel.Outcome {
	if ctx.Err() != nil {
		return kernel.Outcome{Err: context.Cause(ctx), Interrupted: true}
	}
	return kernel.Outcome{Err: err}
}

// turn is the state of one Ask.
type turn struct {
	a   *Agent
	in  kernel.Input
	sid id

	mine    bool         // this turn's turn.started was seen
	ended   string       // the name of its last event, once seen
	endEv   kernel.Event // that event
	streamE error        // why the event stream ended, if it did
	gap     bool         // the stream broke and was opened again: events may be lost
	// finals are the texts of turn.finished events of turns not known to
	// be this one: when the POST's answer is among them, the turn's
	// events went by unrecognised.
	finals []string

	mu        sync.Mutex
	approvals map[id]context.CancelFunc // prompts shown, by approval id
}

// posted is the POST's answer.
type posted struct {
	text string
	err  error
}

func (t *turn) run(ctx context.Context) kernel.Outcome {
	tctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()

	path := "/v1/sessions/" + string(t.sid) + "/events"
	resp, err := t.a.subscribe(tctx, path, "")
	if err != nil {
		return failed(ctx, fmt.Errorf("following the session: %w", err))
	}
	events := make(chan item)
	wg.Add(1)
	go func() {
		defer wg.Done()
		t.a.follow(tctx, path, resp, events, t.peek)
	}()

	t.a.expect(t.sid, t.in.Text)
	answers := make(chan posted, 1)
	wg.Add(1)
	go func() {
		defer wg.Done()
		var ans messageAnswer
		err := t.a.send(tctx, http.MethodPost, "/v1/sessions/"+string(t.sid)+"/messages",
			messageBody{Text: t.in.Text, Interrupt: t.in.Interrupt || t.a.left(t.sid), Wait: true, Untrusted: t.in.Untrusted}, &ans)
		answers <- posted{ans.Text, err}
	}()
	problems := make(chan error, 1)

	var post *posted
	for {
		if post != nil && t.settled(post) {
			return t.outcome(ctx, post)
		}
		select {
		case <-ctx.Done():
			if post == nil {
				// The daemon goes on with the turn when its client
				// leaves (the API has no way to stop one but a newer
				// message): the next message interrupts it.
				t.a.leave(t.sid)
			}
			return t.outcome(ctx, &posted{err: ctx.Err()})
		case err := <-problems:
			// An answer the daemon refused: the turn would wait for it
			// until it expires, so it ends here, and the next message
			// interrupts it.
			t.a.leave(t.sid)
			return t.outcome(ctx, &posted{err: err})
		case p := <-answers:
			post = &p
			if p.err != nil && !t.mine {
				t.a.unexpect(t.sid, t.in.Text)
			}
		case it, ok := <-events:
			if !ok {
				events = nil
				if t.streamE == nil {
					t.streamE = ErrStreamLost
				}
				continue
			}
			if it.err != nil {
				t.streamE = it.err
				continue
			}
			if it.resumed {
				t.gap = true
				t.pendingApprovals(tctx, &wg, problems)
				continue
			}
			t.handle(tctx, &wg, it.ev, problems)
		}
	}
}

// peek sees every event before it is queued: an approval decided
// elsewhere cancels the prompt at once, even while the loop is busy
// showing an earlier event (a prompt holds the screen).
func (t *turn) peek(e sseEvent) {
	if e.Event != evApprovalDecided {
		return
	}
	w, err := decodeEvent(e)
	if err != nil {
		return
	}
	t.mu.Lock()
	stop := t.approvals[w.ID]
	t.mu.Unlock()
	if stop != nil {
		stop()
	}
}

// handle takes one event of the session's stream.
func (t *turn) handle(ctx context.Context, wg *sync.WaitGroup, e sseEvent, problems chan<- error) {
	w, err := decodeEvent(e)
	if err != nil || (w.SessionID != "" && w.SessionID != t.sid) {
		return // not an event this client can read, or not this session's
	}
	if t.ended != "" {
		return // a later turn
	}
	switch e.Event {
	case evTurnStarted:
		if !t.mine && w.Text == t.in.Text {
			t.mine = true
		}
		return
	case evApprovalAsked:
		if t.mine && t.in.Approver != nil {
			t.approve(ctx, wg, w.Approval, problems)
		}
		return
	}
	ev, ok := kernelEvent(e.Event, w)
	if !ok {
		return
	}
	if !t.mine {
		if e.Event == evTurnFinished {
			t.finals = append(t.finals, w.Text)
		}
		return
	}
	if t.in.OnEvent != nil {
		t.in.OnEvent(ev)
	}
	if endsTurn(e.Event) {
		t.ended, t.endEv = e.Event, ev
	}
}

// approve puts an approval to the terminal's prompt and posts the answer.
// The prompt's context ends when the approval expires, when it is decided
// elsewhere (peek) or with the turn.
func (t *turn) approve(ctx context.Context, wg *sync.WaitGroup, ap *wireApproval, problems chan<- error) {
	t.mu.Lock()
	_, dup := t.approvals[ap.ID]
	actx, stop := context.WithCancel(ctx)
	if !ap.ExpiresAt.IsZero() {
		stop()
		actx, stop = context.WithDeadline(ctx, ap.ExpiresAt)
	}
	if !dup {
		t.approvals[ap.ID] = stop
	}
	t.mu.Unlock()
	if dup {
		stop()
		return
	}
	req := approvalRequest(ap)
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer stop()
		answer, err := t.in.Approver(actx, req)
		if err != nil || actx.Err() != nil {
			return // expired, decided elsewhere, or the turn ended
		}
		d := decision{Answer: string(answer)}
		if answer == policy.AllowAlways {
			d.Confirm = "always" // the prompt had it typed out where needed
		}
		err = t.a.send(ctx, http.MethodPost, "/v1/approvals/"+string(ap.ID), d, nil)
		var apiErr *APIError
		if err == nil || ctx.Err() != nil ||
			errors.As(err, &apiErr) && (apiErr.Status == http.StatusNotFound || apiErr.Status == http.StatusConflict) {
			return // answered, or answered first elsewhere
		}
		select {
		case problems <- fmt.Errorf("answering the approval: %w", err):
		default:
		}
	}()
}

// pendingApprovals puts to the prompt the approvals of the session that
// are pending (GET /v1/approvals), for when approval.requested may have
// been lost with a broken stream.
func (t *turn) pendingApprovals(ctx context.Context, wg *sync.WaitGroup, problems chan<- error) {
	if !t.mine || t.ended != "" || t.in.Approver == nil {
		return
	}
	var list struct {
		Approvals []wireApproval `json:"approvals"`
	}
	if t.a.send(ctx, http.MethodGet, "/v1/approvals", nil, &list) != nil {
		return
	}
	for i := range list.Approvals {
		if list.Approvals[i].SessionID == t.sid {
			t.approve(ctx, wg, &list.Approvals[i], problems)
		}
	}
}

// settled reports whether the turn is over once the POST has answered:
// its end was seen, it cannot be seen any more, or it never started.
func (t *turn) settled(p *posted) bool {
	if t.ended != "" || t.streamE != nil || t.gap {
		return true
	}
	var apiErr *APIError
	switch {
	case errors.As(p.err, &apiErr) && apiErr.Code == "interrupted":
		return !t.mine // its turn.interrupted is on its way
	case p.err == nil:
		// The stream may still be catching up with the turn.
		for _, f := range t.finals {
			if f == p.text {
				return true
			}
		}
		return false
	case errors.As(p.err, &apiErr) && apiErr.Status/100 == 5:
		return !t.mine // the turn failed: its error event is on its way
	}
	return true // refused, or the daemon is gone
}

// outcome ends the turn: what the stream did not show of its end is
// shown, and the outcome says how it ended.
func (t *turn) outcome(ctx context.Context, p *posted) kernel.Outcome {
	emit := func(ev kernel.Event) {
		if t.ended == "" && t.in.OnEvent != nil {
			t.in.OnEvent(ev)
		}
		t.ended, t.endEv = "shown", ev
	}
	var apiErr *APIError
	switch {
	case ctx.Err() != nil:
		if t.mine {
			emit(kernel.Event{Kind: kernel.EventInterrupted, Err: context.Cause(ctx)})
		}
		return kernel.Outcome{Err: context.Cause(ctx), Interrupted: true}
	case t.ended == evTurnInterrupted || errors.As(p.err, &apiErr) && apiErr.Code == "interrupted":
		if t.mine {
			emit(kernel.Event{Kind: kernel.EventInterrupted, Err: kernel.ErrInterrupted})
		}
		return kernel.Outcome{Err: kernel.ErrInterrupted, Interrupted: true}
	case t.ended == evError:
		return kernel.Outcome{Text: p.text, Err: t.endEv.Err}
	case p.err == nil:
		if t.ended == "" {
			emit(kernel.Event{Kind: kernel.EventFinal, Text: p.text})
		}
		return kernel.Outcome{Text: p.text, Usage: t.endEv.Usage, Cost: t.endEv.Cost} // turn.finished's, for the usage line
	}
	err := p.err
	if t.streamE != nil && errors.Is(err, ErrDaemonGone) {
		err = fmt.Errorf("%w (%w)", err, t.streamE)
	}
	if t.mine {
		emit(kernel.Event{Kind: kernel.EventError, Err: err, Text: err.Error()})
	}
	return kernel.Outcome{Err: err}
}
