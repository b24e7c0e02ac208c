// Package goid tells goroutines apart, for the APIs Hearth implements
// that name no call: HomeAgent's SetToolBlocks and its memory services
// take no context, so the call they belong to is the one whose handler
// runs on the calling goroutine. Go offers no goroutine identity of its
// own; ID reads it from the stack header, and Local keeps a value per
// goroutine for as long as a handler runs. Use them only where no
// context can be passed.
package goid

import (
	"bytes"
	"runtime"
	"strconv"
	"sync"
)

// ID returns the calling goroutine's number, from the header of its stack
// trace ("goroutine 42 [running]:"), or 0 if it cannot be read. Numbers
// are never reused while the process runs.
func ID() uint64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b, ok := bytes.CutPrefix(b, []byte("goroutine "))
	if !ok {
		return 0
	}
	if i := bytes.IndexByte(b, ' '); i > 0 {
		b = b[:i]
	}
	n, err := strconv.ParseUint(string(b), 10, 64)
	if err != nil {
		return 0
	}
	return n
}

// Local holds a value per goroutine: Bind sets the calling goroutine's
// until the returned function is called, Get reads it. Bindings nest: an
// inner Bind hides an outer one until it is undone, in any order. The
// zero Local is empty and ready to use.
type Local[T any] struct {
	mu    sync.Mutex
	next  uint64
	stack map[uint64][]binding[T] // by goroutine, innermost last
}

type binding[T any] struct {
	id uint64
	v  T
}

// Bind gives the calling goroutine the value v and returns the function
// that takes it back (idempotent; it may run on any goroutine). Where the
// goroutine cannot be told (ID is 0), nothing is bound.
func (l *Local[T]) Bind(v T) (unbind func()) {
	g := ID()
	if g == 0 {
		return func() {}
	}
	l.mu.Lock()
	if l.stack == nil {
		l.stack = map[uint64][]binding[T]{}
	}
	l.next++
	id := l.next
	l.stack[g] = append(l.stack[g], binding[T]{id: id, v: v})
	l.mu.Unlock()
	var once sync.Once
	return func() { once.Do(func() { l.drop(g, id) }) }
}

func (l *Local[T]) drop(g, id uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.stack[g]
	for i := range s {
		if s[i].id == id {
			s = append(s[:i:i], s[i+1:]...)
			break
		}
	}
	if len(s) == 0 {
		delete(l.stack, g)
		return
	}
	l.stack[g] = s
}

// Get returns the calling goroutine's innermost value, and whether it has
// one.
func (l *Local[T]) Get() (T, bool) {
	l.mu.Lock()
	bound := len(l.stack) > 0
	l.mu.Unlock()
	if !bound { // nothing bound anywhere: spare the stack read
		var zero T
		return zero, false
	}
	g := ID()
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.stack[g]
	if len(s) == 0 || g == 0 {
		var zero T
		return zero, false
	}
	return s[len(s)-1].v, true
}

// Len returns how many goroutines have a value bound (for tests: a
// handler that returned left nothing behind).
func (l *Local[T]) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.stack)
}
