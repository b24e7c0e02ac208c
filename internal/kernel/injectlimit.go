package kernel

import (
	"errors"
	"fmt"
	"time"

	"github.com/hearth-agent/hearth/sdk"
)

// Limits on what one plugin may inject, so that a plugin looping on
// inject cannot keep the model busy (and the owner's bill growing).
const (
	// DefaultMaxInjectionsPerMinute is Options.MaxInjectionsPerMinute's
	// default: a burst of 10, then one every 6 seconds.
	DefaultMaxInjectionsPerMinute = 10
	// MaxPendingInjections is how many of a plugin's injected inputs may
	// be queued or answering at once.
	MaxPendingInjections = 8
)

// ErrTooManyInjections means a plugin injected past its limits; the error
// also wraps sdk.ErrInjectRefused.
var ErrTooManyInjections = errors.New("too many injections")

// injectQuota is one plugin's injection budget: a token bucket holding up
// to Options.MaxInjectionsPerMinute tokens, refilled at that rate, and the
// count of its inputs not yet answered. Guarded by Kernel.mu.
type injectQuota struct {
	tokens  float64
	last    time.Time
	pending int
}

// takeInjection spends one of plugin's injections, or refuses with
// ErrTooManyInjections. The caller gives the pending slot back with
// releaseInjection once the input is answered (or was never queued).
func (k *Kernel) takeInjection(plugin string) error {
	now := k.now()
	perMinute := float64(k.cfg.MaxInjectionsPerMinute)
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.quotas == nil {
		k.quotas = map[string]*injectQuota{}
	}
	q := k.quotas[plugin]
	if q == nil {
		q = &injectQuota{tokens: perMinute, last: now}
		k.quotas[plugin] = q
	}
	if elapsed := now.Sub(q.last); elapsed > 0 {
		q.tokens = min(perMinute, q.tokens+elapsed.Minutes()*perMinute)
	}
	q.last = now
	if q.pending >= MaxPendingInjections {
		return fmt.Errorf("%w: %w: plugin %q has %d injections waiting to be answered; try again once they are",
			sdk.ErrInjectRefused, ErrTooManyInjections, plugin, q.pending)
	}
	if q.tokens < 1 {
		return fmt.Errorf("%w: %w: plugin %q injected more than %d messages a minute",
			sdk.ErrInjectRefused, ErrTooManyInjections, plugin, k.cfg.MaxInjectionsPerMinute)
	}
	q.tokens--
	q.pending++
	return nil
}

// releaseInjection gives back the pending slot takeInjection took.
func (k *Kernel) releaseInjection(plugin string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if q := k.quotas[plugin]; q != nil && q.pending > 0 {
		q.pending--
	}
}
