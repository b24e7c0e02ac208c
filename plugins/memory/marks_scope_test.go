package memoryplugin

import (
	"context"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/internal/policy"
	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// Correction lines follow the fact, not its words: a group forgetting
// its own copy of a fact must not tell the owner's conversation, shown
// the owner's copy (same text, another scope, still there), that it was
// deleted.
func TestForgettingInAGroupDoesNotMarkTheOwnersCopy(t *testing.T) {
	const fact = "Erin works at the bakery"
	a, srv := openApp(t, "",
		toolCall("memories__remember", map[string]string{"fact": fact}), // owner scope
		llmtest.Reply{Text: "noted"},
		toolCall("memories__remember", map[string]string{"fact": fact}), // group g1
		llmtest.Reply{Text: "noted"},
		toolCall("plugins__use", map[string]string{"plugin": "memories"}),
		toolCall("memories__forget", map[string]string{"fact": fact}),
		llmtest.Reply{Text: "forgotten"},
		llmtest.Reply{Text: "ok"}, // c1 again
	)
	ctx := context.Background()
	a.Kernel.Ask(ctx, in("", "c1", "remember that Erin works at the bakery"))
	a.Kernel.Ask(ctx, in("g1", "g1", "remember that Erin works at the bakery"))
	forget := in("g1", "g1", "forget where Erin works")
	forget.Approver = func(context.Context, *policy.ApprovalRequest) (policy.Answer, error) { return policy.AllowOnce, nil }
	a.Kernel.Ask(ctx, forget)
	a.Kernel.Ask(ctx, in("", "c1", "thanks"))
	reqs := srv.Requests()
	if got := lastToolResult(reqs[6]); !strings.Contains(got, "forgotten") {
		t.Fatalf("the group's copy was not forgotten: %q", got)
	}
	if got := memoryLines(reqs[7]); strings.Contains(got, "[已删除]") {
		t.Fatalf("the owner's conversation was told its fact, still remembered, was deleted: %q", got)
	}
}
