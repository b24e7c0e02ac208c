//go:build unix

package pluginhost

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hearth-agent/hearth/internal/kernel"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// readHooks returns the hook requests an xbot test plugin wrote to its
// data folder.
func readHooks(t *testing.T, f *fixture, plugin string) []map[string]any {
	t.Helper()
	file, err := os.Open(filepath.Join(f.data, "plugin_data", plugin, "hooks.jsonl"))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	var out []map[string]any
	sc := bufio.NewScanner(file)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}

// Hooks are told the name the plugin registered (python_echo), so a
// matcher on it fires; every event of xbot's protocol is mapped or
// refused with a log line naming it.
func TestXbotHooksSeeRegisteredNames(t *testing.T) {
	needProgram(t, "python3")
	f := newFixture(t,
		llmtest.Reply{ToolCalls: []llmtest.Call{
			{ID: "e", Name: "com-example-py-hooks__python_echo", Arguments: `{"text":"hi"}`},
			{ID: "x", Name: "com-example-py-hooks__python_forbidden", Arguments: `{}`},
		}},
		llmtest.Reply{Text: "done"},
	)
	dir, _ := filepath.Abs("testdata/xbot-hooks")
	p, err := Start(dir, &f.opts)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop()
	ready(t, p)

	out := f.k.Ask(context.Background(), kernel.Input{Injection: sdk.Injection{Channel: "test", ChatID: "c1", Text: "echo hi"}})
	if out.Err != nil || out.Text != "done" {
		t.Fatalf("%+v", out)
	}
	results := map[string]string{}
	for _, m := range f.srv.Requests()[1].Messages {
		if id, ok := m["tool_call_id"].(string); ok {
			results[id] = m["content"].(string)
		}
	}
	if !strings.Contains(results["e"], "echo: hi") {
		t.Fatalf("echo: %q", results["e"])
	}
	if !strings.Contains(results["x"], "denied by its own plugin") {
		t.Fatalf("the PreToolUse hook matching python_* did not deny: %q", results["x"])
	}

	seen := map[string][]string{}
	for _, h := range readHooks(t, f, "com-example-py-hooks") {
		ev, _ := h["event"].(string)
		tool, _ := h["toolName"].(string)
		seen[ev] = append(seen[ev], tool)
		if h["channel"] != "test" || h["chatId"] != "c1" {
			t.Errorf("%s: channel %v chat %v", ev, h["channel"], h["chatId"])
		}
	}
	if got := strings.Join(seen["PostToolUse"], ","); got != "python_echo" {
		t.Errorf("PostToolUse told %q, want the registered name python_echo", got)
	}
	if got := strings.Join(seen["PreToolUse"], ","); !strings.Contains(got, "python_echo") || !strings.Contains(got, "python_forbidden") {
		t.Errorf("PreToolUse told %q", got)
	}
	for _, ev := range []string{"SessionStart", "UserPromptSubmit", "AgentStop"} {
		if len(seen[ev]) != 1 {
			t.Errorf("%s fired %d times, want 1", ev, len(seen[ev]))
		}
	}
	for _, ev := range []string{"PreCompact", "PostCompact"} { // no compaction in this turn
		if len(seen[ev]) != 0 {
			t.Errorf("%s fired", ev)
		}
	}
	logs := f.logs.String()
	for _, ev := range []string{"SessionEnd", "SubAgentStart", "SubAgentStop", "CronFired", "WebhookReceived", "NoSuchEvent"} {
		if len(seen[ev]) != 0 {
			t.Errorf("%s fired", ev)
		}
		if !strings.Contains(logs, "event="+ev) {
			t.Errorf("no log line refuses %s", ev)
		}
	}

	// A tool declared with channels runs only in a turn of one of them.
	if got, isErr := f.call("com-example-py-hooks__python_webonly", `{}`); !isErr || !strings.Contains(got, "only for channel web") {
		t.Errorf("python_webonly outside web: %q", got)
	}

	// A second message in the same chat is not a new session.
	f.srv.Push(llmtest.Reply{Text: "again"})
	if out := f.k.Ask(context.Background(), kernel.Input{Injection: sdk.Injection{Channel: "test", ChatID: "c1", Text: "more"}}); out.Err != nil {
		t.Fatal(out.Err)
	}
	n := 0
	for _, h := range readHooks(t, f, "com-example-py-hooks") {
		if h["event"] == "SessionStart" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("SessionStart fired %d times for one chat", n)
	}
}

