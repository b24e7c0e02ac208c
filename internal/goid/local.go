package goid

import (
	"runtime"
	"slices"
	"sync"
)

// State says where the value Local.Lookup returns comes from.
type State int

const (
	// None: the goroutine has no value of its own, and none of the
	// goroutines that started it (transitively, MaxDepth of them) has
	// one bound now or had one bound when it was last undone.
	None State = iota
	// Live: the value is bound to the goroutine, or to the nearest of the
	// goroutines that started it that has one, and is still bound.
	Live
	// Ended: the nearest of the goroutines that started it that ever had
	// a value has none any more: the value is the one it last had. A
	// goroutine a handler started, still running after the handler
	// returned, is told by this.
	Ended
)

// MaxDepth is how far up the goroutines that started one Lookup looks.
const MaxDepth = 16

// tidyAt is how many ended bindings and known ancestries Local keeps
// before it forgets those of goroutines no live goroutine descends from.
const tidyAt = 1024

// Local holds a value per goroutine: Bind sets the calling goroutine's
// until the returned function is called, Lookup reads it. A goroutine
// without a value of its own inherits the value of the goroutine that
// started it (or of that one's creator, and so on): Live while it is
// bound there, Ended once it has been undone. Bindings nest: an inner
// Bind hides an outer one until it is undone, in any order. The zero
// Local is empty and ready to use.
//
// Costs: with nothing bound and nothing ended, Lookup reads no stack.
// Otherwise it reads the goroutine's number (a short stack read) and,
// the first time a goroutine without a value of its own looks, its
// whole trace to find its creator, and every goroutine's trace when the
// creator has no value either and its own ancestry is not known yet
// (see Creators); ancestries once found are kept, the creator's too.
// Ended values and ancestries are kept while some live goroutine may
// inherit them: once more than tidyAt of them, and more than there are
// goroutines alive, are kept, a look at every goroutine forgets the
// rest.
//
// Limits: a goroutine whose creator has ended and whose grandcreator
// had the value inherits nothing (the chain is lost with the middle
// goroutine), unless the process was started with GODEBUG=
// tracebackancestors=N (N ≥ MaxDepth), when the runtime records each
// goroutine's ancestors as it starts it and the trace names them; and a goroutine that binds again hands its new value to
// the goroutines it started under its earlier one, and an ended value to
// those it starts between two bindings. Run, which binds on a goroutine
// that serves one call and ends, has neither of the last two.
type Local[T any] struct {
	mu        sync.Mutex
	next      uint64
	stack     map[uint64][]binding[T] // by goroutine, innermost last
	ended     map[uint64]T            // by goroutine: the value it had when its last binding was undone
	ancestors map[uint64][]uint64     // by goroutine: its creator, that one's, ... (known so far)
	limit     int                     // tidy past this many ended + ancestors
	least     int                     // the least limit (tidyAt; tests lower it)
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
	delete(l.ended, g)
	l.mu.Unlock()
	var once sync.Once
	return func() { once.Do(func() { l.drop(g, id) }) }
}

func (l *Local[T]) drop(g, id uint64) {
	l.mu.Lock()
	s := l.stack[g]
	var last T
	for i := range s {
		if s[i].id == id {
			last = s[i].v
			s = append(s[:i:i], s[i+1:]...)
			break
		}
	}
	if len(s) > 0 {
		l.stack[g] = s
		l.mu.Unlock()
		return
	}
	delete(l.stack, g)
	if l.ended == nil {
		l.ended = map[uint64]T{}
	}
	l.ended[g] = last
	full := l.full()
	l.mu.Unlock()
	if full {
		l.tidy()
	}
}

// full reports whether enough is kept to tidy (l.mu held).
func (l *Local[T]) full() bool {
	if l.least == 0 {
		l.least = tidyAt
	}
	if l.limit == 0 {
		l.limit = l.least
	}
	// Tidying reads every goroutine's trace, which takes as long as there
	// are goroutines: waiting for as many entries as goroutines keeps its
	// cost per binding the same however many there are (and what is kept
	// small beside the goroutines' own stacks).
	return len(l.ended)+len(l.ancestors) > max(l.limit, runtime.NumGoroutine())
}

