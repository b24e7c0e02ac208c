package memoryplugin

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/internal/hosttest"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/sdktest"
)

// start runs the plugin over Hearth's own memory services, on a real
// SQLite file and knowledge folder.
func start(t *testing.T) *sdktest.Harness {
	t.Helper()
	return sdktest.StartWith(t, Name, New, nil, &sdktest.Options{Services: hosttest.Services(t, Name)})
}

func call(t *testing.T, h *sdktest.Harness, tool string, args any) (map[string]any, sdktest.Result) {
	t.Helper()
	res := h.CallTool(tool, args)
	if res.IsError {
		t.Fatalf("%s: %s", tool, res.Content)
	}
	var out map[string]any
	if err := json.Unmarshal([]byte(res.Content), &out); err != nil {
		t.Fatalf("%s: %v in %s", tool, err, res.Content)
	}
	return out, res
}

func TestRememberRecallCorrectForget(t *testing.T) {
	h := start(t)
	_, res := call(t, h, "remember", map[string]any{"fact": "Bob  lives in Paris", "subject": "Bob", "relation": "lives_in", "object": "Paris"})
	if res.Metadata["memory.shown"] != "Bob lives in Paris" {
		t.Fatalf("metadata %v", res.Metadata)
	}
	out, res := call(t, h, "recall", map[string]any{"query": "where does Bob live"})
	if got, _ := json.Marshal(out["facts"]); !strings.Contains(string(got), "Bob lives in Paris") ||
		!strings.Contains(res.Content, "Bob lives_in Paris") || res.Metadata["memory.shown"] != "Bob lives in Paris" {
		t.Fatalf("recall: %s %v", res.Content, res.Metadata)
	}
	_, res = call(t, h, "correct", map[string]any{"old": "Bob lives in Paris", "new": "Bob lives in Lyon"})
	if res.Metadata["memory.corrected"] != "Bob lives in Paris → Bob lives in Lyon" {
		t.Fatalf("correct metadata %v", res.Metadata)
	}
	out, _ = call(t, h, "recall", map[string]any{"query": "Bob lives"})
	if got, _ := json.Marshal(out["facts"]); strings.Contains(string(got), "Paris") || !strings.Contains(string(got), "Lyon") {
		t.Fatalf("after correct: %s", got)
	}
	_, res = call(t, h, "forget", map[string]any{"fact": "Bob lives in Lyon"})
	if res.Metadata["memory.deleted"] != "Bob lives in Lyon" {
		t.Fatalf("forget metadata %v", res.Metadata)
	}
	out, _ = call(t, h, "recall", map[string]any{"query": "Bob lives"})
	if facts, _ := out["facts"].([]any); len(facts) != 0 {
		t.Fatalf("after forget: %v", out)
	}
	if res := h.CallTool("forget", map[string]any{"fact": "Bob lives in Lyon"}); !res.IsError {
		t.Fatalf("forgot twice: %s", res.Content)
	}
}

func TestFactsRefused(t *testing.T) {
	h := start(t)
	for _, args := range []map[string]any{
		{"fact": "Bob moved Paris → Lyon"},
		{"fact": "  "},
		{"fact": strings.Repeat("长", MaxFactRunes+1)},
		{"fact": "Bob lives in Paris", "subject": "Bob"},
	} {
		if res := h.CallTool("remember", args); !res.IsError {
			t.Errorf("remember %v: %s", args, res.Content)
		}
	}
	call(t, h, "remember", map[string]any{"fact": "猫的名字是小白"})
	if res := h.CallTool("correct", map[string]any{"old": "猫的名字是小白", "new": "小白 → 小黑"}); !res.IsError {
		t.Fatalf("corrected to an arrow: %s", res.Content)
	}
}

func TestKnowledgeAndSearch(t *testing.T) {
	h := start(t)
	call(t, h, "add_knowledge", map[string]any{"name": "wifi", "content": "The guest wifi password is hunter2"})
	call(t, h, "remember", map[string]any{"fact": "The router is in the hallway cupboard"})
	out, res := call(t, h, "search", map[string]any{"query": "wifi password"})
	if hits, _ := out["hits"].([]any); len(hits) == 0 || !strings.Contains(res.Content, `"source":"knowledge"`) {
		t.Fatalf("search: %s", res.Content)
	}
	out, _ = call(t, h, "search", map[string]any{"query": "router cupboard"})
	if !strings.Contains(mustJSON(out), "hallway") {
		t.Fatalf("search docs: %v", out)
	}
}

func TestOnlyRememberIsAlwaysOffered(t *testing.T) {
	h := start(t)
	for _, name := range h.Tools() {
		def, _ := h.ToolDef(name)
		if def.OnDemand == (name == "memories__remember") {
			t.Errorf("%s: OnDemand %v", name, def.OnDemand)
		}
		if def.Effect != sdk.EffectRead && def.Effect != sdk.EffectWrite {
			t.Errorf("%s: effect %q", name, def.Effect)
		}
	}
}

func FuzzCheckFact(f *testing.F) {
	f.Add("Bob lives in Paris")
	f.Add("a → b")
	f.Fuzz(func(t *testing.T, s string) {
		fact, err := CheckFact(s)
		if err != nil {
			return
		}
		if fact == "" || strings.Contains(fact, "→") || strings.ContainsAny(fact, "\n\t") || strings.TrimSpace(fact) != fact {
			t.Fatalf("accepted %q as %q", s, fact)
		}
		if FactID(fact) != FactID(fact) || !strings.HasPrefix(FactID(fact), "fact-") {
			t.Fatal("unstable id")
		}
	})
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
