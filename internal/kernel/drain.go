package kernel

import (
	"context"
	"time"
)

// Drain waits until no session has a turn running or queued, or ctx ends,
// and then returns ctx's error. It does not refuse new inputs: a daemon
// shutting down stops its channels first, drains, then calls Close, which
// cancels whatever is still running.
func (k *Kernel) Drain(ctx context.Context) error {
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for k.busy() {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
	return nil
}

// busy reports whether any session has a turn running or queued.
func (k *Kernel) busy() bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, s := range k.sessions {
		if s.running || len(s.queue) > 0 {
			return true
		}
	}
	return false
}
