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

// memoryMessage returns the recall message (memory and marks) of a
// request, "" if none.
func memoryMessage(req llmtest.Request) string {
	for _, m := range req.Messages {
		if c, _ := m["content"].(string); m["role"] == "system" && (strings.HasPrefix(c, "Memory: ") || strings.HasPrefix(c, "Changes to what")) {
			return c
		}
	}
	return ""
}

// A correction made by `hearth memory` with no serve running (the
// command opens the data directory itself, a process of its own)
// reaches the next request of the conversation that was shown the fact
// in an earlier process, once.
func TestMemoryCorrectionReachesTheConversationAcrossProcesses(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Reply{ToolCalls: []llmtest.Call{{Name: "memories__remember", Arguments: `{"fact":"Bob lives in Paris"}`}}},
		llmtest.Reply{Text: "noted"},
		llmtest.Reply{Text: "ok"},
		llmtest.Reply{Text: "ok"},
	)
	env := []string{"OPENAI_BASE_URL=" + srv.URL, "HEARTH_MODEL=test-model", "HEARTH_HOME=" + t.TempDir()}
	if out, errOut, code := hearth(t, env, "", "ask", "--session", "bob", "remember that Bob lives in Paris"); code != 0 || out != "noted\n" {
		t.Fatalf("ask: %d %q %q", code, out, errOut)
	}
	out, errOut, code := hearth(t, env, "", "memory", "search", "--json", "Paris")
	var list []memoryEntry
	if code != 0 || json.Unmarshal([]byte(out), &list) != nil || len(list) == 0 {
		t.Fatalf("search: %d %q %q", code, out, errOut)
	}
	out, errOut, code = hearth(t, env, "", "memory", "correct", "--json", list[0].ID, "Bob lives in Lyon")
	var changed struct {
		Told int `json:"conversations_told"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &changed) != nil || changed.Told != 1 {
		t.Fatalf("correct: %d %q %q", code, out, errOut)
	}
	for range 2 {
		if out, errOut, code := hearth(t, env, "", "ask", "--session", "bob", "thanks"); code != 0 {
			t.Fatalf("ask: %d %q %q", code, out, errOut)
		}
	}
	reqs := srv.Requests()
	if got := memoryMessage(reqs[2]); !strings.Contains(got, "- [更正] Bob lives in Paris → Bob lives in Lyon") {
		t.Fatalf("the next request: %q", got)
	}
	if got := memoryMessage(reqs[3]); strings.Contains(got, "[更正]") {
		t.Fatalf("the mark came twice: %q", got)
	}
}

// hearth memory add remembers a fact (and a relation) as the owner's,
// in the owner scope unless --scope says otherwise; the agent recalls
// it; bad input is refused and changes nothing; what looks like a key
// is masked unless --reveal.
func TestMemoryAdd(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Reply{Text: "jasmine"})
	env := []string{"OPENAI_BASE_URL=" + srv.URL, "HEARTH_MODEL=test-model", "HEARTH_HOME=" + t.TempDir()}
	run := func(want int, args ...string) string {
		t.Helper()
		out, errOut, code := hearth(t, env, "", append([]string{"memory"}, args...)...)
		if code != want {
			t.Fatalf("hearth memory %v: exit %d, stdout %q, stderr %q", args, code, out, errOut)
		}
		return out
	}
	var added memoryEntry
	if out := run(0, "add", "--json", "Carol|likes|jasmine tea"); json.Unmarshal([]byte(out), &added) != nil ||
		added.Scope != "owner" || added.Writer != "" || added.Text != "Carol likes jasmine tea" || added.Title != "fact" {
		t.Fatalf("add: %q", out)
	}
	run(0, "add", "--scope", "global", "The office wifi password: Hunter2Secret99x")
	for _, bad := range [][]string{{"add", " "}, {"add", "Bob → Lyon"}, {"add", "a||b"}, {"add", "--scope", "nowhere", "x"}, {"add"}} {
		run(2, bad...)
	}
	var list []memoryEntry
	if out := run(0, "--json"); json.Unmarshal([]byte(out), &list) != nil {
		t.Fatalf("list: %q", out)
	}
	kinds := map[string]string{}
	for _, e := range list {
		kinds[e.Kind+" "+e.Scope+" "+e.Text] = e.Writer
	}
	want := map[string]string{"doc owner Carol likes jasmine tea": "", "relation owner Carol likes jasmine tea": "",
		"doc global The office wifi password: ****t99x": ""}
	if len(kinds) != len(want) {
		t.Fatalf("list after add (bad input must add nothing): %v", kinds)
	}
	for k := range want {
		if _, ok := kinds[k]; !ok {
			t.Fatalf("%q not in %v", k, kinds)
		}
	}
	if out := run(0, "search", "wifi"); strings.Contains(out, "Hunter2Secret99x") {
		t.Fatalf("search shows the password: %q", out)
	}
	if out := run(0, "search", "--reveal", "wifi"); !strings.Contains(out, "Hunter2Secret99x") {
		t.Fatalf("--reveal hides it: %q", out)
	}
	if out, errOut, code := hearth(t, env, "", "ask", "what tea does Carol like?"); code != 0 || out != "jasmine\n" {
		t.Fatalf("ask: %d %q %q", code, out, errOut)
	}
	if got := memoryMessage(srv.Requests()[0]); !strings.Contains(got, "- Carol likes jasmine tea") {
		t.Fatalf("not recalled: %q", got)
	}
}
