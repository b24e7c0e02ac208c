package kernel

import (
	"context"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/internal/scope"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// A fact corrected back and forth many times (a loop, or someone with
// write rights in a group doing it on purpose) must not put an unbounded
// number of correction lines into the next request of every conversation
// shown it: the marks stay within the recall budget.
func TestCorrectionMarksStayWithinTheBudget(t *testing.T) {
	rec := &fakeRecall{facts: map[scope.Scope][]string{scope.Owner: {"Carol lives in Paris"}}}
	e := newEnv(t, Options{Recall: rec, RecallTokens: 200}, llmtest.Reply{Text: "Paris"}, llmtest.Reply{Text: "ok"})
	e.ask(t, "where does Carol live?")
	a, b := "Carol lives in Paris", "Carol lives in Lyon"
	for range 1000 {
		if _, err := e.k.MemoryChanged(context.Background(), a, b, scope.Owner, ""); err != nil {
			t.Fatal(err)
		}
		a, b = b, a
	}
	if out := e.ask(t, "thanks"); out.Err != nil {
		t.Fatalf("the turn after the marks: %v", out.Err)
	}
	msg := memoryMessage(e.srv.Requests()[1])
	if !strings.Contains(msg, sdk.MarkCorrected) {
		t.Fatalf("no mark: %q", msg)
	}
	if n := EstimateTokens(msg); n > 200 {
		t.Fatalf("%d tokens of marks (%d lines) over a recall budget of 200", n, strings.Count(msg, "\n"))
	}
}
