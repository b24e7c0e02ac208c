//go:build unix

package pluginhost

import (
	"context"
	"encoding/json"
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

func TestXbotStdioPluginUnmodified(t *testing.T) {
	needProgram(t, "python3")
	f := newFixture(t,
		llmtest.Reply{ToolCalls: []llmtest.Call{
			{ID: "g", Name: "com-example-python-hello__python_greet", Arguments: `{"name":"Bob"}`},
			{ID: "d", Name: "com-example-python-hello__dangerous_delete", Arguments: `{}`},
		}},
		llmtest.Reply{Text: "done"},
	)
	dir, _ := filepath.Abs("testdata/xbot-hello")
	p, err := Start(dir, &f.opts)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop()
	ready(t, p)

	out := f.k.Ask(context.Background(), kernel.Input{Injection: sdk.Injection{Channel: "test", Text: "greet Bob, then delete everything"}})
	if out.Err != nil || out.Text != "done" {
		t.Fatalf("%+v", out)
	}
	reqs := f.srv.Requests()
	if sys := reqs[0].Messages[0]["content"].(string); !strings.Contains(sys, "## weather_context (com.example.python-hello)\nThe user lives in Beijing") {
		t.Fatalf("enricher text not in the system prompt: %q", sys)
	}
	results := map[string]string{}
	for _, m := range reqs[1].Messages {
		if id, ok := m["tool_call_id"].(string); ok {
			results[id] = m["content"].(string)
		}
	}
	if results["g"] != `{"english": "Hello, Bob!", "chinese": "你好，Bob！"}` {
		t.Fatalf("greet: %q", results["g"])
	}
	if !strings.Contains(results["d"], "python-hello blocks dangerous tools") {
		t.Fatalf("PreToolUse hook did not deny: %q", results["d"])
	}

	// A call past its deadline does not kill the plugin; the late answer is
	// dropped and the next call gets its own answer.
	if got, isErr := f.call("com-example-python-hello__slow", `{"seconds": 3}`); !isErr || !strings.Contains(got, "timed out") {
		t.Fatalf("slow: %s", got)
	}
	if got, isErr := f.call("com-example-python-hello__python_greet", `{"name":"Ann"}`); isErr || !strings.Contains(got, "Hello, Ann!") {
		t.Fatalf("after a timeout: %s", got)
	}
	// An answer over xbot's line limit fails at once, saying so (review 2
	// of issue 8), and the plugin goes on.
	if got, isErr := f.call("com-example-python-hello__big", `{}`); !isErr || !strings.Contains(got, "larger than 1 MiB") {
		t.Fatalf("big: %.300s", got)
	}
	if !strings.Contains(f.logs.String(), "longer than the limit") {
		t.Fatal("the dropped line was not logged")
	}
	if got, isErr := f.call("com-example-python-hello__python_greet", `{"name":"Bo"}`); isErr || !strings.Contains(got, "Hello, Bo!") {
		t.Fatalf("after a big answer: %s", got)
	}
	if p.Status().Restarts != 0 {
		t.Fatal("the plugin was restarted for a slow call")
	}
	// Validation happens in Hearth before the plugin sees anything.
	if got, isErr := f.call("com-example-python-hello__python_greet", `{}`); !isErr || !strings.Contains(got, "name") {
		t.Fatalf("missing argument: %s", got)
	}

	// A crash is noticed and the plugin comes back.
	f.call("com-example-python-hello__crash", `{}`)
	waitStatus(t, p, "restarted", func(s Status) bool { return s.Restarts >= 1 })
	ready(t, p)
	if got, isErr := f.call("com-example-python-hello__python_greet", `{"name":"Cy"}`); isErr {
		t.Fatalf("after restart: %s", got)
	}
	if !strings.Contains(p.Status().LastError, "exit status 7") {
		t.Fatalf("last error %q", p.Status().LastError)
	}
}

func TestXbotManifestNames(t *testing.T) {
	m, err := ParseManifest("plugin.json", []byte(`{"id":"com.example.Python_Hello","runtime":"grpc","executable":"./bin/hello"}`))
	if err != nil {
		t.Fatal(err)
	}
	if m.PluginName() != "com-example-python-hello" || m.Command[0] != "./bin/hello" {
		t.Fatalf("%q %v", m.PluginName(), m.Command)
	}
	if _, err := ParseManifest("plugin.json", []byte(`{"id":"..","runtime":"stdio","entry":"x"}`)); err == nil {
		t.Fatal("a name with no letters accepted")
	}

}

// An xbot PreToolUse hook is a decision hook: while the plugin is down
// after a crash, the calls it would be asked about are refused, not run.
func TestXbotPreToolHookRefusesWhileDown(t *testing.T) {
	needProgram(t, "python3")
	f := newFixture(t)
	f.opts.BackoffMin, f.opts.BackoffMax = time.Hour, time.Hour // stays down
	f.eng.HookTimeout = 200 * time.Millisecond
	if err := f.k.RegisterTool("shop", sdk.ToolDef{Name: "dangerous_buy", Effect: sdk.EffectRead},
		func(context.Context, *sdk.ToolContext, map[string]any, json.RawMessage) (any, error) {
			return "bought", nil
		}); err != nil {
		t.Fatal(err)
	}
	dir, _ := filepath.Abs("testdata/xbot-hello")
	p, err := Start(dir, &f.opts)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop()
	ready(t, p)
	wantRefused(t, f.authorize(t, "shop__dangerous_buy", `{}`), "hook:com-example-python-hello", "python-hello blocks dangerous tools")

	f.call("com-example-python-hello__crash", `{}`)
	waitStatus(t, p, "crashed", func(s Status) bool { return s.State == Backoff })
	wantRefused(t, f.authorize(t, "shop__dangerous_buy", `{}`), "hook:com-example-python-hello", "not answering")
}

// xbotGuardPy is an xbot stdio plugin whose PreToolUse hook, registered
// with the matcher in $MATCHER, refuses every call it is asked about.
const xbotGuardPy = `import json, os, sys
for line in sys.stdin:
    req = json.loads(line)
    m = req.get("method")
    if m == "activate":
        print(json.dumps({"tools": [], "hooks": [{"event": "PreToolUse", "matcher": os.environ["MATCHER"]}]}), flush=True)
    elif m == "hook":
        print(json.dumps({"hookResult": {"decision": "deny", "message": "xbot guard says no"}}), flush=True)
    elif m == "deactivate":
        print("{}", flush=True)
        sys.exit(0)
    else:
        print(json.dumps({"result": "ok"}), flush=True)
`

// startXbotGuard starts the guard with the matcher; declare lists the
// hook in plugin.json's contributes.hooks too.
func startXbotGuard(t *testing.T, f *fixture, matcher string, declare bool) *Process {
	t.Helper()
	dir := t.TempDir()
	m := map[string]any{"id": "guard", "runtime": "stdio", "entry": "python3 guard.py", "timeout": "5s",
		"env": map[string]string{"MATCHER": matcher}}
	if declare {
		m["contributes"] = map[string]any{"hooks": []any{map[string]any{"event": "PreToolUse", "matcher": matcher}}}
	}
	b, _ := json.Marshal(m)
	if err := os.WriteFile(filepath.Join(dir, "plugin.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "guard.py"), []byte(xbotGuardPy), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := Start(dir, &f.opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Stop)
	return p
}

// An xbot PreToolUse matcher that path.Match could not parse ("now|pay",
// "[") used to match nothing, so the guard was never asked and every call
// ran. Matchers take alternatives and regular expressions now, and one
// that is neither fails the plugin's activation while its guard refuses
// every call.
func TestXbotPreToolMatchersFailClosed(t *testing.T) {
	needProgram(t, "python3")
	for _, tc := range []struct {
		matcher string
		refused []string // by the hook's own answer
		allowed []string
	}{
		{"now", []string{"time__now"}, []string{"shop__pay", "shop__list"}},
		{"now|pay", []string{"time__now", "shop__pay"}, []string{"shop__list"}},
		{"time__now|pay", []string{"time__now", "shop__pay"}, []string{"shop__list"}},
		{"^time__|li.t", []string{"time__now", "shop__list"}, []string{"shop__pay"}},
		{"*a*", []string{"shop__pay"}, []string{"time__now", "shop__list"}},
	} {
		t.Run(tc.matcher, func(t *testing.T) {
			f := newFixture(t)
			registerGuarded(t, f)
			p := startXbotGuard(t, f, tc.matcher, true)
			ready(t, p)
			for _, tool := range tc.refused {
				wantRefused(t, f.authorize(t, tool, `{}`), "hook:guard", "xbot guard says no")
			}
			for _, tool := range tc.allowed {
				wantAllowed(t, f.authorize(t, tool, `{}`))
			}
		})
	}
	for _, tc := range []struct {
		matcher string
		declare bool
	}{{"[", true}, {"[", false}, {"now||pay", true}, {"(?=now)", false}} {
		t.Run(fmt.Sprintf("%s declared=%v", tc.matcher, tc.declare), func(t *testing.T) {
			f := newFixture(t)
			registerGuarded(t, f)
			p := startXbotGuard(t, f, tc.matcher, tc.declare)
			waitStatus(t, p, "failed", func(s Status) bool { return s.State == Failed })
			if st := p.Status(); !strings.Contains(st.LastError, fmt.Sprintf("PreToolUse hook: matcher %q", tc.matcher)) || st.Restarts != 0 {
				t.Fatalf("status %+v", st)
			}
			for _, tool := range []string{"time__now", "shop__pay", "shop__list"} {
				wantRefused(t, f.authorize(t, tool, `{}`), "hook:guard", "matcher")
			}
		})
	}
}

// registerGuarded registers the tools the guard tests call.
func registerGuarded(t *testing.T, f *fixture) {
	t.Helper()
	for _, name := range []string{"time__now", "shop__pay", "shop__list"} {
		plugin, tool, _ := strings.Cut(name, "__")
		if err := f.k.RegisterTool(plugin, sdk.ToolDef{Name: tool, Effect: sdk.EffectRead},
			func(context.Context, *sdk.ToolContext, map[string]any, json.RawMessage) (any, error) {
				return "ran", nil
			}); err != nil {
			t.Fatal(err)
		}
	}
}
