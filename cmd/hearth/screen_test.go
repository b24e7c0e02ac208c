package main

import (
	"bytes"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// screen collects what the child writes to the terminal.
type screen struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	changed chan struct{} // closed (and dropped) at the next write
}

func (s *screen) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.changed != nil {
		close(s.changed)
		s.changed = nil
	}
	return s.buf.Write(p)
}

func (s *screen) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

// next returns what the screen shows and a channel closed at its next
// write.
func (s *screen) next() (string, <-chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.changed == nil {
		s.changed = make(chan struct{})
	}
	return s.buf.String(), s.changed
}

// waitUntil waits until what the screen shows satisfies cond, looking
// again at each write, with a generous bound so a slow machine does not
// fail the test.
func (s *screen) waitUntil(t *testing.T, what string, cond func(string) bool) {
	t.Helper()
	timeout := time.NewTimer(30 * time.Second)
	defer timeout.Stop()
	for {
		shown, changed := s.next()
		if cond(shown) {
			return
		}
		select {
		case <-changed:
		case <-timeout.C:
			t.Fatalf("screen never showed %s:\n%s", what, shown)
		}
	}
}

// waitFor waits until the screen shows want.
func (s *screen) waitFor(t *testing.T, want string) {
	t.Helper()
	s.waitUntil(t, strconv.Quote(want), func(shown string) bool { return strings.Contains(shown, want) })
}
