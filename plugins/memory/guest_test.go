package memoryplugin

import (
	"context"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/internal/kernel"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// A guest in a group (role guest: reads only) is not offered
// memories__remember, and memories__recall in the group does not reach
// the owner's private facts, by tool or by the automatic recall.
func TestGuestInAGroupCannotRememberNorReadTheOwnersFacts(t *testing.T) {
	const fact = "Frank's door code is 4321"
	a, srv := openApp(t, "",
		toolCall("memories__remember", map[string]string{"fact": fact}), // the owner, privately
		llmtest.Reply{Text: "noted"},
		toolCall("memories__remember", map[string]string{"fact": "the guest was here"}),
		toolCall("plugins__use", map[string]string{"plugin": "memories"}),
		toolCall("memories__recall", map[string]string{"query": "Frank door code"}),
		llmtest.Reply{Text: "no idea"},
	)
	ctx := context.Background()
	a.Kernel.Ask(ctx, in("", "c1", "remember that Frank's door code is 4321"))
	guest := kernel.Input{Injection: sdk.Injection{Channel: "qq", ChatID: "g1", GroupID: "g1", UserID: "stranger",
		Text: "what is Frank's door code?"}}
	a.Kernel.Ask(ctx, guest)
	reqs := srv.Requests()
	if len(reqs) != 6 {
		t.Fatalf("%d requests", len(reqs))
	}
	if got := lastToolResult(reqs[3]); !strings.Contains(got, "unknown tool") {
		t.Fatalf("the guest's remember: %q", got)
	}
	for i, r := range reqs[2:] {
		if got := memoryLines(r) + lastToolResult(r); strings.Contains(got, "4321") {
			t.Fatalf("request %d of the guest's turn holds the owner's fact: %q", i+2, got)
		}
	}
}
