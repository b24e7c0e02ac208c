package memoryplugin

import (
	"context"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// A correction line is given once: to the conversation's next request
// that the model answers. A request that fails (the provider refuses it,
// or the process dies before it is sent) has told the model nothing; the
// line must still come in the request after it.
func TestCorrectionLineSurvivesAFailedRequest(t *testing.T) {
	a, srv := openApp(t, "",
		toolCall("memories__remember", map[string]string{"fact": "Bob lives in Paris"}),
		llmtest.Reply{Text: "noted"},
		llmtest.Reply{Text: "Paris"}, // c2 is shown the fact
		toolCall("plugins__use", map[string]string{"plugin": "memories"}),
		toolCall("memories__correct", map[string]string{"old": "Bob lives in Paris", "new": "Bob lives in Lyon"}),
		llmtest.Reply{Text: "fixed"},
		llmtest.Reply{Status: 400, ErrorMessage: "bad request"}, // c2: the request fails
		llmtest.Reply{Text: "ok"},                               // c2 again
	)
	ctx := context.Background()
	a.Kernel.Ask(ctx, in("", "c1", "remember that Bob lives in Paris"))
	a.Kernel.Ask(ctx, in("", "c2", "where does Bob live?"))
	if out := a.Kernel.Ask(ctx, in("", "c1", "Bob moved: he lives in Lyon now")); out.Text != "fixed" {
		t.Fatalf("correct turn: %+v", out)
	}
	if out := a.Kernel.Ask(ctx, in("", "c2", "where does he live now?")); out.Err == nil {
		t.Fatalf("the failing request did not fail: %+v", out)
	}
	a.Kernel.Ask(ctx, in("", "c2", "where does he live now?"))
	reqs := srv.Requests()
	if len(reqs) != 8 {
		t.Fatalf("%d requests", len(reqs))
	}
	if got := memoryLines(reqs[7]); !strings.Contains(got, "- [更正] Bob lives in Paris → Bob lives in Lyon") {
		t.Fatalf("the request after the failed one: %q", got)
	}
}
