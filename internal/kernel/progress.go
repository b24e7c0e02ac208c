package kernel

import (
	"math"
	"sync"
	"time"
	"unicode/utf8"
)

// progressInterval is the least time between two progress events of one
// call: about ten a second, whatever the tool reports.
const progressInterval = 100 * time.Millisecond

// maxProgressMessage caps a progress message, in bytes; a longer one is
// cut at a character boundary.
const maxProgressMessage = 200

// progressReporter turns one call's ToolContext.Progress reports into
// EventToolProgress events, at most one per progressInterval: a report
// that comes sooner waits (the latest replaces any waiting one) until the
// interval has passed, or until the call ends, whichever is first. Once
// the call has ended (close) nothing more is emitted, so the latest report
// always comes before the call's EventToolEnd and never after it.
type progressReporter struct {
	emit  func(Event) // the turn's, shared by its calls (see turnState.progressMu)
	tool  string
	call  string
	now   func() time.Time
	after func(time.Duration, func()) (stop func() bool)

	mu      sync.Mutex
	last    time.Time // when the latest event was emitted; zero: none yet
	pending Event     // the latest report not emitted yet, when waiting
	waiting bool
	timer   func() bool
	closed  bool
}

// progressFor returns the Progress function of a call about to run: its
// reports go to the turn's emitter, throttled. The reporter is kept on
// the call to be closed when it ends.
func (k *Kernel) progressFor(t *turnState, p *preparedCall) func(done, total float64, message string) {
	r := &progressReporter{
		tool: p.call.Name, call: p.call.ID, now: time.Now,
		after: func(d time.Duration, f func()) func() bool { return time.AfterFunc(d, f).Stop },
		emit: func(ev Event) {
			// The calls of one message run concurrently; the turn's
			// emitter (and the masking in front of it) takes one event at a
			// time.
			t.progressMu.Lock()
			defer t.progressMu.Unlock()
			t.emit(ev)
		},
	}
	p.progress = r
	return r.report
}

// report is the call's ToolContext.Progress.
func (r *progressReporter) report(done, total float64, message string) {
	if !validProgress(done) || !validProgress(total) {
		return
	}
	ev := Event{Kind: EventToolProgress, Tool: r.tool, CallID: r.call, Done: done, Total: total, Text: cutMessage(message)}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return
	}
	now := r.now()
	if wait := progressInterval - now.Sub(r.last); r.last.IsZero() || wait <= 0 {
		r.waiting = false
		r.send(ev, now)
		return
	} else if r.timer == nil {
		r.timer = r.after(wait, r.fire)
	}
	r.pending, r.waiting = ev, true
}

// fire emits the waiting report once its interval has passed.
func (r *progressReporter) fire() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.timer = nil
	if r.closed || !r.waiting {
		return
	}
	r.waiting = false
	r.send(r.pending, r.now())
}

// send emits ev; r.mu is held, so the events of one call keep their order.
func (r *progressReporter) send(ev Event, now time.Time) {
	r.last = now
	r.emit(ev)
}

// close ends the call's reports: a waiting one is emitted now, and later
// ones are dropped. A nil reporter (a call that never ran) does nothing.
func (r *progressReporter) close() {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return
	}
	r.closed = true
	if r.timer != nil {
		r.timer()
		r.timer = nil
	}
	if r.waiting {
		r.waiting = false
		r.send(r.pending, r.now())
	}
}

// validProgress reports whether v can be shown (and encoded as JSON).
func validProgress(v float64) bool {
	return v >= 0 && !math.IsInf(v, 0) && !math.IsNaN(v)
}

// cutMessage returns msg cut to maxProgressMessage bytes at a character
// boundary, with invalid UTF-8 replaced.
func cutMessage(msg string) string {
	if !utf8.ValidString(msg) {
		msg = string([]rune(msg)) // replaces invalid bytes with U+FFFD
	}
	if len(msg) <= maxProgressMessage {
		return msg
	}
	cut := maxProgressMessage
	for cut > 0 && !utf8.RuneStart(msg[cut]) {
		cut--
	}
	return msg[:cut] + "…"
}
