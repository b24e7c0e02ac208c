package scope

import (
	"context"

	"github.com/hearth-agent/hearth/internal/goid"
)

// bound is the conversation scope of each goroutine running a plugin's
// handler for a turn.
var bound goid.Local[Scope]

// Bind makes conv the calling goroutine's conversation scope (Current)
// until unbind is called: the kernel binds it around each in-process call
// of a plugin's tool or stage handler, which HomeAgent runs on the
// goroutine it is called on, so that the context-free memory API acts in
// that turn's conversation. Bindings nest. A goroutine the handler starts
// has no binding: its calls act in Global.
func Bind(conv Scope) (unbind func()) {
	return bound.Bind(conv)
}

// Current returns the calling goroutine's conversation scope (Bind);
// Global when it has none, or one that is not Valid.
func Current() Scope {
	if s, ok := bound.Get(); ok && s.Valid() {
		return s
	}
	return Global
}

// BindContext binds the conversation scope ctx carries (From; Global
// if none) to the calling goroutine, hiding any outer binding: around a
// handler given a context that may run context-free code.
func BindContext(ctx context.Context) (unbind func()) {
	return Bind(From(ctx))
}
