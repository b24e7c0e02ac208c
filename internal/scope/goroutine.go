package scope

import (
	"context"
	"errors"

	"github.com/hearth-agent/hearth/internal/goid"
)

// bound is the conversation scope of each goroutine running a plugin's
// handler for a turn, inherited by the goroutines the handler starts.
var bound goid.Local[Scope]

// ErrCallEnded is the error of a memory or knowledge write made for a
// call that has returned: by a goroutine a handler started that still
// runs after it (compiled in), or with the token of an ended call (over
// the protocol). It is refused rather than written in Global, where every
// conversation would read it.
var ErrCallEnded = errors.New("call ended: a write outside the call that started it is refused (write while the handler runs, or from the plugin's own background work, which acts in global)")

// Bind makes conv the calling goroutine's conversation scope (Current)
// until unbind is called: the kernel binds it around each in-process call
// of a plugin's tool or stage handler, which HomeAgent runs on the
// goroutine it is called on, so that the context-free memory API acts in
// that turn's conversation. Bindings nest. A goroutine the handler starts
// inherits the binding (goid.Local): it acts in the same conversation
// while the handler runs; once the handler has returned, its writes are
// refused (ErrCallEnded) and its reads act in Global. Bind only a
// goroutine that serves one call and ends (Run does that), or one whose
// calls all share one conversation.
func Bind(conv Scope) (unbind func()) {
	return bound.Bind(conv)
}

// Current returns the calling goroutine's conversation scope (Bind, its
// own or inherited while still bound); Global when it has none, or one
// that is not Valid.
func Current() Scope {
	s, _ := current()
	return s
}

// current is Current, and whether the calling goroutine was started by
// a handler that has returned since (its writes are refused).
func current() (conv Scope, ended bool) {
	s, st := bound.Lookup()
	switch {
	case st == goid.Ended && s != Global && s.Valid(): // nothing to keep from a call made in Global
		return Global, true
	case st == goid.Live && s.Valid():
		return s, false
	}
	return Global, false
}

// Run runs fn on a goroutine of its own bound to conv (Bind), and waits
// for it: what the kernel runs a plugin's handler with, so that the
// goroutines the handler starts, and no others, act in conv while it
// runs (and are refused writes after). Binding the goroutine that serves
// one turn after another instead would hand a goroutine one turn's
// handler left behind the next turn's conversation. A panic in fn is
// raised again on the calling goroutine.
func Run(conv Scope, fn func()) { bound.Run(conv, fn) }

// BindContext binds the conversation scope ctx carries (From; Global
// if none) to the calling goroutine, hiding any outer binding: around a
// handler given a context that may run context-free code.
func BindContext(ctx context.Context) (unbind func()) {
	return Bind(From(ctx))
}
