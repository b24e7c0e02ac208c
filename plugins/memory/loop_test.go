package memoryplugin

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/internal/app"
	"github.com/hearth-agent/hearth/internal/kernel"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// The agent with this plugin, through the real app (SQLite file, data
// folder) and a scripted model: what it remembers in one conversation it
// recalls in a later one of the same scope, and never in another group;
// a correction reaches the conversation that was shown the old fact,
// once.

func openApp(t *testing.T, config string, replies ...llmtest.Reply) (*app.App, *llmtest.Server) {
	t.Helper()
	srv := llmtest.NewServer(t, replies...)
	dir := t.TempDir()
	if config != "" {
		if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte(config), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	a, err := app.Open(context.Background(), &app.Options{DataDir: dir, Getenv: func(k string) string {
		return map[string]string{"OPENAI_BASE_URL": srv.URL, "OPENAI_API_KEY": "sk-test", "HEARTH_MODEL": "m"}[k]
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	return a, srv
}

func toolCall(name string, args any) llmtest.Reply {
	b, _ := json.Marshal(args)
	return llmtest.Reply{ToolCalls: []llmtest.Call{{Name: name, Arguments: string(b)}}}
}

// memoryLines returns the recall message of a request ("" if none).
func memoryLines(req llmtest.Request) string {
	for _, m := range req.Messages {
		if c, _ := m["content"].(string); m["role"] == "system" && (strings.HasPrefix(c, "Memory: ") || strings.HasPrefix(c, "Changes to what")) {
			return c
		}
	}
	return ""
}

func in(group, chat, text string) kernel.Input {
	return kernel.Input{Injection: sdk.Injection{Channel: "web", ChatID: chat, GroupID: group, UserID: "owner", Text: text}}
}

func TestAgentRecallsWithinItsScope(t *testing.T) {
	a, srv := openApp(t, "",
		toolCall("memories__remember", map[string]string{"fact": "小明最喜欢喝拿铁咖啡", "subject": "小明", "relation": "喜欢", "object": "拿铁"}),
		llmtest.Reply{Text: "好的，记住了。"},
		llmtest.Reply{Text: "拿铁。"},
		llmtest.Reply{Text: "不知道。"},
	)
	ctx := context.Background()
	if out := a.Kernel.Ask(ctx, in("g1", "c1", "记住：小明最喜欢喝拿铁咖啡")); out.Err != nil || out.Text != "好的，记住了。" {
		t.Fatalf("remember turn: %+v", out)
	}
	// A new conversation of the same group.
	a.Kernel.Ask(ctx, in("g1", "c2", "小明喜欢喝什么咖啡？"))
	// Another group.
	a.Kernel.Ask(ctx, in("g2", "c3", "小明喜欢喝什么咖啡？"))
	reqs := srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests", len(reqs))
	}
	if got := memoryLines(reqs[2]); !strings.Contains(got, "- 小明最喜欢喝拿铁咖啡") {
		t.Fatalf("same group, new conversation: memory %q in %v", got, reqs[2].Messages)
	}
	for _, m := range reqs[3].Messages {
		if c, _ := m["content"].(string); strings.Contains(c, "拿铁") {
			t.Fatalf("another group was shown %q", c)
		}
	}
}

func TestCorrectionMarkAppearsOnce(t *testing.T) {
	a, srv := openApp(t, "",
		toolCall("memories__remember", map[string]string{"fact": "Bob lives in Paris"}),
		llmtest.Reply{Text: "noted"},
		llmtest.Reply{Text: "Paris"}, // c2 is shown the fact
		toolCall("plugins__use", map[string]string{"plugin": "memories"}),
		toolCall("memories__correct", map[string]string{"old": "Bob lives in Paris", "new": "Bob lives in Lyon"}),
		llmtest.Reply{Text: "fixed"},
		llmtest.Reply{Text: "ok"}, // c2: the mark
		llmtest.Reply{Text: "ok"}, // c2: no mark
	)
	ctx := context.Background()
	a.Kernel.Ask(ctx, in("", "c1", "remember that Bob lives in Paris"))
	a.Kernel.Ask(ctx, in("", "c2", "where Bob lives?"))
	if out := a.Kernel.Ask(ctx, in("", "c1", "Bob moved: he lives in Lyon now")); out.Text != "fixed" {
		t.Fatalf("correct turn: %+v", out)
	}
	a.Kernel.Ask(ctx, in("", "c2", "thanks"))
	a.Kernel.Ask(ctx, in("", "c2", "thanks again"))
	reqs := srv.Requests()
	if got := memoryLines(reqs[2]); !strings.Contains(got, "- Bob lives in Paris") {
		t.Fatalf("c2 was not shown the fact: %q", got)
	}
	if got := memoryLines(reqs[6]); !strings.Contains(got, "- [更正] Bob lives in Paris → Bob lives in Lyon") {
		t.Fatalf("c2's next request: %q", got)
	}
	if got := memoryLines(reqs[7]); strings.Contains(got, "[更正]") {
		t.Fatalf("mark repeated: %q", got)
	}
}

func TestRecallBudgetAndOff(t *testing.T) {
	var many llmtest.Reply
	for i := range 30 {
		b, _ := json.Marshal(map[string]string{"fact": fmt.Sprintf("coffee fact %d is about beans from farm %d", i, i)})
		many.ToolCalls = append(many.ToolCalls, llmtest.Call{Name: "memories__remember", Arguments: string(b)})
	}
	a, srv := openApp(t, `{"memory": {"recall_tokens": 60}}`, many, llmtest.Reply{Text: "ok"}, llmtest.Reply{Text: "ok"})
	ctx := context.Background()
	a.Kernel.Ask(ctx, in("", "c1", "remember these"))
	a.Kernel.Ask(ctx, in("", "c2", "coffee beans?"))
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	got := memoryLines(reqs[2])
	if got == "" || kernel.EstimateTokens(got) > 60 {
		t.Fatalf("%d tokens over 60: %q", kernel.EstimateTokens(got), got)
	}

	a2, srv2 := openApp(t, `{"memory": {"recall_tokens": 0}}`,
		toolCall("memories__remember", map[string]string{"fact": "tea is green"}), llmtest.Reply{Text: "ok"}, llmtest.Reply{Text: "ok"})
	a2.Kernel.Ask(ctx, in("", "c1", "remember tea is green"))
	a2.Kernel.Ask(ctx, in("", "c2", "what colour is tea"))
	if got := memoryLines(srv2.Requests()[2]); got != "" {
		t.Fatalf("recall off, yet %q", got)
	}
}

func TestNoMemoryTurnRecallsNothing(t *testing.T) {
	a, srv := openApp(t, "",
		toolCall("memories__remember", map[string]string{"fact": "the spare key is under the mat"}), llmtest.Reply{Text: "ok"}, llmtest.Reply{Text: "ok"})
	ctx := context.Background()
	a.Kernel.Ask(ctx, in("", "c1", "remember the spare key is under the mat"))
	q := in("", "c2", "where is the spare key")
	q.NoMemory = true
	a.Kernel.Ask(ctx, q)
	if got := memoryLines(srv.Requests()[2]); got != "" {
		t.Fatalf("NoMemory turn shown %q", got)
	}
}
