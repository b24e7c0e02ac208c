package pluginhost

import (
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeClock is a clock that moves only when told.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func TestStderrRelayIsRateLimited(t *testing.T) {
	clock := &fakeClock{t: time.Unix(1e9, 0)}
	b := newBucket(clock.now)
	logs := &logBuf{}
	log := slog.New(slog.NewTextHandler(logs, nil))
	// A flood with the clock standing still: only the burst passes. A
	// second later, the steady rate lets more through, announced by the
	// count of what was dropped.
	var flood, later strings.Builder
	for i := range 10_000 {
		fmt.Fprintf(&flood, "noise %d\n", i)
	}
	for i := range 100 {
		fmt.Fprintf(&later, "later %d\n", i)
	}
	r := &phasedReader{phases: []string{flood.String(), later.String()}, between: func() { clock.advance(time.Second) }}
	relayStderrAt(r, log, newRing(10), b)

	out := logs.String()
	if n := strings.Count(out, "noise "); n != stderrBurstLines {
		t.Errorf("%d flood lines logged, want the burst of %d", n, stderrBurstLines)
	}
	if n := strings.Count(out, "later "); n != stderrLinesPerS {
		t.Errorf("%d lines logged a second later, want %d", n, stderrLinesPerS)
	}
	want := []string{"dropped_lines=" + fmt.Sprint(10_000-stderrBurstLines), "dropped_lines=" + fmt.Sprint(100-stderrLinesPerS)}
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("no %q summary in the log", w)
		}
	}
	if i, j := strings.Index(out, want[0]), strings.Index(out, "later 0"); i < 0 || j < i {
		t.Errorf("the drop summary does not come before the next line passed")
	}
}

func TestStderrRelayByteBudget(t *testing.T) {
	clock := &fakeClock{t: time.Unix(1e9, 0)}
	logs := &logBuf{}
	line := strings.Repeat("z", 4000)
	relayStderrAt(strings.NewReader(strings.Repeat(line+"\n", 1000)), slog.New(slog.NewTextHandler(logs, nil)),
		newRing(10), newBucket(clock.now))
	if n := strings.Count(logs.String(), line); n != stderrBurstBytes/4000 {
		t.Errorf("%d lines of 4000 bytes logged, want %d", n, stderrBurstBytes/4000)
	}
}

func TestStderrLongLineCut(t *testing.T) {
	logs := &logBuf{}
	long := strings.Repeat("é", 10_000) // 20,000 bytes
	relayStderr(strings.NewReader("short\n"+long+"\nafter\n"), slog.New(slog.NewTextHandler(logs, nil)), newRing(10))
	out := logs.String()
	if !strings.Contains(out, "short") || !strings.Contains(out, "after") {
		t.Fatalf("log: %s", out)
	}
	if !strings.Contains(out, "(15904 bytes cut)") || strings.Count(out, "é") != maxStderrLine/2 {
		t.Fatalf("long line not cut to %d bytes with a note: %d runes, %q", maxStderrLine, strings.Count(out, "é"), out[len(out)-200:])
	}
}

// phasedReader reads its phases one after the other, calling between
// before the first read of each phase after the first: by then the relay
// has handled every line of the phase before.
type phasedReader struct {
	phases  []string
	between func()
	i       int // the phase being read
	started bool
}

func (r *phasedReader) Read(p []byte) (int, error) {
	for r.i < len(r.phases) && r.phases[r.i] == "" {
		r.i++
		r.started = false
	}
	if r.i == len(r.phases) {
		return 0, io.EOF
	}
	if !r.started {
		if r.i > 0 && r.between != nil {
			r.between()
		}
		r.started = true
	}
	n := copy(p, r.phases[r.i])
	r.phases[r.i] = r.phases[r.i][n:]
	return n, nil
}
