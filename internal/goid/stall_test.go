package goid

import (
	"fmt"
	"os"
	"sync"
	"testing"
)

// parked starts n goroutines, each a few frames deep and blocked, as a
// busy host's sessions are, and returns the function that ends them.
func parked(n int) (stop func()) {
	release := make(chan struct{})
	var wg sync.WaitGroup
	var deep func(int)
	deep = func(d int) {
		if d > 0 {
			deep(d - 1)
			return
		}
		<-release
	}
	wg.Add(n)
	for range n {
		go func() { defer wg.Done(); deep(8) }()
	}
	return func() { close(release); wg.Wait() }
}

// BenchmarkStall is the cost of the all-goroutine stack read (Creators,
// a stop of the world) with many goroutines alive, and of the first
// Lookup of a goroutine that a goroutine with no value started while
// another goroutine has one bound: a plugin's background goroutine per
// memory call during a turn (and through a fresh goroutine between,
// which stops the world for each event unless the process runs with
// GODEBUG=tracebackancestors=16). 10,000 goroutines with
// HEARTH_BENCH_FULL=1, 200 without (CI runs it once, under -race).
func BenchmarkStall(b *testing.B) {
	n := 200
	if os.Getenv("HEARTH_BENCH_FULL") == "1" {
		n = 10000
	}
	stop := parked(n)
	defer stop()
	b.Run(fmt.Sprintf("Creators/goroutines=%d", n), func(b *testing.B) {
		for b.Loop() {
			Creators()
		}
	})
	b.Run(fmt.Sprintf("unbound-spawner/goroutines=%d", n), func(b *testing.B) {
		var l Local[int]
		ready, done := make(chan struct{}), make(chan struct{})
		go func() { defer l.Bind(1)(); close(ready); <-done }() // a turn's handler
		<-ready
		defer close(done)
		for b.Loop() {
			on(func() { l.Lookup() }) // started by the benchmark's goroutine, which has no value
		}
	})
	b.Run(fmt.Sprintf("unbound-two-levels/goroutines=%d", n), func(b *testing.B) {
		var l Local[int]
		ready, done := make(chan struct{}), make(chan struct{})
		go func() { defer l.Bind(1)(); close(ready); <-done }()
		<-ready
		defer close(done)
		for b.Loop() {
			on(func() { on(func() { l.Lookup() }) }) // a fresh goroutine between: its ancestry is not known yet
		}
	})
}

// TestLocalTidyUnreadable: when every goroutine's traces are too large
// to read, tidying forgets nothing: a goroutine a handler left running
// still tells that its call ended (forgetting it would make its writes
// look like work outside any call).
func TestLocalTidyUnreadable(t *testing.T) {
	stop := parked(100) // their traces are larger than maxStack below
	defer stop()
	defer func(n int) { maxStack = n }(maxStack)
	var l Local[int]
	l.least = 8
	release, resumed := make(chan struct{}), make(chan struct{})
	on(func() {
		defer l.Bind(-1)()
		go func() {
			defer close(resumed)
			<-release
			if v, s := l.Lookup(); v != -1 || s != Ended {
				t.Errorf("after an unreadable tidy, Lookup = %d, %v; want -1, Ended", v, s)
			}
		}()
	})
	maxStack = 16 << 10 // one goroutine's trace fits, not every goroutine's
	if len(Creators()) > 0 {
		t.Fatal("Creators read every trace within 16 KiB")
	}
	for i := range 20 {
		on(func() { l.Bind(i)() })
	}
	close(release)
	<-resumed
}

// TestLookupSpawnerOnce: a goroutine with no value that starts one
// goroutine per event, each looking while a handler elsewhere has a
// value bound, reads every goroutine's trace (a stop of the world) for
// the first event only.
func TestLookupSpawnerOnce(t *testing.T) {
	var l Local[int]
	ready, done := make(chan struct{}), make(chan struct{})
	go func() { defer l.Bind(1)(); close(ready); <-done }() // a turn's handler
	<-ready
	defer close(done)
	on(func() { // the spawner, started outside any call
		before := allReads.Load()
		for i := range 50 {
			on(func() {
				if v, s := l.Lookup(); s != None {
					t.Errorf("event %d: Lookup = %d, %v; want None", i, v, s)
				}
			})
		}
		if n := allReads.Load() - before; n > 1 {
			t.Errorf("%d reads of every goroutine for 50 events of one spawner, want at most 1", n)
		}
	})
}

// TestTidyAmortized: a call binds and ends (Run) while thousands of
// goroutines are alive, as in a busy host. Tidying reads every
// goroutine's trace, a stop of the world as long as there are
// goroutines; it waits until at least as many ended values and
// ancestries are kept as goroutines are alive, so that its cost per
// call stays the same however many there are.
func TestTidyAmortized(t *testing.T) {
	const alive, calls = 3000, 600
	stop := parked(alive)
	defer stop()
	var l Local[int]
	l.least = 8
	before := allReads.Load()
	for i := range calls {
		l.Run(i, func() {})
	}
	if n := allReads.Load() - before; n > 1 {
		t.Errorf("%d reads of every goroutine for %d calls with %d goroutines alive, want at most 1", n, calls, alive)
	}
	l.mu.Lock()
	kept := len(l.ended) + len(l.ancestors)
	l.mu.Unlock()
	if kept > calls {
		t.Errorf("%d kept after %d calls", kept, calls)
	}
}
