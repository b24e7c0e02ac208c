package main

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"
)

// screen collects what the child writes to the terminal.
type screen struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (s *screen) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Write(p)
}

func (s *screen) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

// waitFor polls until the screen shows want, with a generous bound so a
// slow machine does not fail the test.
func (s *screen) waitFor(t *testing.T, want string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(s.String(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("screen never showed %q:\n%s", want, s.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}