// A plugin that never answers activate is waited for once, up to the
// handshake timeout; then WaitReady returns, and its status says why.
func TestXbotUnansweredActivateNotWaitedFor(t *testing.T) {
	needProgram(t, "python3")
	f := newFixture(t)
	f.opts.HandshakeTimeout = 200 * time.Millisecond
	dir, _ := filepath.Abs("testdata/xbot-silent")
	p, err := Start(dir, &f.opts)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop()
	err = p.WaitReady(context.Background())
	if err == nil || !strings.Contains(err.Error(), "no answer to activate") {
		t.Fatalf("WaitReady: %v", err)
	}
	if st := p.Status(); !strings.Contains(st.LastError, "no answer to activate") {
		t.Fatalf("status %+v", st)
	}
	p.Stop()

	// The next Hearth process remembers it and does not wait at all.
	f.opts.HandshakeTimeout = time.Hour
	p2, err := Start(dir, &f.opts)
	if err != nil {
		t.Fatal(err)
	}
	defer p2.Stop()
	if err := p2.WaitReady(context.Background()); err == nil || !strings.Contains(err.Error(), "last activate went unanswered") {
		t.Fatalf("WaitReady after a restart: %v", err)
	}
}

// An xbot script plugin runs its entry on its triggers, with the XBOT_*
// variables, and keeps the output as its widget's content.
func TestXbotScriptPlugin(t *testing.T) {
	needProgram(t, "python3")
	needProgram(t, "bash")
	f := newFixture(t,
		llmtest.Reply{ToolCalls: []llmtest.Call{{ID: "w", Name: "files__write_file", Arguments: `{"path":"a.txt"}`}}},
		llmtest.Reply{Text: "written"},
	)
	if err := f.k.RegisterTool("files", sdk.ToolDef{Name: "write_file", Effect: sdk.EffectRead},
		func(context.Context, *sdk.ToolContext, map[string]any, json.RawMessage) (any, error) {
			return "wrote 3 bytes", nil
		}); err != nil {
		t.Fatal(err)
	}
	dir, _ := filepath.Abs("testdata/xbot-script")
	p, err := Start(dir, &f.opts)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop()
	ready(t, p)
	waitStatus(t, p, "the widget shows its start output", func(Status) bool { return len(p.Widgets()) == 1 })
	if w := p.Widgets()[0]; w.ID != "write-note" || !strings.HasPrefix(w.Text, "ok|idle in ") {
		t.Fatalf("start: %+v", w)
	}

	if out := f.k.Ask(context.Background(), kernel.Input{Injection: sdk.Injection{Channel: "test", Text: "write a.txt"}}); out.Err != nil {
		t.Fatal(out.Err)
	}
	w := p.Widgets()[0]
	want := "md|\nPostToolUse write_file wrote a.txt for widget write-note: wrote 3 bytes"
	if w.Text != want || w.Slot != "toolHint" {
		t.Fatalf("after the tool: %q, want %q", w.Text, want)
	}
	logs := f.logs.String()
	for _, s := range []string{"event=CronFired", "command=note", "refreshInterval=30s", "web block not supported"} {
		if !strings.Contains(logs, s) {
			t.Errorf("no log line refuses %s", s)
		}
	}
}

// PreCompact and PostCompact fire, once each and in that order, when the
// kernel compacts a session's history; the summary call is answered
// between them.
func TestXbotCompactHooksFire(t *testing.T) {
	needProgram(t, "python3")
	// The default window (8,192 tokens, 6,144 for the request) holds two
	// turns of 2,000-token messages; the third compacts the first.
	f := newFixture(t, llmtest.Reply{Text: "a1"}, llmtest.Reply{Text: "a2"},
		llmtest.Reply{Text: "the user sent two long messages"}, llmtest.Reply{Text: "a3"})
	dir, _ := filepath.Abs("testdata/xbot-hooks")
	p, err := Start(dir, &f.opts)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop()
	ready(t, p)
	for i, want := range []string{"a1", "a2", "a3"} {
		text := fmt.Sprintf("message %d ", i) + strings.Repeat("lorem ipsum ", 660)
		out := f.k.Ask(context.Background(), kernel.Input{Injection: sdk.Injection{Channel: "test", ChatID: "c1", Text: text}})
		if out.Err != nil || out.Text != want {
			t.Fatalf("turn %d: %+v", i+1, out)
		}
	}
	var order []string
	var pre, post map[string]any
	for _, h := range readHooks(t, f, "com-example-py-hooks") {
		switch h["event"] {
		case "PreCompact":
			pre = h
		case "PostCompact":
			post = h
		default:
			continue
		}
		order = append(order, h["event"].(string))
	}
	if strings.Join(order, ",") != "PreCompact,PostCompact" {
		t.Fatalf("compact hooks fired %v", order)
	}
	if pre["messageCount"] != float64(2) || pre["trigger"] != "auto" || pre["chatId"] != "c1" {
		t.Errorf("PreCompact: %v", pre)
	}
	if n, _ := post["estimatedTokensAfter"].(float64); n <= 0 || n >= pre["estimatedTokensBefore"].(float64)+4000 {
		t.Errorf("PostCompact: %v (before %v)", post, pre)
	}
	reqs := f.srv.Requests()
	if len(reqs) != 4 || !strings.Contains(fmt.Sprint(reqs[3].Messages[1]["content"]), "the user sent two long messages") {
		t.Errorf("the third turn's request does not carry the summary: %d requests", len(reqs))
	}
}
