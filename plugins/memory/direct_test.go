package memoryplugin

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/internal/kernel"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// An MCP client's direct call of the memory tools (kernel.CallTool, what
// hearth mcp serves) goes through what a turn's call does: the key in a
// recalled fact is masked before the client's model reads it, and a
// correction made there reaches the conversations shown the old fact.
func TestDirectMemoryCallsMaskAndMark(t *testing.T) {
	const key = "sk-proj-Abcdefgh12345678Zyx"
	a, srv := openApp(t, "",
		toolCall("memories__remember", map[string]string{"fact": "the billing account key is " + key}),
		llmtest.Reply{Text: "noted"},
		toolCall("memories__remember", map[string]string{"fact": "Bob lives in Paris"}),
		llmtest.Reply{Text: "noted"},
		llmtest.Reply{Text: "Paris"}, // c2 is shown the fact
		llmtest.Reply{Text: "ok"},    // c2 again: the mark
	)
	ctx := context.Background()
	a.Kernel.Ask(ctx, in("", "c1", "remember the billing account key"))
	a.Kernel.Ask(ctx, in("", "c1", "remember that Bob lives in Paris"))
	a.Kernel.Ask(ctx, in("", "c2", "where does Bob live?"))
	call := func(chat, tool string, args any) string {
		t.Helper()
		b, _ := json.Marshal(args)
		res, err := a.Kernel.CallTool(ctx, kernel.DirectCall{
			Requester: sdk.Injection{Channel: "web", ChatID: chat, UserID: "owner"},
			Tool:      tool, Arguments: b})
		if err != nil || res.IsError {
			t.Fatalf("%s: %+v, %v", tool, res, err)
		}
		return res.Content
	}
	if got := call("mcp", "memories__recall", map[string]string{"query": "billing account key"}); !strings.Contains(got, "billing account key is") || strings.Contains(got, key) {
		t.Errorf("memories__recall's result to the client: %q", got)
	}
	// The client names c2's chat: its call is still not c2's model's.
	call("c2", "memories__correct", map[string]string{"old": "Bob lives in Paris", "new": "Bob lives in Lyon"})
	a.Kernel.Ask(ctx, in("", "c2", "thanks"))
	reqs := srv.Requests()
	if got := memoryLines(reqs[4]); !strings.Contains(got, "- Bob lives in Paris") {
		t.Fatalf("c2 was not shown the fact: %q", got)
	}
	if got := memoryLines(reqs[5]); !strings.Contains(got, "- [更正] Bob lives in Paris → Bob lives in Lyon") {
		t.Errorf("c2 was not told of the client's correction: %q", got)
	}
}
