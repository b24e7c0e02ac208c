package memoryplugin

import (
	"context"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// A fact may hold MaxFactRunes; recall shows a long one cut. The
// conversation shown it so is told when it is forgotten, like one shown
// a short fact.
func TestForgettingALongRecalledFactIsMarked(t *testing.T) {
	fact := "Zed's travel plan: " + strings.Repeat("then the train to the next town and a walk, ", 9) + "and home"
	if n := len([]rune(fact)); n <= 300 || n > MaxFactRunes {
		t.Fatalf("the fact is %d runes", n)
	}
	a, srv := openApp(t, "",
		toolCall("memories__remember", map[string]string{"fact": fact}),
		llmtest.Reply{Text: "noted"},
		llmtest.Reply{Text: "trains"}, // c2 is shown the fact
		toolCall("plugins__use", map[string]string{"plugin": "memories"}),
		toolCall("memories__forget", map[string]string{"fact": fact}),
		llmtest.Reply{Text: "forgotten"},
		llmtest.Reply{Text: "ok"}, // c2: the mark
	)
	ctx := context.Background()
	a.Kernel.Ask(ctx, in("", "c1", "remember Zed's travel plan"))
	a.Kernel.Ask(ctx, in("", "c2", "what is Zed's travel plan?"))
	if out := a.Kernel.Ask(ctx, in("", "c1", "forget Zed's travel plan")); out.Text != "forgotten" {
		t.Fatalf("forget turn: %+v", out)
	}
	a.Kernel.Ask(ctx, in("", "c2", "thanks"))
	reqs := srv.Requests()
	if len(reqs) != 7 {
		t.Fatalf("%d requests", len(reqs))
	}
	if got := memoryLines(reqs[2]); !strings.Contains(got, "- Zed's travel plan: then the train") {
		t.Fatalf("c2 was not shown the fact: %q", got)
	}
	if got := memoryLines(reqs[6]); !strings.Contains(got, "- [已删除] Zed's travel plan: then the train") {
		t.Fatalf("c2 was not told the fact it was shown is gone: %q", got)
	}
}
