package goid

import (
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
		if v, ok := l.Get(); ok {
			t.Errorf("another goroutine sees %q", v)
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
	if _, ok := l.Get(); ok || l.Len() != 0 {
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
