package compat

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/internal/app"
	"github.com/hearth-agent/hearth/internal/kernel"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// TestXbotGoAPIChild runs the greeter and gatekeeper xbot test plugins as
// child processes (pluginrpc.Serve(xbot.Adapt(...)), built here with this
// Go) from a plugins folder: tools, the PostToolUse hook, Storage, the
// enricher and the PreToolUse deny work over the protocol as compiled in.
func TestXbotGoAPIChild(t *testing.T) {
	dir := t.TempDir()
	bin := buildXbotChild(t)
	writeXbotChildren(t, dir, map[string]string{
		"greeter": `{"id":"greeter","command":["` + bin + `"],"capabilities":["kv"]}`,
		"gate":    `{"id":"gate","command":["` + bin + `","gate"],"decisionHook":true}`,
	})
	srv := llmtest.NewServer(t, llmtest.Reply{ToolCalls: []llmtest.Call{{Name: "greeter__greet", Arguments: `{"name":"Ada"}`},
		{Name: "greeter__greet", Arguments: `{"name":"Mallory"}`}}}, llmtest.Reply{Text: "done"})
	env := map[string]string{"OPENAI_BASE_URL": srv.URL, "HEARTH_MODEL": "test-model", "OPENAI_API_KEY": "sk-test-123456789"}
	a, err := app.Open(context.Background(), &app.Options{DataDir: dir, Plugins: app.PluginsWait,
		Getenv: func(k string) string { return env[k] }})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	out := a.Kernel.Ask(context.Background(), kernel.Input{Injection: sdk.Injection{Channel: "terminal", ChatID: "c1", Text: "greet Ada"}})
	if out.Err != nil || out.Text != "done" {
		t.Fatalf("outcome %+v", out)
	}
	reqs := srv.Requests()
	if sys := fmt.Sprint(reqs[0].Messages[0]["content"]); !strings.Contains(sys, "## greeter_status (test.greeter)\nGreeter active, tool calls served: 0") {
		t.Errorf("enricher missing from the system message: %q", sys)
	}
	var tools []string
	for _, m := range reqs[1].Messages {
		if m["role"] == "tool" {
			tools = append(tools, fmt.Sprint(m["content"]))
		}
	}
	if len(tools) != 2 || tools[0] != "Hello, Ada!" || !strings.Contains(tools[1], "Mallory is not greeted") {
		t.Errorf("tool results %q", tools)
	}
	var last string
	if _, err := a.Settings.KV("greeter").Get(context.Background(), "xbot.storage/last_tool", &last); err != nil || last != `greet {"name":"Ada"} -> Hello, Ada!` {
		t.Errorf("the hook's Storage write: %q, %v", last, err)
	}
}

// buildXbotChild builds the xbot test plugins' command with this Go.
func buildXbotChild(t *testing.T) string {
	t.Helper()
	goBin := filepath.Join(os.Getenv("GOROOT"), "bin", "go")
	if _, err := os.Stat(goBin); err != nil {
		goBin = "go"
	}
	bin := filepath.Join(t.TempDir(), "xbotchild")
	if out, err := exec.Command(goBin, "build", "-o", bin, "./testdata/xbot_goapi/cmd/greeter").CombinedOutput(); err != nil {
		t.Fatalf("building the child: %v\n%s", err, out)
	}
	return bin
}

// writeXbotChildren writes a plugins folder under dir: id -> plugin.json.
func writeXbotChildren(t *testing.T, dir string, manifests map[string]string) {
	t.Helper()
	for id, manifest := range manifests {
		pdir := filepath.Join(dir, "plugins", id)
		if err := os.MkdirAll(pdir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(pdir, "plugin.json"), []byte(manifest), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// TestXbotGoAPIChildFailsClosed runs the broken gate as a child process:
// a UserPromptSubmit hook that errs or panics in the child refuses the
// message over the protocol as compiled in, and a PostToolUse panic and
// an AgentStop error leave the turn's answer as it was.
func TestXbotGoAPIChildFailsClosed(t *testing.T) {
	dir := t.TempDir()
	bin := buildXbotChild(t)
	writeXbotChildren(t, dir, map[string]string{
		"broken":  `{"id":"broken","command":["` + bin + `","broken"]}`,
		"greeter": `{"id":"greeter","command":["` + bin + `"],"capabilities":["kv"]}`,
	})
	srv := llmtest.NewServer(t, llmtest.Reply{ToolCalls: []llmtest.Call{{Name: "greeter__greet", Arguments: `{"name":"Ada"}`}}}, llmtest.Reply{Text: "done"})
	env := map[string]string{"OPENAI_BASE_URL": srv.URL, "HEARTH_MODEL": "test-model", "OPENAI_API_KEY": "sk-test-123456789"}
	a, err := app.Open(context.Background(), &app.Options{DataDir: dir, Plugins: app.PluginsWait,
		Getenv: func(k string) string { return env[k] }})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	ask := func(text string) kernel.Outcome {
		return a.Kernel.Ask(context.Background(), kernel.Input{Injection: sdk.Injection{Channel: "terminal", ChatID: "c1", Text: text}})
	}
	for _, text := range []string{"boom", "crash"} {
		out := ask("please " + text)
		if !strings.Contains(out.Text, "plugin test.brokengate could not check this message") || !strings.Contains(out.Text, "插件 test.brokengate") {
			t.Errorf("%s: outcome %+v", text, out)
		}
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("the model was asked %d times past a failed prompt hook", n)
	}
	if out := ask("greet Ada"); out.Err != nil || out.Text != "done" {
		t.Errorf("outcome past failing after-hooks %+v", out)
	}
	// The child's process ends in the hook: Hearth cannot run it, and the
	// message is refused at the host (a guard stage handler).
	if out := ask("please die"); !strings.Contains(out.Text, "The plugin broken could not check this message") {
		t.Errorf("die: outcome %+v", out)
	}
	if n := len(srv.Requests()); n != 2 {
		t.Fatalf("the model was asked %d times, want 2 (greet Ada only)", n)
	}
}
