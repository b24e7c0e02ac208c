// Package deadline gives contexts a deadline without a runtime timer for
// each. context.WithTimeout arms one per context, and arming one wakes an
// idle thread of the runtime (the netpoller, to recompute its sleep): on
// a small machine that is a context switch per tool call, a third of a
// child plugin's round trip. A Sweeper keeps the deadlines in a heap under
// one timer that is moved only when the earliest deadline moves earlier;
// with calls of the same timeout in a row that is at most once a timeout
// period.
package deadline

import (
	"container/heap"
	"context"
	"sync"
	"time"
)

// Sweeper cancels contexts at their deadlines. The zero value is ready.
type Sweeper struct {
	mu    sync.Mutex
	byDue entries
	timer *time.Timer
	armed time.Time // when the timer fires; zero when it is not armed
}

type entry struct {
	due    time.Time
	cancel context.CancelCauseFunc
	index  int // in the heap, -1 once out of it
}

// WithTimeout is context.WithTimeout: the context ends after d, when
// parent ends, or when cancel is called, which must be called. Its Err is
// context.DeadlineExceeded once the deadline passed. One difference: a
// context derived from it and ended by its deadline reports
// context.Canceled, with context.DeadlineExceeded as its cause, so it is
// meant for handlers Hearth writes (a child plugin's calls), not for
// plugin code.
func (s *Sweeper) WithTimeout(parent context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	due := time.Now().Add(d)
	if pd, ok := parent.Deadline(); ok && !pd.After(due) {
		return context.WithCancel(parent) // the parent ends first
	}
	inner, cancel := context.WithCancelCause(parent)
	c := &timeoutCtx{Context: inner, entry: entry{due: due, cancel: cancel}, s: s}
	s.mu.Lock()
	heap.Push(&s.byDue, &c.entry)
	if s.armed.IsZero() || due.Before(s.armed) {
		s.arm(due)
	}
	s.mu.Unlock()
	return c, c.stop
}

// stop is the context's cancel function.
func (c *timeoutCtx) stop() {
	c.s.mu.Lock()
	if c.index >= 0 {
		heap.Remove(&c.s.byDue, c.index)
	}
	c.s.mu.Unlock()
	c.cancel(context.Canceled)
}

// arm sets the timer to fire at due; s.mu is held.
func (s *Sweeper) arm(due time.Time) {
	s.armed = due
	d := time.Until(due)
	if s.timer == nil {
		s.timer = time.AfterFunc(d, s.sweep)
	} else {
		s.timer.Reset(d)
	}
}

// sweep cancels the contexts whose deadline passed and arms the timer for
// the next one.
func (s *Sweeper) sweep() {
	now := time.Now()
	var due []*entry
	s.mu.Lock()
	for len(s.byDue) > 0 && !s.byDue[0].due.After(now) {
		due = append(due, heap.Pop(&s.byDue).(*entry))
	}
	s.armed = time.Time{}
	if len(s.byDue) > 0 {
		s.arm(s.byDue[0].due)
	}
	s.mu.Unlock()
	for _, e := range due {
		e.cancel(context.DeadlineExceeded)
	}
}

// Pending returns how many deadlines are being watched.
func (s *Sweeper) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.byDue)
}

// timeoutCtx reports its deadline, and context.DeadlineExceeded as its
// error once the deadline passed, as a context from WithTimeout does.
type timeoutCtx struct {
	context.Context
	entry
	s *Sweeper
}

func (c *timeoutCtx) Deadline() (time.Time, bool) { return c.due, true }

func (c *timeoutCtx) Err() error {
	err := c.Context.Err()
	if err != nil && context.Cause(c.Context) == context.DeadlineExceeded {
		return context.DeadlineExceeded
	}
	return err
}

// entries is a min-heap by due time.
type entries []*entry

func (h entries) Len() int           { return len(h) }
func (h entries) Less(i, j int) bool { return h[i].due.Before(h[j].due) }
func (h entries) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = i, j
}
func (h *entries) Push(x any) {
	e := x.(*entry)
	e.index = len(*h)
	*h = append(*h, e)
}
func (h *entries) Pop() any {
	old := *h
	e := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	e.index = -1
	return e
}
