package kernel

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// recorder keeps what an observer saw.
type recorder struct {
	mu    sync.Mutex
	kinds []EventKind
	chans []string
}

func (r *recorder) observe(in sdk.Injection, ev Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.kinds = append(r.kinds, ev.Kind)
	r.chans = append(r.chans, in.Channel)
}

func (r *recorder) seen() ([]EventKind, []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.kinds), slices.Clone(r.chans)
}

// An observer sees every event of a turn, besides the turn's own OnEvent,
// starting with EventTurnStarted, whichever channel it is on; after stop
// it sees nothing.
func TestObserveSeesEveryTurn(t *testing.T) {
	e := newEnv(t, Options{},
		llmtest.Reply{ToolCalls: []llmtest.Call{{ID: "c1", Name: "clock__now", Arguments: `{}`}}},
		llmtest.Reply{Text: "it is noon"},
		llmtest.Reply{Text: "second"},
		llmtest.Reply{Text: "third"},
	)
	var ran atomic.Int32
	load(t, e.k, "clock", countingClock(&ran))
	var obs recorder
	stop := e.k.Observe(obs.observe)

	var own []EventKind
	out := e.k.Ask(context.Background(), Input{Injection: sdk.Injection{Channel: "a", Text: "time?"},
		OnEvent: func(ev Event) { own = append(own, ev.Kind) }})
	if out.Err != nil || out.Text != "it is noon" {
		t.Fatalf("outcome %+v", out)
	}
	kinds, chans := obs.seen()
	if kinds[0] != EventTurnStarted || kinds[len(kinds)-2] != EventFinal || kinds[len(kinds)-1] != EventTurnEnded {
		t.Fatalf("observer saw %v", kinds)
	}
	if !slices.Contains(kinds, EventToolStart) || !slices.Contains(kinds, EventToolEnd) {
		t.Fatalf("observer missed the tool events: %v", kinds)
	}
	if !slices.Equal(kinds[1:len(kinds)-1], own) {
		t.Fatalf("observer saw %v, OnEvent %v", kinds[1:], own)
	}
	for _, c := range chans {
		if c != "a" {
			t.Fatalf("channels %v", chans)
		}
	}

	// A second channel without OnEvent or sink is observed too.
	if out := e.k.Ask(context.Background(), Input{Injection: sdk.Injection{Channel: "b", Text: "hi"}}); out.Text != "second" {
		t.Fatalf("outcome %+v", out)
	}
	_, chans = obs.seen()
	if chans[len(chans)-1] != "b" {
		t.Fatalf("channels %v", chans)
	}

	stop()
	stop() // idempotent
	kinds, _ = obs.seen()
	n := len(kinds)
	e.ask(t, "after")
	if kinds, _ := obs.seen(); len(kinds) != n {
		t.Fatalf("observer called after stop: %v", kinds[n:])
	}
}
