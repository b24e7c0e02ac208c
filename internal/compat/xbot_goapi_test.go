package compat

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/hearth-agent/hearth/internal/app"
	"github.com/hearth-agent/hearth/internal/compat/testdata/xbot_goapi/board"
	"github.com/hearth-agent/hearth/internal/compat/testdata/xbot_goapi/brokengate"
	"github.com/hearth-agent/hearth/internal/compat/testdata/xbot_goapi/gatekeeper"
	"github.com/hearth-agent/hearth/internal/compat/testdata/xbot_goapi/gitwatch"
	"github.com/hearth-agent/hearth/internal/compat/testdata/xbot_goapi/greeter"
	"github.com/hearth-agent/hearth/internal/compat/testdata/xbot_goapi/seedtools"
	"github.com/hearth-agent/hearth/internal/kernel"
	"github.com/hearth-agent/hearth/internal/policy"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/llmtest"
	"github.com/hearth-agent/hearth/sdk/xbot"
)

// xbotEnv is a Hearth (app.Open, scripted model) with the xbot test
// plugins compiled in: greeter (hello-world's pattern), gitwatch
// (git-pr-status's), gate (PreToolUse and UserPromptSubmit hooks) and sh,
// a plain Hearth plugin whose tool Shell answers like git.
type xbotEnv struct {
	a       *app.App
	llm     *llmtest.Server
	log     *lockedBuffer
	greeter *greeter.Greeter
	greetP  sdk.Plugin
	watch   *gitwatch.Watch
	watchP  sdk.Plugin
	asked   []string // approval reasons
	mu      sync.Mutex
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// shPlugin has one tool, Shell, that answers "git status" like git.
type shPlugin struct{}

func (shPlugin) Name() string { return "sh" }
func (shPlugin) Stop() error  { return nil }
func (shPlugin) Start(s *sdk.PluginSDK) error {
	return sdk.AddTool(s, sdk.ToolDef{Name: "Shell", Description: "Run a command.", Effect: sdk.EffectRead},
		func(_ context.Context, _ *sdk.ToolContext, in struct {
			Command string `json:"command"`
		}) (string, error) {
			return "On branch feature/x\nnothing to commit", nil
		})
}

func newXbotEnv(t *testing.T, replies ...llmtest.Reply) *xbotEnv {
	t.Helper()
	e := &xbotEnv{llm: llmtest.NewServer(t, replies...), log: &lockedBuffer{}, greeter: greeter.New(), watch: &gitwatch.Watch{}}
	env := map[string]string{"OPENAI_BASE_URL": e.llm.URL, "HEARTH_MODEL": "test-model", "OPENAI_API_KEY": "sk-test-123456789"}
	a, err := app.Open(context.Background(), &app.Options{DataDir: t.TempDir(), LogTo: e.log,
		Getenv: func(k string) string { return env[k] }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	e.a = a
	e.greetP = e.load(t, "greeter", e.greeter)
	e.watchP = e.load(t, "gitwatch", e.watch)
	e.load(t, "gate", gatekeeper.Gate{})
	if err := a.Kernel.LoadPlugin("sh", func(string, map[string]any) (sdk.Plugin, error) { return shPlugin{}, nil }, nil); err != nil {
		t.Fatal(err)
	}
	if err := a.Kernel.LoadPlugin("seed", seedtools.New, nil); err != nil {
		t.Fatal(err)
	}
	return e
}

// load compiles an xbot plugin in with xbot.Adapt.
func (e *xbotEnv) load(t *testing.T, name string, p xbot.Plugin) sdk.Plugin {
	t.Helper()
	hp, err := xbot.Adapt(p)(name, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.a.Kernel.LoadPlugin(name, func(string, map[string]any) (sdk.Plugin, error) { return hp, nil }, nil); err != nil {
		t.Fatalf("loading %s: %v", name, err)
	}
	return hp
}

// ask sends text on the terminal, chat c1, approving what asks.
func (e *xbotEnv) ask(t *testing.T, text string) kernel.Outcome {
	t.Helper()
	return e.askOn(t, "terminal", text, nil)
}

// askOn sends text on channel, chat c1, approving what asks; onEvent
// receives the turn's events.
func (e *xbotEnv) askOn(t *testing.T, channel, text string, onEvent func(kernel.Event)) kernel.Outcome {
	t.Helper()
	return e.a.Kernel.Ask(context.Background(), kernel.Input{
		Injection: sdk.Injection{Channel: channel, ChatID: "c1", Text: text},
		OnEvent:   onEvent,
		Approver: func(_ context.Context, r *policy.ApprovalRequest) (policy.Answer, error) {
			e.mu.Lock()
			e.asked = append(e.asked, r.Reason)
			e.mu.Unlock()
			return policy.AllowOnce, nil
		},
	})
}

// toolMessages returns the tool results the model was sent, in order.
func (e *xbotEnv) toolMessages() []string {
	var out []string
	reqs := e.llm.Requests()
	if len(reqs) == 0 {
		return nil
	}
	for _, m := range reqs[len(reqs)-1].Messages {
		if m["role"] == "tool" {
			out = append(out, fmt.Sprint(m["content"]))
		}
	}
	return out
}

func (e *xbotEnv) stored(t *testing.T, plugin, key string) string {
	t.Helper()
	var v string
	if _, err := e.a.Settings.KV(plugin).Get(context.Background(), "xbot.storage/"+key, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func call(name, args string) llmtest.Reply {
	return llmtest.Reply{ToolCalls: []llmtest.Call{{Name: name, Arguments: args}}}
}

// xbotRow is one row of the xbot Go API compatibility table: a symbol or
// pattern of xbot's plugin package, the test plugin using it, and what is
// checked, run through Hearth.
type xbotRow struct {
	symbol, plugin, checks string
	run                    func(t *testing.T)
}

func TestXbotGoAPI(t *testing.T) {
	rows := []xbotRow{
		{"PluginManifest, Activate, Adapt", "greeter", "the plugin loads; its tools reach the model under its Hearth name", func(t *testing.T) {
			e := newXbotEnv(t, llmtest.Reply{Text: "hi"})
			e.ask(t, "hello")
			names := strings.Join(e.llm.Requests()[0].ToolNames(), " ")
			for _, n := range []string{"greeter__greet", "greeter__ping", "greeter__whereami", "sh__Shell"} {
				if !strings.Contains(names, n) {
					t.Errorf("tool %s not offered: %s", n, names)
				}
			}
			if got := xbot.ContextOf(e.greetP).PluginID(); got != "test.greeter" {
				t.Errorf("PluginID %q", got)
			}
		}},
		{"ToolDef.Parameters ([]ToolParam)", "greeter whereami", "a parameter list becomes the tool's JSON Schema", func(t *testing.T) {
			e := newXbotEnv(t, llmtest.Reply{Text: "hi"})
			e.ask(t, "hello")
			for _, tool := range e.llm.Requests()[0].Tools {
				fn, _ := tool["function"].(map[string]any)
				if fn["name"] == "greeter__whereami" {
					if got := fmt.Sprint(fn["parameters"]); !strings.Contains(got, "verbose:map[description:more type:boolean]") {
						t.Errorf("schema %s", got)
					}
					return
				}
			}
			t.Error("greeter__whereami not offered")
		}},
		{"SimplePluginTool, BuildToolDef, ParseToolInputString, NewToolResult", "greeter greet", "the model's call runs and its result reaches the model", func(t *testing.T) {
			e := newXbotEnv(t, call("greeter__greet", `{"name":"Ada"}`), llmtest.Reply{Text: "done"})
			if out := e.ask(t, "greet Ada"); out.Err != nil || out.Text != "done" {
				t.Fatalf("outcome %+v", out)
			}
			if got := e.toolMessages(); len(got) != 1 || got[0] != "Hello, Ada!" {
				t.Errorf("tool results %q", got)
			}
		}},
		{"ToolResult.IsError (field), OnError", "greeter broken", "an IsError result is an error result; PostToolUseFailure sees it", func(t *testing.T) {
			e := newXbotEnv(t, call("greeter__broken", `{}`), llmtest.Reply{Text: "sorry"})
			e.ask(t, "break")
			if got := e.toolMessages(); len(got) != 1 || !strings.Contains(got[0], "disk on fire") {
				t.Errorf("tool results %q", got)
			}
			if got := e.stored(t, "greeter", "last_failure"); got != "broken: disk on fire" {
				t.Errorf("OnError saw %q", got)
			}
			if got := e.stored(t, "greeter", "post_calls"); got != "" {
				t.Errorf("PostToolUse ran for a failure: %q", got)
			}
		}},
		{"OnPostToolUse, HookPayload, HookResult, DecisionAllow, Storage()", "greeter", "the hook sees the registered tool name, input and output; Storage persists in the plugin's KV", func(t *testing.T) {
			e := newXbotEnv(t, call("greeter__greet", `{"name":"Ada"}`), call("sh__Shell", `{"command":"ls"}`), llmtest.Reply{Text: "done"})
			e.ask(t, "greet Ada")
			if got := e.stored(t, "greeter", "post_calls"); got != "2" {
				t.Errorf("post_calls %q, want 2 (greet and Shell)", got)
			}
			if got := e.stored(t, "greeter", "last_tool"); got != `Shell {"command":"ls"} -> On branch feature/x`+"\nnothing to commit" {
				t.Errorf("last_tool %q", got)
			}
			st := xbot.ContextOf(e.greetP).Storage()
			if v, ok := st.Get("post_calls"); !ok || v != "2" {
				t.Errorf("Storage().Get %q %v", v, ok)
			}
			if keys := st.Keys(); strings.Join(keys, ",") != "last_tool,post_calls" {
				t.Errorf("Keys %v", keys)
			}
		}},
		{"OnPreToolUse, DecisionDeny", "gate", "a denied call does not run; the model reads the hook's message", func(t *testing.T) {
			e := newXbotEnv(t, call("greeter__greet", `{"name":"Mallory"}`), llmtest.Reply{Text: "refused"})
			e.ask(t, "greet Mallory")
			if got := e.toolMessages(); len(got) != 1 || !strings.Contains(got[0], "Mallory is not greeted") {
				t.Errorf("tool results %q", got)
			}
			if got := e.stored(t, "greeter", "post_calls"); got != "" {
				t.Errorf("a denied call ran: post_calls %q", got)
			}
		}},
		{"DecisionAllow never overrides policy", "gate", "a ping the policy turned off stays refused though the hook allows it", func(t *testing.T) {
			e := newXbotEnv(t, call("greeter__ping", `{}`), llmtest.Reply{Text: "ok"})
			if err := e.a.Policy.SetOverride(context.Background(), "greeter__ping", sdk.ModeOff); err != nil {
				t.Fatal(err)
			}
			e.ask(t, "ping")
			if got := e.toolMessages(); len(got) != 1 || strings.Contains(got[0], "pong") {
				t.Errorf("tool results %q", got)
			}
		}},
		{"DecisionAsk", "gate", "an Ask makes the call need approval, with the hook's message", func(t *testing.T) {
			e := newXbotEnv(t, call("greeter__whereami", `{}`), llmtest.Reply{Text: "ok"})
			e.ask(t, "where")
			if len(e.asked) != 1 || !strings.Contains(e.asked[0], "location is private") {
				t.Errorf("approvals asked %q", e.asked)
			}
			if got := e.toolMessages(); len(got) != 1 || !strings.HasPrefix(got[0], "Call\n") {
				t.Errorf("approved call did not run: %q", got)
			}
		}},
		{"PluginToolV2.ExecuteWithContext, ToolCallContext.TenantID, FormatToolResult", "greeter whereami", "the call gets the turn's channel, chat, session and a stable tenant; the formatter's *ToolResult reaches the model", func(t *testing.T) {
			e := newXbotEnv(t, call("greeter__whereami", `{}`), llmtest.Reply{Text: "ok"})
			e.ask(t, "where")
			want := "Call\nchannel: terminal\nchat: c1\nsession: terminal/c1\ntenant: " + strconv.FormatInt(xbot.TenantOf("terminal", "c1"), 10)
			if got := e.toolMessages(); len(got) != 1 || got[0] != want {
				t.Errorf("tool results %q, want %q", got, want)
			}
			if xbot.TenantOf("terminal", "c1") <= 0 || xbot.TenantOf("terminal", "c1") == xbot.TenantOf("terminal", "c2") {
				t.Error("TenantOf is not positive and per chat")
			}
		}},
		{"EnrichContext", "greeter", "the enricher's text is in the system message under xbot's heading, fresh each turn", func(t *testing.T) {
			e := newXbotEnv(t, call("greeter__greet", `{}`), llmtest.Reply{Text: "ok"}, llmtest.Reply{Text: "again"})
			e.ask(t, "greet")
			e.ask(t, "again")
			reqs := e.llm.Requests()
			for i, want := range map[int]string{0: "served: 0", 2: "served: 1"} {
				sys := fmt.Sprint(reqs[i].Messages[0]["content"])
				if !strings.Contains(sys, "## greeter_status (test.greeter)\nGreeter active, tool calls served: ") || !strings.Contains(sys, want) {
					t.Errorf("request %d system message %q, want %q", i, sys, want)
				}
			}
		}},
		{"Logger(), Deactivate", "greeter, gitwatch", "Logger writes to the plugin's Hearth log with its fields; Deactivate runs at close", func(t *testing.T) {
			e := newXbotEnv(t)
			if !strings.Contains(e.log.String(), "gitwatch activated") {
				t.Errorf("Activate's log line missing:\n%s", e.log.String())
			}
			e.a.Close()
			if l := e.log.String(); !strings.Contains(l, "greeter: goodbye") || !strings.Contains(l, "served=0") {
				t.Errorf("Deactivate's log line missing:\n%s", l)
			}
		}},
		{"OnPostToolUse(\"Shell*\"), Extra[\"output\"], ContributeUI, UpdateWidget, WidgetSpan", "gitwatch", "a Shell call running git updates the widget with the branch from the output", func(t *testing.T) {
			e := newXbotEnv(t, call("greeter__ping", `{}`), call("sh__Shell", `{"command":"git status"}`), llmtest.Reply{Text: "ok"})
			e.ask(t, "status")
			spans, ok := xbot.ContextOf(e.watchP).RenderedWidget("branch")
			if !ok || len(spans) != 3 || spans[1].Text != "feature/x" || spans[1].Style != xbot.StyleAccent || spans[2].Text != " status" {
				t.Errorf("widget %+v %v", spans, ok)
			}
		}},
		{"ContributeUI, UpdateWidget, WidgetSpan -> web UI board", "board", "the rendered widgets are the web UI's (Manager.WebWidgets): spans joined as text, one success span a badge; Deactivate removes them", func(t *testing.T) {
			e := newXbotEnv(t)
			hp := e.load(t, "board", board.Board{})
			checkBoardWidgets(t, e.a.Plugins.WebWidgets(), "board")
			if err := hp.Stop(); err != nil {
				t.Fatal(err)
			}
			for _, w := range e.a.Plugins.WebWidgets() {
				if w.Plugin == "board" {
					t.Errorf("widget left after Deactivate: %+v", w)
				}
			}
		}},
		{"OnUserPrompt, DecisionDeny", "gate", "a denied prompt is answered with the hook's message and never reaches the model", func(t *testing.T) {
			e := newXbotEnv(t, llmtest.Reply{Text: "should not be asked"})
			if out := e.ask(t, "something forbidden"); out.Text != "not here" {
				t.Errorf("outcome %+v", out)
			}
			if n := len(e.llm.Requests()); n != 0 {
				t.Errorf("the model was asked %d times", n)
			}
		}},
		{"ToolFromFunc, ToolFromJSONFunc (seed)", "seedtools", "the raw input and the JSON-encoded value reach the model", func(t *testing.T) {
			e := newXbotEnv(t, llmtest.Reply{ToolCalls: []llmtest.Call{{Name: "seed__double", Arguments: `{"x":1}`}, {Name: "seed__weather", Arguments: `{"city":"杭州"}`}}},
				llmtest.Reply{Text: "ok"})
			e.ask(t, "go")
			if got := e.toolMessages(); len(got) != 2 || got[0] != `{"x":1}{"x":1}` || got[1] != `{"city":"杭州","temp":21}` {
				t.Errorf("tool results %q", got)
			}
		}},
		{"NewResultBuilder().Metadata (seed)", "seedtools server_info", "the model reads the content; the metadata reaches renderers (EventToolEnd) only", func(t *testing.T) {
			e := newXbotEnv(t, call("seed__server_info", `{}`), llmtest.Reply{Text: "ok"})
			var meta map[string]string
			e.askOn(t, "terminal", "status", func(ev kernel.Event) {
				if ev.Kind == kernel.EventToolEnd {
					meta = ev.Metadata
				}
			})
			if got := e.toolMessages(); len(got) != 1 || got[0] != "Server Info\nstatus: running" {
				t.Errorf("tool results %q", got)
			}
			if meta["kind"] != "server-info" {
				t.Errorf("EventToolEnd metadata %v", meta)
			}
		}},
		{"FormatListResult (seed)", "seedtools list", "a numbered list; an empty one says (no items)", func(t *testing.T) {
			e := newXbotEnv(t, llmtest.Reply{ToolCalls: []llmtest.Call{{Name: "seed__list", Arguments: `{"items":["alpha","beta"]}`}, {Name: "seed__list", Arguments: `{"items":[]}`}}},
				llmtest.Reply{Text: "ok"})
			e.ask(t, "list")
			if got := e.toolMessages(); len(got) != 2 || got[0] != "1. alpha\n2. beta" || got[1] != "(no items)" {
				t.Errorf("tool results %q", got)
			}
		}},
		{"PluginToolV2 as ExecuteV2 (seed), ToolCallContext", "seedtools who", "the seed's ExecuteV2 form gets the call's context", func(t *testing.T) {
			e := newXbotEnv(t, call("seed__who", `{}`), llmtest.Reply{Text: "ok"})
			e.ask(t, "who")
			if got := e.toolMessages(); len(got) != 1 || got[0] != "user  in terminal/c1" {
				t.Errorf("tool results %q", got)
			}
		}},
		{"RegisterForChannel (seed)", "seedtools web_only", "the tool is offered in the web channel's sessions only", func(t *testing.T) {
			e := newXbotEnv(t, llmtest.Reply{Text: "a"}, llmtest.Reply{Text: "b"})
			e.ask(t, "hi")
			e.askOn(t, "web", "hi", nil)
			reqs := e.llm.Requests()
			if strings.Contains(strings.Join(reqs[0].ToolNames(), " "), "seed__web_only") {
				t.Error("web_only offered on the terminal")
			}
			if !strings.Contains(strings.Join(reqs[1].ToolNames(), " "), "seed__web_only") {
				t.Errorf("web_only not offered on the web: %v", reqs[1].ToolNames())
			}
		}},
		{"OnUserPrompt failing (error, panic)", "brokengate", "the message is refused with a bilingual text naming the plugin and never reaches the model; the cause is logged", func(t *testing.T) {
			e := newXbotEnv(t, llmtest.Reply{Text: "should not be asked"})
			e.load(t, "broken", brokengate.Gate{})
			for _, text := range []string{"boom", "crash"} {
				out := e.ask(t, "please "+text)
				if !strings.Contains(out.Text, "plugin test.brokengate could not check this message") || !strings.Contains(out.Text, "插件 test.brokengate") {
					t.Errorf("%s: outcome %+v", text, out)
				}
			}
			if n := len(e.llm.Requests()); n != 0 {
				t.Errorf("the model was asked %d times", n)
			}
			if l := e.log.String(); !strings.Contains(l, "the word list is gone") || !strings.Contains(l, "index out of range in the word list") {
				t.Errorf("the causes are not logged:\n%s", l)
			}
		}},
		{"OnPostToolUse panicking, OnAgentStop failing", "brokengate", "the call's result and the answer still arrive; both failures are logged", func(t *testing.T) {
			e := newXbotEnv(t, call("greeter__greet", `{"name":"Ada"}`), llmtest.Reply{Text: "done"})
			e.load(t, "broken", brokengate.Gate{})
			if out := e.ask(t, "greet Ada"); out.Err != nil || out.Text != "done" {
				t.Fatalf("outcome %+v", out)
			}
			if got := e.toolMessages(); len(got) != 1 || got[0] != "Hello, Ada!" {
				t.Errorf("tool results %q", got)
			}
			if l := e.log.String(); !strings.Contains(l, "post hook bug") || !strings.Contains(l, "stop hook broken") {
				t.Errorf("the failures are not logged:\n%s", l)
			}
		}},
		{"Storage() bounds (MaxStorageKeyBytes, MaxStorageValueBytes, ErrStorageLimit)", "greeter", "a too long key or value is refused with ErrStorageLimit and nothing is stored", func(t *testing.T) {
			e := newXbotEnv(t)
			st := xbot.ContextOf(e.greetP).Storage()
			if err := st.Set(strings.Repeat("k", xbot.MaxStorageKeyBytes+1), "v"); !errors.Is(err, xbot.ErrStorageLimit) {
				t.Errorf("long key: %v", err)
			}
			if err := st.Set("big", strings.Repeat("v", xbot.MaxStorageValueBytes+1)); !errors.Is(err, xbot.ErrStorageLimit) {
				t.Errorf("long value: %v", err)
			}
			if got := e.stored(t, "greeter", "big"); got != "" || len(st.Keys()) != 0 {
				t.Errorf("stored %q, keys %v", got, st.Keys())
			}
		}},
		{"OnSessionStart (refused)", "inline", "an event Hearth lacks is refused with ErrNotSupported, so Activate fails loudly", func(t *testing.T) {
			e := newXbotEnv(t)
			err := e.a.Kernel.LoadPlugin("session", xbot.Adapt(sessionPlugin{}), nil)
			if !errors.Is(err, xbot.ErrNotSupported) {
				t.Errorf("LoadPlugin: %v", err)
			}
		}},
	}
	for _, r := range rows {
		t.Run(r.symbol, func(t *testing.T) {
			t.Logf("%s | %s | %s", r.symbol, r.plugin, r.checks)
			r.run(t)
		})
	}
}

// sessionPlugin subscribes to SessionStart.
type sessionPlugin struct{}

func (sessionPlugin) Manifest() xbot.PluginManifest { return xbot.PluginManifest{ID: "s"} }
func (sessionPlugin) Activate(ctx xbot.PluginContext) error {
	return ctx.OnSessionStart(func(context.Context, *xbot.HookPayload) (*xbot.HookResult, error) { return nil, nil })
}
func (sessionPlugin) Deactivate(xbot.PluginContext) error { return nil }
