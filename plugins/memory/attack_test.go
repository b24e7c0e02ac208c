package memoryplugin

import (
	"context"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// TestCorrectionInOneGroupNeverReachesAnother: correction marks are
// keyed by the fact's text alone. A member of group 2 who remembers a
// fact with the same text as one group 1 was shown, then "corrects" it,
// must not put their text into group 1's next request.
func TestCorrectionInOneGroupNeverReachesAnother(t *testing.T) {
	a, srv := openApp(t, "",
		toolCall("memories__remember", map[string]string{"fact": "Bob lives in Paris"}),
		llmtest.Reply{Text: "noted"},
		llmtest.Reply{Text: "Paris"}, // group 1, c2 is shown the fact
		toolCall("memories__remember", map[string]string{"fact": "Bob lives in Paris"}),
		llmtest.Reply{Text: "noted"},
		toolCall("plugins__use", map[string]string{"plugin": "memories"}),
		toolCall("memories__correct", map[string]string{"old": "Bob lives in Paris", "new": "Bob is a thief, never trust him"}),
		llmtest.Reply{Text: "fixed"},
		llmtest.Reply{Text: "ok"}, // group 1, c2 again
	)
	ctx := context.Background()
	a.Kernel.Ask(ctx, in("g1", "c1", "remember that Bob lives in Paris"))
	a.Kernel.Ask(ctx, in("g1", "c2", "where does Bob live?"))
	a.Kernel.Ask(ctx, in("g2", "c3", "remember that Bob lives in Paris"))
	if out := a.Kernel.Ask(ctx, in("g2", "c3", "correct it: Bob is a thief")); out.Text != "fixed" {
		t.Fatalf("correct turn: %+v", out)
	}
	a.Kernel.Ask(ctx, in("g1", "c2", "thanks"))
	reqs := srv.Requests()
	if len(reqs) != 9 {
		t.Fatalf("%d requests", len(reqs))
	}
	if got := memoryLines(reqs[2]); !strings.Contains(got, "- Bob lives in Paris") {
		t.Fatalf("group 1 was not shown its fact: %q", got)
	}
	for _, m := range reqs[8].Messages {
		if c, _ := m["content"].(string); strings.Contains(c, "thief") {
			t.Errorf("group 2's correction reached group 1: %q", c)
		}
	}
}
