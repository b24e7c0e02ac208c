//go:build unix

package compat

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hearth-agent/hearth/internal/app"
	"github.com/hearth-agent/hearth/internal/kernel"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// The xbot runtime's test plugins (Python and shell, shaped like xbot's
// own examples) live with the package that runs them,
// internal/pluginhost/testdata; this table runs them through a whole
// Hearth (app.Open, the plugins folder, a scripted model).
const xbotRuntimePlugins = "../pluginhost/testdata"

// rtEnv is a Hearth whose plugins folder holds one xbot test plugin.
type rtEnv struct {
	a   *app.App
	llm *llmtest.Server
	log *lockedBuffer
	dir string // the data directory
}

func newRuntimeEnv(t *testing.T, plugin string, replies ...llmtest.Reply) *rtEnv {
	t.Helper()
	for _, prog := range []string{"python3", "bash"} {
		if _, err := exec.LookPath(prog); err != nil {
			t.Fatalf("%s is needed: %v", prog, err)
		}
	}
	e := &rtEnv{llm: llmtest.NewServer(t, replies...), log: &lockedBuffer{}, dir: t.TempDir()}
	if err := os.CopyFS(filepath.Join(e.dir, "plugins", plugin), os.DirFS(filepath.Join(xbotRuntimePlugins, plugin))); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"OPENAI_BASE_URL": e.llm.URL, "HEARTH_MODEL": "test-model", "OPENAI_API_KEY": "sk-test-123456789"}
	a, err := app.Open(context.Background(), &app.Options{DataDir: e.dir, LogTo: e.log, LogLevel: slog.LevelDebug,
		Plugins: app.PluginsWait, Getenv: func(k string) string { return env[k] }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	e.a = a
	return e
}

// ask sends text on the terminal (the owner), chat c1.
func (e *rtEnv) ask(t *testing.T, text string) kernel.Outcome {
	t.Helper()
	return e.a.Kernel.Ask(context.Background(), kernel.Input{Injection: sdk.Injection{Channel: "terminal", ChatID: "c1", Text: text}})
}

// results maps the tool call ids of the model's last request to their
// results.
func (e *rtEnv) results() map[string]string {
	out := map[string]string{}
	reqs := e.llm.Requests()
	if len(reqs) == 0 {
		return out
	}
	for _, m := range reqs[len(reqs)-1].Messages {
		if id, ok := m["tool_call_id"].(string); ok {
			out[id] = m["content"].(string)
		}
	}
	return out
}

// hooks returns the hook requests the xbot-hooks plugin recorded.
func (e *rtEnv) hooks(t *testing.T) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(e.dir, "plugin_data", "com-example-py-hooks", "hooks.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}

// waitFor polls cond (what another process writes) with a generous bound.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("never: %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func tc(id, name, args string) llmtest.Call { return llmtest.Call{ID: id, Name: name, Arguments: args} }

// rtRow is one row of the xbot runtime table: a message, field or pattern
// of xbot's plugin protocols, the test plugin using it, what is checked.
type rtRow struct {
	symbol, plugin, checks string
	run                    func(t *testing.T)
}

func TestXbotRuntime(t *testing.T) {
	hooksTurn := func(t *testing.T) *rtEnv {
		e := newRuntimeEnv(t, "xbot-hooks",
			llmtest.Reply{ToolCalls: []llmtest.Call{
				tc("e", "com-example-py-hooks__python_echo", `{"text":"hi"}`),
				tc("x", "com-example-py-hooks__python_forbidden", `{}`),
			}},
			llmtest.Reply{Text: "done"})
		if out := e.ask(t, "echo"); out.Err != nil || out.Text != "done" {
			t.Fatalf("%+v", out)
		}
		return e
	}
	toolsOf := func(e *rtEnv, event string) []string {
		var out []string
		for _, h := range e.hooks(t) {
			if h["event"] == event {
				out = append(out, h["toolName"].(string))
			}
		}
		return out
	}
	rows := []rtRow{
		{"activate → tools (parameters list), execute_tool", "xbot-hooks", "the tool runs in the plugin and its result reaches the model", func(t *testing.T) {
			e := hooksTurn(t)
			if r := e.results()["e"]; !strings.Contains(r, "echo: hi") {
				t.Errorf("result %q", r)
			}
		}},
		{"hook PostToolUse, matcher python_*", "xbot-hooks", "the hook fires and is told the registered name python_echo", func(t *testing.T) {
			e := hooksTurn(t)
			if got := strings.Join(toolsOf(e, "PostToolUse"), ","); got != "python_echo" {
				t.Errorf("PostToolUse told %q", got)
			}
		}},
		{"hook PreToolUse, decision deny", "xbot-hooks", "the plugin's guard on python_* refuses python_forbidden", func(t *testing.T) {
			e := hooksTurn(t)
			if r := e.results()["x"]; !strings.Contains(r, "denied by its own plugin") {
				t.Errorf("result %q", r)
			}
		}},
		{"hooks UserPromptSubmit, AgentStop, SessionStart", "xbot-hooks", "each fires once for the turn (SessionStart: the chat's first message)", func(t *testing.T) {
			e := hooksTurn(t)
			for _, ev := range []string{"UserPromptSubmit", "AgentStop", "SessionStart"} {
				if n := len(toolsOf(e, ev)); n != 1 {
					t.Errorf("%s fired %d times", ev, n)
				}
			}
		}},
		{"hooks SessionEnd, SubAgentStart/Stop, CronFired, WebhookReceived", "xbot-hooks", "refused at load with a log line naming each; never sent", func(t *testing.T) {
			e := hooksTurn(t)
			for _, ev := range []string{"SessionEnd", "SubAgentStart", "SubAgentStop", "CronFired", "WebhookReceived"} {
				if !strings.Contains(e.log.String(), "event="+ev) {
					t.Errorf("no log line for %s", ev)
				}
				if n := len(toolsOf(e, ev)); n != 0 {
					t.Errorf("%s sent", ev)
				}
			}
		}},
		{"runtime script, contributes.ui triggers, XBOT_* variables", "xbot-script", "the script runs after a matching tool; its output is the widget's", func(t *testing.T) {
			e := newRuntimeEnv(t, "xbot-script", llmtest.Reply{ToolCalls: []llmtest.Call{tc("w", "files__write_file", `{"path":"a.txt"}`)}}, llmtest.Reply{Text: "ok"})
			if err := e.a.Kernel.RegisterTool("files", sdk.ToolDef{Name: "write_file", Effect: sdk.EffectRead},
				func(context.Context, *sdk.ToolContext, map[string]any, json.RawMessage) (any, error) {
					return "wrote", nil
				}); err != nil {
				t.Fatal(err)
			}
			if out := e.ask(t, "write"); out.Err != nil {
				t.Fatal(out.Err)
			}
			waitFor(t, "the widget shows the write", func() bool {
				w := e.a.Plugins.Widgets("file-note")
				return len(w) == 1 && strings.Contains(w[0].Text, "PostToolUse write_file wrote a.txt")
			})
		}},
		{"contributes.channelProvider, channel_config, send_inbound, channel_send", "xbot-echochan", "a person's message reaches the chat's session; the answer comes back with channel_send", func(t *testing.T) {
			e := newRuntimeEnv(t, "xbot-echochan", llmtest.Reply{Text: "answer"})
			var port []byte
			waitFor(t, "the plugin's HTTP port", func() bool {
				var err error
				port, err = os.ReadFile(filepath.Join(e.dir, "plugin_data", "com-example-py-echo-channel", "port"))
				return err == nil
			})
			base := "http://127.0.0.1:" + string(port)
			resp, err := http.Post(base+"/message?chat=room&user=bob", "text/plain", strings.NewReader("hello"))
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			resp, err = http.Get(base + "/history?n=1")
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if !strings.Contains(string(b), `"chat_id": "room", "content": "answer", "final": "true"`) {
				t.Errorf("delivered %s", b)
			}
			if owner, ok := e.a.Kernel.ChannelOwner("pyecho"); !ok || owner != "com-example-py-echo-channel" {
				t.Errorf("channel owner %q", owner)
			}
		}},
		{"channel_tools with per-tool channels", "xbot-echochan", "the tool runs in its channel (execute_tool RPC) and is refused elsewhere", func(t *testing.T) {
			e := newRuntimeEnv(t, "xbot-echochan", llmtest.Reply{ToolCalls: []llmtest.Call{tc("s", "com-example-py-echo-channel__pyecho_shout", `{"text":"x"}`)}}, llmtest.Reply{Text: "ok"})
			waitFor(t, "the channel tool", func() bool {
				_, ok := e.a.Kernel.Tools().Lookup("com-example-py-echo-channel__pyecho_shout")
				return ok
			})
			e.ask(t, "shout")
			if r := e.results()["s"]; !strings.Contains(r, "only for channel pyecho") {
				t.Errorf("on the terminal: %q", r)
			}
			tool, _ := e.a.Kernel.Tools().Lookup("com-example-py-echo-channel__pyecho_shout")
			if r := tool.Call(context.Background(), &sdk.ToolContext{Actor: sdk.ActorAgent, Channel: "pyecho"}, json.RawMessage(`{"text":"x"}`)); r.IsError || r.Content != "X!" {
				t.Errorf("in pyecho: %+v", r)
			}
		}},
		{"channel plugin that never answers activate; web_ui", "xbot-uichan", "runs at once as a channel; its web_ui badge is a web widget (xbot_webui_test.go)", func(t *testing.T) {
			e := newRuntimeEnv(t, "xbot-uichan")
			if _, ok := e.a.Kernel.ChannelOwner("uichan"); !ok {
				t.Error("channel uichan not registered")
			}
			waitFor(t, "web_ui shown", func() bool { return len(e.a.Plugins.WebWidgets()) == 1 })
		}},
	}
	for _, r := range rows {
		t.Run(r.symbol, func(t *testing.T) {
			t.Logf("plugin %s: %s", r.plugin, r.checks)
			r.run(t)
		})
	}
}
