package memoryplugin

import (
	"context"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/internal/scope"
	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// A remembered credential is not repeated into the model's context by
// memories__recall or memories__search (the kernel masks what looks like
// a key in this plugin's results, as in recall), while the fact stays as
// stored: the owner sees it with hearth memory --reveal.
func TestRecallAndSearchResultsMaskKeys(t *testing.T) {
	const key = "sk-proj-Abcdefgh12345678Zyx"
	a, srv := openApp(t, "",
		toolCall("memories__remember", map[string]string{"fact": "the billing account key is " + key}),
		llmtest.Reply{Text: "noted"},
		toolCall("plugins__use", map[string]string{"plugin": "memories"}),
		toolCall("memories__recall", map[string]string{"query": "billing account key"}),
		toolCall("memories__search", map[string]string{"query": "billing account key"}),
		llmtest.Reply{Text: "done"},
	)
	ctx := context.Background()
	a.Kernel.Ask(ctx, in("", "c1", "remember the billing account key"))
	if out := a.Kernel.Ask(ctx, in("", "c2", "which billing account key?")); out.Err != nil || out.Text != "done" {
		t.Fatalf("recall turn: %+v", out)
	}
	reqs := srv.Requests()
	if got := lastToolResult(reqs[1]); !strings.Contains(got, "the billing account key is") || strings.Contains(got, key) {
		t.Fatalf("remember's result: %q", got)
	}
	for _, i := range []int{4, 5} {
		got := lastToolResult(reqs[i])
		if !strings.Contains(got, "the billing account key is ****") || strings.Contains(got, key) {
			t.Fatalf("request %d, tool result %q", i, got)
		}
	}
	for _, req := range reqs {
		for _, m := range req.Messages {
			if c, _ := m["content"].(string); strings.Contains(c, key) {
				t.Fatalf("the key reached the model: %q", c)
			}
		}
	}
	docs := a.Docs.Query(scope.Everything(), "billing", 5)
	if len(docs) != 1 || !strings.Contains(docs[0].Content, key) {
		t.Fatalf("the fact as stored: %+v", docs)
	}
}