// tidy forgets the ended values and ancestries no live goroutine can
// inherit or use.
func (l *Local[T]) tidy() {
	lines := lineages()
	l.mu.Lock()
	defer l.mu.Unlock()
	if lines == nil { // unreadable: forget nothing (an ended value forgotten would let its goroutines write as if outside any call)
		l.limit = 2 * (len(l.ended) + len(l.ancestors))
		return
	}
	creators := make(map[uint64]uint64, len(lines))
	for g, line := range lines {
		creators[g] = line[0]
	}
	keep := map[uint64]bool{}
	for g, line := range lines {
		p := g
		for range MaxDepth {
			if p = creators[p]; p == 0 {
				break
			}
			keep[p] = true
		}
		for _, a := range line { // exited ones too (GODEBUG=tracebackancestors)
			keep[a] = true
		}
		for _, a := range l.ancestors[g] {
			keep[a] = true
		}
	}
	for g := range l.ended {
		if !keep[g] {
			delete(l.ended, g)
		}
	}
	for g := range l.ancestors {
		if _, alive := creators[g]; !alive {
			delete(l.ancestors, g)
		}
	}
	l.limit = max(l.least, 2*(len(l.ended)+len(l.ancestors)))
}

// Run runs fn with v bound on a goroutine of its own, and waits for it:
// the goroutines fn starts inherit v, and no goroutine started before or
// after fn runs does, which Bind on a goroutine that serves one call
// after another cannot promise (see Local's limits). A panic in fn is
// raised again on the calling goroutine (with the value, not the stack).
func (l *Local[T]) Run(v T, fn func()) {
	done := make(chan any, 1)
	go func() {
		unbind := l.Bind(v)
		defer func() {
			p := recover()
			unbind()
			done <- p
		}()
		fn()
	}()
	if p := <-done; p != nil {
		panic(p)
	}
}

// Get returns the calling goroutine's value, its own or inherited, and
// whether it has one that is Live.
func (l *Local[T]) Get() (T, bool) {
	v, s := l.Lookup()
	return v, s == Live
}

// Lookup returns the calling goroutine's innermost value, or the one it
// inherits from the goroutines that started it, and which it is.
func (l *Local[T]) Lookup() (T, State) {
	var zero T
	l.mu.Lock()
	empty := len(l.stack) == 0 && len(l.ended) == 0
	l.mu.Unlock()
	if empty { // nothing bound anywhere: spare the stack read
		return zero, None
	}
	g := ID()
	if g == 0 {
		return zero, None
	}
	l.mu.Lock()
	if s := l.stack[g]; len(s) > 0 {
		v := s[len(s)-1].v
		l.mu.Unlock()
		return v, Live
	}
	known := l.ancestors[g]
	v, st, found := l.inherited(known)
	l.mu.Unlock()
	if found || len(known) == MaxDepth || len(known) > 0 && known[len(known)-1] == 0 {
		return v, st
	}
	// Find the ancestry: the creator (and, with GODEBUG=
	// tracebackancestors, the ancestors the runtime recorded) from this
	// goroutine's own trace, the rest from every goroutine's, read only
	// when needed.
	chain := slices.Clone(known)
	if len(chain) == 0 {
		chain = lineage()
		chain = chain[:min(len(chain), MaxDepth)]
	}
	var creators map[uint64]uint64
	for len(chain) < MaxDepth && chain[len(chain)-1] != 0 {
		p := chain[len(chain)-1]
		l.mu.Lock()
		_, bound := l.stack[p]
		_, ended := l.ended[p]
		above, knownAbove := l.ancestors[p]
		l.mu.Unlock()
		if bound || ended {
			break
		}
		if knownAbove { // p looked before, or started one that did: no need to read every goroutine
			chain = append(chain, above[:min(len(above), MaxDepth-len(chain))]...)
			break
		}
		if creators == nil {
			if creators = Creators(); creators == nil {
				return v, st // unreadable: nothing more is known, and nothing is kept
			}
		}
		chain = append(chain, creators[p])
	}
	l.mu.Lock()
	if l.ancestors == nil {
		l.ancestors = map[uint64][]uint64{}
	}
	l.ancestors[g] = chain
	if _, alive := creators[chain[0]]; alive && len(chain) > 1 && l.ancestors[chain[0]] == nil {
		// The creator's own ancestry, read with every goroutine's: the
		// next goroutine it starts finds it here (a goroutine that
		// starts one per event would otherwise stop the world for each).
		l.ancestors[chain[0]] = chain[1:len(chain):len(chain)]
	}
	v, st, _ = l.inherited(chain)
	full := l.full()
	l.mu.Unlock()
	if full {
		l.tidy()
	}
	return v, st
}

// inherited returns the value of the nearest goroutine of chain that
// has one, live or ended (l.mu held).
func (l *Local[T]) inherited(chain []uint64) (v T, st State, found bool) {
	for _, p := range chain {
		if p == 0 {
			break
		}
		if s := l.stack[p]; len(s) > 0 {
			return s[len(s)-1].v, Live, true
		}
		if e, ok := l.ended[p]; ok {
			return e, Ended, true
		}
	}
	return v, None, false
}

// Len returns how many goroutines have a value bound (for tests: a
// handler that returned left nothing behind).
func (l *Local[T]) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.stack)
}
