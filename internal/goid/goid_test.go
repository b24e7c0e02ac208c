package goid

import (
	"fmt"
	"runtime"
	"sync"
	"testing"
)

func TestID(t *testing.T) {
	a := ID()
	if a == 0 || ID() != a {
		t.Fatalf("ID() = %d, then %d", a, ID())
	}
	ch := make(chan uint64)
	go func() { ch <- ID() }()
	if b := <-ch; b == 0 || b == a {
		t.Fatalf("another goroutine's ID %d (mine %d)", b, a)
	}
}

// TestIDFast: on the platforms CI runs (linux/amd64, gc) the number is
// read from the runtime's record, and it is the one the stack trace
// names, on every goroutine (not only the few fastAgrees checks).
func TestIDFast(t *testing.T) {
	if !fastAgrees() {
		t.Fatalf("the runtime's goroutine record disagrees with the stack trace (%s): ID reads every trace", runtime.Version())
	}
	var wg sync.WaitGroup
	bad := make(chan string, 100)
	for range 100 {
		wg.Go(func() {
			if got, want := ID(), slowID(); got != want || want == 0 {
				bad <- fmt.Sprintf("ID() = %d, the trace says %d", got, want)
			}
		})
	}
	wg.Wait()
	close(bad)
	for m := range bad {
		t.Error(m)
	}
}

func TestLocal(t *testing.T) {
	var l Local[string]
	if _, ok := l.Get(); ok {
		t.Fatal("empty Local has a value")
	}
	outer := l.Bind("outer")
	inner := l.Bind("inner")
	if v, _ := l.Get(); v != "inner" {
		t.Fatalf("Get = %q, want inner", v)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if v, s := l.Lookup(); v != "inner" || s != Live { // started while "inner" is bound
			t.Errorf("a goroutine started here sees %q, %v", v, s)
		}
		defer l.Bind("other")()
		if v, _ := l.Get(); v != "other" {
			t.Errorf("other goroutine's own = %q", v)
		}
	}()
	wg.Wait()
	outer() // out of order: inner stays
	if v, _ := l.Get(); v != "inner" {
		t.Fatalf("after undoing outer, Get = %q", v)
	}
	inner()
	inner() // idempotent
	if _, s := l.Lookup(); s != None || l.Len() != 0 {
		t.Fatalf("bindings left: %d", l.Len())
	}
}

func BenchmarkLocalBindGet(b *testing.B) {
	var l Local[int]
	for i := 0; b.Loop(); i++ {
		un := l.Bind(i)
		l.Get()
		un()
	}
}

func BenchmarkID(b *testing.B) {
	for b.Loop() {
		ID()
	}
}

// on runs fn on a new goroutine started by the calling one and waits.
func on(fn func()) {
	done := make(chan struct{})
	go func() { defer close(done); fn() }()
	<-done
}

func TestCreator(t *testing.T) {
	me := ID()
	var got, grand uint64
	on(func() {
		got = Creator()
		child := ID()
		on(func() {
			grand = Creator()
			if c := Creators(); c[ID()] != child || c[child] != me {
				t.Errorf("Creators: %d <- %d, %d <- %d; want %d <- %d <- %d", ID(), c[ID()], child, c[child], me, child, ID())
			}
		})
		if grand != child {
			t.Errorf("grandchild's creator %d, want %d", grand, child)
		}
	})
	if got != me {
		t.Fatalf("Creator() = %d, want %d", got, me)
	}
}

func TestLocalInherits(t *testing.T) {
	var l Local[string]
	check := func(where, want string, wantState State) {
		t.Helper()
		if v, s := l.Lookup(); v != want || s != wantState {
			t.Errorf("%s: Lookup = %q, %v; want %q, %v", where, v, s, want, wantState)
		}
	}
	on(func() { check("before any binding", "", None) })
	release := make(chan struct{})
	resumed := make(chan struct{})
	on(func() { // a handler's goroutine
		un := l.Bind("turn")
		on(func() { check("child", "turn", Live) })
		on(func() { on(func() { check("grandchild", "turn", Live) }) })
		go func() { // outlives the handler
			defer close(resumed)
			<-release
			check("child after the binding ended", "turn", Ended)
			on(func() { check("its own child", "turn", Ended) })
		}()
		un()
	})
	close(release)
	<-resumed
	check("the test's goroutine", "", None)
	on(func() {
		defer l.Bind("own")()
		on(func() {
			defer l.Bind("inner")()
			check("a child's own binding", "inner", Live)
		})
		check("own binding", "own", Live)
	})
}

func TestLocalTidies(t *testing.T) {
	var l Local[int]
	l.least = 8
	release := make(chan struct{})
	resumed := make(chan struct{})
	on(func() {
		defer l.Bind(-1)()
		go func() { // still running: its creator's ended value is kept
			defer close(resumed)
			<-release
			if v, s := l.Lookup(); v != -1 || s != Ended {
				t.Errorf("after tidying, Lookup = %d, %v", v, s)
			}
		}()
	})
	for i := range 100 {
		on(func() { l.Bind(i)() })
	}
	l.mu.Lock()
	kept := len(l.ended) + len(l.ancestors)
	l.mu.Unlock()
	if kept > 20 {
		t.Errorf("%d ended values and ancestries kept after 100 handlers", kept)
	}
	close(release)
	<-resumed
}

func BenchmarkLookup(b *testing.B) {
	b.Run("nothing-bound", func(b *testing.B) {
		var l Local[int]
		for b.Loop() {
			l.Lookup()
		}
	})
	b.Run("own", func(b *testing.B) {
		var l Local[int]
		defer l.Bind(1)()
		for b.Loop() {
			l.Lookup()
		}
	})
	b.Run("inherited", func(b *testing.B) {
		var l Local[int]
		defer l.Bind(1)()
		on(func() {
			for b.Loop() {
				l.Lookup()
			}
		})
	})
	b.Run("unbound-other-bound", func(b *testing.B) { // a plugin's own background goroutine while a turn runs
		var l Local[int]
		ready, done := make(chan struct{}), make(chan struct{})
		go func() { defer l.Bind(1)(); close(ready); <-done }()
		<-ready
		defer close(done)
		for b.Loop() {
			l.Lookup()
		}
	})
	b.Run("new-goroutine", func(b *testing.B) { // the first look of each new goroutine
		var l Local[int]
		defer l.Bind(1)()
		for b.Loop() {
			on(func() { l.Lookup() })
		}
	})
}

// TestLocalRun: Run binds a goroutine of its own, so a goroutine started
// by one call never sees the next call's value, and one the caller
// starts between calls sees none.
func TestLocalRun(t *testing.T) {
	var l Local[string]
	release := make(chan struct{})
	resumed := make(chan struct{})
	l.Run("A", func() {
		go func() {
			defer close(resumed)
			<-release // while call B runs
			if v, s := l.Lookup(); v != "A" || s != Ended {
				t.Errorf("call A's goroutine during call B: %q, %v", v, s)
			}
		}()
	})
	l.Run("B", func() {
		close(release)
		<-resumed
		if v, s := l.Lookup(); v != "B" || s != Live {
			t.Errorf("call B sees %q, %v", v, s)
		}
	})
	on(func() {
		if v, s := l.Lookup(); s != None {
			t.Errorf("a goroutine started between calls sees %q, %v", v, s)
		}
	})
	defer func() {
		if p := recover(); p != "boom" {
			t.Errorf("recovered %v, want the handler's panic", p)
		}
		if l.Len() != 0 {
			t.Errorf("%d bound after a panic", l.Len())
		}
	}()
	l.Run("C", func() { panic("boom") })
}
