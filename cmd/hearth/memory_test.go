package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// hearth memory on what the agent remembered in a real data directory:
// list, search, show, correct, forget, --json, --scope, bad input.
func TestMemoryCommand(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Reply{ToolCalls: []llmtest.Call{{Name: "memories__remember",
			Arguments: `{"fact":"Bob lives in Paris","subject":"Bob","relation":"lives_in","object":"Paris"}`}}},
		llmtest.Reply{Text: "noted"},
	)
	env := []string{"OPENAI_BASE_URL=" + srv.URL, "HEARTH_MODEL=test-model", "HEARTH_HOME=" + t.TempDir()}
	if out, errOut, code := hearth(t, env, "", "ask", "remember that Bob lives in Paris"); code != 0 || out != "noted\n" {
		t.Fatalf("ask: %d %q %q", code, out, errOut)
	}
	run := func(want int, args ...string) string {
		t.Helper()
		out, errOut, code := hearth(t, env, "", append([]string{"memory"}, args...)...)
		if code != want {
			t.Fatalf("hearth memory %v: exit %d, stdout %q, stderr %q", args, code, out, errOut)
		}
		if want != 0 {
			return errOut
		}
		return out
	}
	var list []memoryEntry
	if out := run(0, "--json"); json.Unmarshal([]byte(out), &list) != nil {
		t.Fatalf("--json: %q", out)
	}
	var fact memoryEntry
	for _, e := range list {
		if e.Kind == "doc" && e.Text == "Bob lives in Paris" {
			fact = e
		}
	}
	if fact.ID == "" || fact.Title != "fact" || fact.Scope != "owner" || fact.Writer != "memories" {
		t.Fatalf("no fact in %+v", list)
	}
	if out := run(0); !strings.Contains(out, fact.ID) || !strings.Contains(out, "Bob lives_in Paris") {
		t.Fatalf("list:\n%s", out)
	}
	// The owner's private conversations are the owner scope: --scope
	// narrows to it, and global holds nothing.
	if out := run(0, "--scope", "owner"); !strings.Contains(out, fact.ID) {
		t.Fatalf("--scope owner:\n%s", out)
	}
	if out := run(0, "--scope", "global"); strings.Contains(out, fact.ID) {
		t.Fatalf("--scope global:\n%s", out)
	}
	if out := run(0, "search", "Paris"); !strings.Contains(out, "Bob lives in Paris") {
		t.Fatalf("search:\n%s", out)
	}
	if out := run(0, "show", "Bob"); !strings.Contains(out, "Bob lives_in Paris") {
		t.Fatalf("show entity:\n%s", out)
	}
	run(2, "correct", fact.ID, "Bob → Lyon")
	run(2, "--scope", "nowhere")
	run(2, "frobnicate")
	run(1, "forget", "no-such-id")
	if out := run(0, "correct", fact.ID, "Bob lives in Lyon"); !strings.Contains(out, "corrected") {
		t.Fatalf("correct: %s", out)
	}
	if out := run(0, "show", fact.ID); !strings.Contains(out, "Bob lives in Lyon") {
		t.Fatalf("after correct: %s", out)
	}
	if out := run(0, "forget", fact.ID); !strings.Contains(out, "forgot") {
		t.Fatalf("forget: %s", out)
	}
	if out := run(0, "forget", "Bob|lives_in|Paris"); !strings.Contains(out, "forgot") {
		t.Fatalf("forget relation: %s", out)
	}
	if out := run(0, "search", "Lyon Paris"); !strings.Contains(out, "nothing remembered") {
		t.Fatalf("after forget:\n%s", out)
	}
}
