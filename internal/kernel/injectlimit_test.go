package kernel

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// fakeClock is a clock that moves only when told.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// A plugin injects a burst of MaxInjectionsPerMinute, then one every
// minute/MaxInjectionsPerMinute; the rest is refused before any model call.
func TestInjectionRateIsBoundedPerPlugin(t *testing.T) {
	e := newEnv(t, Options{MaxInjectionsPerMinute: 3})
	for range 6 {
		e.srv.Push(llmtest.Reply{Text: "ok"})
	}
	clock := &fakeClock{t: time.Unix(1e9, 0)}
	e.k.now = clock.now
	var a, b *sdk.PluginSDK
	load(t, e.k, "alpha", func(s *sdk.PluginSDK) error { a = s; return nil })
	load(t, e.k, "beta", func(s *sdk.PluginSDK) error { b = s; return nil })
	ctx := context.Background()
	for i := range 3 {
		if _, err := a.InjectAndWait(ctx, sdk.Injection{Text: "hi"}); err != nil {
			t.Fatalf("injection %d: %v", i, err)
		}
	}
	_, err := a.InjectAndWait(ctx, sdk.Injection{Text: "hi"})
	if !errors.Is(err, ErrTooManyInjections) || !errors.Is(err, sdk.ErrInjectRefused) || !strings.Contains(err.Error(), "3 messages a minute") {
		t.Fatalf("fourth: %v", err)
	}
	if err := a.InjectInput(sdk.Injection{Text: "hi"}); !errors.Is(err, ErrTooManyInjections) {
		t.Fatalf("async fourth: %v", err)
	}
	if _, err := b.InjectAndWait(ctx, sdk.Injection{Text: "hi"}); err != nil {
		t.Fatalf("another plugin's budget was spent: %v", err)
	}
	if n := len(e.srv.Requests()); n != 4 {
		t.Fatalf("%d model calls", n)
	}
	clock.add(20 * time.Second) // one more
	if _, err := a.InjectAndWait(ctx, sdk.Injection{Text: "hi"}); err != nil {
		t.Fatalf("after 20s: %v", err)
	}
	if _, err := a.InjectAndWait(ctx, sdk.Injection{Text: "hi"}); !errors.Is(err, ErrTooManyInjections) {
		t.Fatalf("second after 20s: %v", err)
	}
}

// At most MaxPendingInjections of a plugin's inputs wait to be answered,
// interrupts included; the slot comes back when one is.
func TestPendingInjectionsAreBoundedPerPlugin(t *testing.T) {
	hung, inFlight := hang()
	e := newEnv(t, Options{MaxInjectionsPerMinute: 100}, hung)
	for range 2 * MaxPendingInjections {
		e.srv.Push(llmtest.Reply{Text: "ok"})
	}
	e.k.now = (&fakeClock{t: time.Unix(1e9, 0)}).now
	var a *sdk.PluginSDK
	load(t, e.k, "alpha", func(s *sdk.PluginSDK) error { a = s; return nil })
	for i := range MaxPendingInjections {
		if err := a.InjectInput(sdk.Injection{Text: "hi"}); err != nil {
			t.Fatalf("injection %d: %v", i, err)
		}
	}
	err := a.InjectInput(sdk.Injection{Text: "hi"})
	if !errors.Is(err, ErrTooManyInjections) || !strings.Contains(err.Error(), "waiting to be answered") {
		t.Fatalf("past the pending limit: %v", err)
	}
	if _, err := a.InjectAndWait(context.Background(), sdk.Injection{Text: "hi", Interrupt: true}); !errors.Is(err, ErrTooManyInjections) {
		t.Fatalf("an interrupt jumped the pending limit: %v", err)
	}
	<-inFlight // the first turn hangs in the model call
	// The owner interrupts the hanging turn; once an input queued after
	// the plugin's is answered, theirs are too, and their slots are free.
	e.k.Ask(context.Background(), Input{Injection: sdk.Injection{Channel: "plugin:alpha", Text: "stop", Interrupt: true}})
	e.k.Ask(context.Background(), Input{Injection: sdk.Injection{Channel: "plugin:alpha", Text: "after"}})
	for i := range MaxPendingInjections {
		if err := a.InjectInput(sdk.Injection{Text: "hi"}); err != nil {
			t.Fatalf("injection %d after the queue drained: %v", i, err)
		}
	}
}
