//go:build unix

package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// While hearth serve runs, hearth memory add and correct run in it
// (POST /v1/cli): the fact added is the owner's and recalled, and the
// correction reaches the conversation the daemon serves, once.
func TestMemoryAddAndCorrectThroughServe(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Reply{ToolCalls: []llmtest.Call{{Name: "memories__remember", Arguments: `{"fact":"Bob lives in Paris"}`}}},
		llmtest.Reply{Text: "noted"},
		llmtest.Reply{Text: "ok"},
		llmtest.Reply{Text: "ok"},
	)
	home := t.TempDir()
	startServe(t, home, []string{"OPENAI_BASE_URL=" + srv.URL, "HEARTH_MODEL=test-model"})
	env := []string{"HEARTH_HOME=" + home}
	if out, errOut, code := hearth(t, env, "", "ask", "--session", "bob", "remember that Bob lives in Paris"); code != 0 || out != "noted\n" {
		t.Fatalf("ask: %d %q %q", code, out, errOut)
	}
	var added memoryEntry
	out, errOut, code := hearth(t, env, "", "memory", "add", "--json", "Bob's cat is called Tofu")
	if code != 0 || json.Unmarshal([]byte(out), &added) != nil || added.Scope != "owner" || added.Writer != "" {
		t.Fatalf("add: %d %q %q", code, out, errOut)
	}
	out, errOut, code = hearth(t, env, "", "memory", "search", "--json", "Bob Paris")
	var list []memoryEntry
	if code != 0 || json.Unmarshal([]byte(out), &list) != nil {
		t.Fatalf("search: %d %q %q", code, out, errOut)
	}
	id := ""
	for _, e := range list {
		if e.Text == "Bob lives in Paris" {
			id = e.ID
		}
	}
	out, errOut, code = hearth(t, env, "", "memory", "correct", "--json", id, "Bob lives in Lyon")
	if code != 0 || !strings.Contains(out, `"conversations_told": 1`) {
		t.Fatalf("correct %q: %d %q %q", id, code, out, errOut)
	}
	for range 2 {
		if out, errOut, code := hearth(t, env, "", "ask", "--session", "bob", "thanks, and Bob's cat?"); code != 0 {
			t.Fatalf("ask: %d %q %q", code, out, errOut)
		}
	}
	reqs := srv.Requests()
	got := memoryMessage(reqs[2])
	if !strings.Contains(got, "- [更正] Bob lives in Paris → Bob lives in Lyon") || !strings.Contains(got, "- Bob's cat is called Tofu") {
		t.Fatalf("the next request: %q", got)
	}
	if got := memoryMessage(reqs[3]); strings.Contains(got, "[更正]") {
		t.Fatalf("the mark came twice: %q", got)
	}
}
