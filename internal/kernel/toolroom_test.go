package kernel

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// registerPlugins registers, for each plugin, that many tools with a
// description and a schema of the size real plugins' tools have.
func registerPlugins(t *testing.T, k *Kernel, sizes map[string]int) {
	t.Helper()
	h := func(context.Context, *sdk.ToolContext, map[string]any, json.RawMessage) (any, error) {
		return "done", nil
	}
	for plugin, n := range sizes {
		for i := range n {
			def := sdk.ToolDef{
				Name: fmt.Sprintf("tool%d", i),
				Description: fmt.Sprintf("Tool %d of %s: lists, creates or updates the items of the service it manages, "+
					"with filters by project, label, date and owner; returns a JSON list with ids, titles and states.", i, plugin),
				Parameters: map[string]any{"type": "object", "properties": map[string]any{
					"project": map[string]any{"type": "string", "description": "the project's id or name"},
					"label":   map[string]any{"type": "string", "description": "a label to filter by"},
					"limit":   map[string]any{"type": "integer", "description": "how many items at most"},
				}},
				Effect: sdk.EffectRead,
			}
			if err := k.RegisterTool(plugin, def, h); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func hasPrefix(names []string, prefix string) bool {
	for _, n := range names {
		if strings.HasPrefix(n, prefix) {
			return true
		}
	}
	return false
}

// Four real-sized plugins (63 tools) do not fit an 8192-token window:
// the two largest are offered on demand, the turn works, the model loads
// one with plugins__use, and the change is logged once.
func TestToolsThatDoNotFitAreOfferedOnDemand(t *testing.T) {
	e := newEnv(t, Options{},
		llmtest.Reply{ToolCalls: []llmtest.Call{{ID: "u", Name: "plugins__use", Arguments: `{"plugin":"vanblog"}`}}},
		llmtest.Reply{ToolCalls: []llmtest.Call{{ID: "v", Name: "vanblog__tool3", Arguments: `{}`}}},
		llmtest.Reply{Text: "posted"},
		llmtest.Reply{Text: "again"},
	)
	registerPlugins(t, e.k, map[string]int{"recoverydiag": 5, "deepsearch": 5, "vikunja": 26, "vanblog": 27})
	if out := e.ask(t, "post the draft"); out.Err != nil || out.Text != "posted" {
		t.Fatalf("%+v", out)
	}
	reqs := e.srv.Requests()
	first := reqs[0].ToolNames()
	if !hasPrefix(first, "recoverydiag__") || !hasPrefix(first, "deepsearch__") || !hasPrefix(first, "plugins__use") ||
		hasPrefix(first, "vikunja__") || hasPrefix(first, "vanblog__") {
		t.Fatalf("first request's tools: %v", first)
	}
	if system := reqs[0].Messages[0]["content"].(string); !strings.Contains(system, "vanblog, vikunja") {
		t.Fatalf("system prompt does not name the plugins to load: %q", system)
	}
	if second := reqs[1].ToolNames(); !hasPrefix(second, "vanblog__") || hasPrefix(second, "vikunja__") {
		t.Fatalf("after plugins__use: %v", second)
	}
	if got := toolResult(t, reqs[2], "v"); got != "done" {
		t.Fatalf("vanblog__tool3: %q", got)
	}
	if out := e.ask(t, "and again"); out.Err != nil {
		t.Fatalf("%+v", out)
	}
	if n := strings.Count(e.logs.String(), "offered on demand"); n != 1 {
		t.Fatalf("logged %d times:\n%s", n, e.logs)
	}
	if od := e.k.OnDemandPlugins(); len(od) != 2 || !strings.Contains(od["vanblog"], "context window") || od["vikunja"] == "" {
		t.Fatalf("OnDemandPlugins: %v", od)
	}
	// A direct caller (the HTTP tool API) still sees every tool.
	if n := len(e.k.DirectTools(sdk.Injection{Channel: "test"})); n != 63 {
		t.Fatalf("%d direct tools", n)
	}
}

// With a window that takes them all, every tool is offered at once.
func TestToolsThatFitAreAllOffered(t *testing.T) {
	e := newEnv(t, Options{ContextWindow: 64 << 10}, llmtest.Reply{Text: "ok"})
	registerPlugins(t, e.k, map[string]int{"recoverydiag": 5, "deepsearch": 5, "vikunja": 26, "vanblog": 27})
	e.ask(t, "hi")
	if names := e.srv.Requests()[0].ToolNames(); len(names) != 63 || hasPrefix(names, "plugins__use") {
		t.Fatalf("%d tools: %v", len(names), names)
	}
	if strings.Contains(e.logs.String(), "offered on demand") {
		t.Fatal("logged a deferral for tools that fit")
	}
}

// When even on-demand tools cannot make room, the refusal names what
// takes the room and how to make more, not the short message.
func TestNoRoomNamesWhatTakesIt(t *testing.T) {
	e := newEnv(t, Options{ContextWindow: 2000, SystemPrompt: strings.Repeat("Always answer in verse. ", 300)})
	registerPlugins(t, e.k, map[string]int{"vikunja": 26})
	out := e.ask(t, "hi")
	if !errors.Is(out.Err, ErrNoRoom) || !errors.Is(out.Err, ErrInputTooLong) {
		t.Fatalf("outcome %+v", out)
	}
	msg := out.Err.Error()
	for _, want := range []string{"instructions 1", "tools ", "message ", "history", "context_window", "hearth plugin disable", "1 plugins' tools are already offered on demand"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q: %s", want, msg)
		}
	}
	if strings.Contains(msg, "Shorten it") {
		t.Errorf("a short message is blamed: %s", msg)
	}
	if n := len(e.srv.Requests()); n != 0 {
		t.Fatalf("%d requests", n)
	}
}
