package kernel

import (
	"errors"
	"testing"

	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// Interrupt stops the turn in flight (its outcome and events say
// interrupted), leaves the queued input to be answered, and reports false
// for a session that runs nothing.
func TestInterruptStopsTheRunningTurn(t *testing.T) {
	hung, inFlight := hang()
	e := newEnv(t, Options{}, hung, llmtest.Reply{Text: "the queued one"})
	if e.k.Interrupt("test", "c") {
		t.Fatal("an unknown session was interrupted")
	}
	var sawInterrupted bool
	first := e.k.Submit(Input{Injection: sdk.Injection{Channel: "test", ChatID: "c", Text: "long question"},
		OnEvent: func(ev Event) { sawInterrupted = sawInterrupted || ev.Kind == EventInterrupted }})
	<-inFlight
	queued := e.k.Submit(Input{Injection: sdk.Injection{Channel: "test", ChatID: "c", Text: "queued"}})
	if e.k.Interrupt("test", "other") {
		t.Fatal("another session was interrupted")
	}
	if !e.k.Interrupt("test", "c") {
		t.Fatal("the running turn was not interrupted")
	}
	out := <-first
	if !out.Interrupted || !errors.Is(out.Err, ErrInterrupted) || !sawInterrupted {
		t.Fatalf("outcome %+v, EventInterrupted seen %v", out, sawInterrupted)
	}
	if out := <-queued; out.Text != "the queued one" {
		t.Fatalf("queued outcome %+v", out)
	}
}
