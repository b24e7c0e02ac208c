// Package guard runs code Hearth does not trust to return: a plugin's
// hook, resolver or context function. The call gets a deadline; a panic
// becomes an error; the caller never waits past the deadline, even if the
// function ignores its context (its goroutine is then left to finish on
// its own, and its result is dropped).
package guard

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Errors Call returns for functions that misbehave.
var (
	ErrTimeout = errors.New("no answer in time")
	ErrPanic   = errors.New("panicked")
)

// Call runs fn with a context that ends after d. When fn returns as its
// context ends, either its result or the context's error may be returned.
func Call[T any](ctx context.Context, d time.Duration, fn func(context.Context) (T, error)) (T, error) {
	if err := ctx.Err(); err != nil {
		var zero T
		return zero, err // already cancelled: do not start
	}
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	type result struct {
		v   T
		err error
	}
	ch := make(chan result, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				ch <- result{err: fmt.Errorf("%w: %v", ErrPanic, p)}
			}
		}()
		v, err := fn(ctx)
		ch <- result{v, err}
	}()
	select {
	case r := <-ch:
		return r.v, r.err
	case <-ctx.Done():
		var zero T
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return zero, fmt.Errorf("%w (%s)", ErrTimeout, d)
		}
		return zero, ctx.Err()
	}
}

// CallInline is Call for a function known to return soon after its
// context ends (a call over a plugin connection, which gives up when its
// context ends whatever the plugin does): fn runs on the caller's
// goroutine, which saves the hand-off to a new one, on a small machine
// most of the cost of a quick call. The deadline, the panic and the
// errors are Call's; what it cannot do is return before fn does.
func CallInline[T any](ctx context.Context, d time.Duration, fn func(context.Context) (T, error)) (v T, err error) {
	if err := ctx.Err(); err != nil {
		return v, err
	}
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	defer func() {
		if p := recover(); p != nil {
			var zero T
			v, err = zero, fmt.Errorf("%w: %v", ErrPanic, p)
		}
	}()
	v, err = fn(ctx)
	if err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		var zero T
		return zero, fmt.Errorf("%w (%s)", ErrTimeout, d)
	}
	return v, err
}
