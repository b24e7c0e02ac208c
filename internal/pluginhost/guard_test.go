//go:build unix

package pluginhost

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hearth-agent/hearth/internal/kernel"
	"github.com/hearth-agent/hearth/internal/policy"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/llmtest"
	"github.com/hearth-agent/hearth/sdk/wire"
)

// guardPlugin refuses calls whose item is "evil". While the file "hold"
// exists in its data directory its Start does not return, so its
// handshake does not finish.
type guardPlugin struct{ name string }

func newGuardPlugin(name string, _ map[string]any) (sdk.Plugin, error) {
	return &guardPlugin{name: name}, nil
}

func (p *guardPlugin) Name() string { return p.name }
func (p *guardPlugin) Stop() error  { return nil }

// waitHold returns once the file "hold" is not in the plugin's data
// directory. It runs in the plugin's process, which the test can signal
// only through files: it polls.
func waitHold(s *sdk.PluginSDK) {
	for {
		if _, err := os.Stat(filepath.Join(s.DataDir(), "hold")); err != nil {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (p *guardPlugin) Start(s *sdk.PluginSDK) error {
	waitHold(s)
	s.RegisterDecisionHook(func(_ context.Context, _ *sdk.ToolContext, _ string, args map[string]any) (sdk.HookDecision, error) {
		if args["item"] == "evil" {
			return sdk.HookDecision{Verdict: sdk.VerdictDeny, Reason: "evil is blocked"}, nil
		}
		return sdk.HookDecision{Verdict: sdk.VerdictAllow}, nil
	})
	return s.RegisterToolContext("crash", sdk.ToolDef{Effect: sdk.EffectRead}, func(context.Context, *sdk.ToolContext, map[string]any) (any, error) {
		os.Exit(3)
		return nil, nil
	})
}

// serveRawGuard speaks the protocol by hand: its decision hook answers
// args.hook and the ResolveEffect of its tool "move" answers args.effect,
// as raw JSON, whatever they are.
func serveRawGuard() {
	conn := wire.NewConn(os.Stdin, os.Stdout, slog.New(slog.NewJSONHandler(os.Stderr, nil)))
	answer := func(key string) wire.Handler {
		return func(_ context.Context, raw json.RawMessage) (any, error) {
			var p struct {
				Args map[string]string `json:"args"`
			}
			if err := json.Unmarshal(raw, &p); err != nil {
				return nil, err
			}
			if p.Args[key] == "" {
				return nil, nil // a result member that is null
			}
			return json.RawMessage(p.Args[key]), nil
		}
	}
	conn.Handle(wire.MethodInitialize, func(ctx context.Context, _ json.RawMessage) (any, error) {
		if err := conn.Call(ctx, wire.MethodHooksRegister, wire.HookRegistration{ID: 1}, nil); err != nil {
			return nil, err
		}
		def := wire.ToolDef{ToolDef: sdk.ToolDef{Name: "move", Effect: sdk.EffectWrite}, HasResolveEffect: true}
		if err := conn.Call(ctx, wire.MethodToolsRegister, def, nil); err != nil {
			return nil, err
		}
		// Member names match exactly on the host as in the child: this
		// registers no tool "shadow" (and is refused: a tool needs a name).
		_ = conn.Call(ctx, wire.MethodToolsRegister, json.RawMessage(`{"Name":"shadow","effect":"read"}`), nil)
		return wire.InitializeResult{ProtocolVersion: wire.ProtocolVersion, Name: "rawguard", AutoRestart: true}, nil
	})
	conn.Handle(wire.MethodHookDecide, answer("hook"))
	conn.Handle(wire.MethodResolveEffect, answer("effect"))
	conn.Handle(wire.MethodPing, func(context.Context, json.RawMessage) (any, error) { return "pong", nil })
	conn.Run()
	os.Exit(0)
}

// shop registers a compiled-in read tool that guards are asked about.
func (f *fixture) shop(t *testing.T) {
	t.Helper()
	err := f.k.RegisterTool("shop", sdk.ToolDef{Name: "buy", Effect: sdk.EffectRead},
		func(context.Context, *sdk.ToolContext, map[string]any, json.RawMessage) (any, error) {
			return "bought", nil
		})
	if err != nil {
		t.Fatal(err)
	}
}

// authorize asks the policy engine about an agent's call by the owner.
func (f *fixture) authorize(t *testing.T, tool, args string) policy.Result {
	t.Helper()
	tl, ok := f.k.Tools().Lookup(tool)
	if !ok {
		t.Fatalf("no tool %s", tool)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(args), &m); err != nil {
		t.Fatal(err)
	}
	return f.eng.Authorize(context.Background(), &policy.Call{Tool: tl, Args: m, Raw: json.RawMessage(args),
		TC:        &sdk.ToolContext{PluginID: tl.Plugin, Tool: tl.Local, Actor: sdk.ActorAgent, Turn: &sdk.TurnInfo{}},
		Requester: policy.Requester{Channel: "test"}})
}

func wantRefused(t *testing.T, r policy.Result, by, why string) {
	t.Helper()
	if r.Allowed || r.DecidedBy != by || !strings.Contains(r.Reason, why) {
		t.Fatalf("want refused by %s with %q, got %+v", by, why, r)
	}
}

func wantAllowed(t *testing.T, r policy.Result) {
	t.Helper()
	if !r.Allowed {
		t.Fatalf("want allowed, got %+v", r)
	}
}

// A guard that crashes keeps refusing, and refuses everything, until its
// process is back; then its hook decides again.
func TestGuardCrashKeepsRefusing(t *testing.T) {
	f := newFixture(t)
	f.eng.HookTimeout = 2 * time.Second
	f.shop(t)
	p := f.start(t, "guard", "guard")
	ready(t, p)
	wantRefused(t, f.authorize(t, "shop__buy", `{"item":"evil"}`), "hook:guard", "evil is blocked")
	wantAllowed(t, f.authorize(t, "shop__buy", `{"item":"book"}`))

	// Crash it, and hold its next handshake.
	hold := filepath.Join(f.data, "plugin_data", "guard", "hold")
	if err := os.WriteFile(hold, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	f.call("guard__crash", `{}`)
	waitStatus(t, p, "crashed", func(s Status) bool { return s.Restarts >= 1 })
	wantRefused(t, f.authorize(t, "shop__buy", `{"item":"evil"}`), "hook:guard", "not answering")
	wantRefused(t, f.authorize(t, "shop__buy", `{"item":"book"}`), "hook:guard", "not answering")

	// Back: its hook decides again.
	os.Remove(hold)
	ready(t, p)
	wantRefused(t, f.authorize(t, "shop__buy", `{"item":"evil"}`), "hook:guard", "evil is blocked")
	wantAllowed(t, f.authorize(t, "shop__buy", `{"item":"book"}`))

	// Stopping it on purpose withdraws the hook.
	p.Stop()
	wantAllowed(t, f.authorize(t, "shop__buy", `{"item":"evil"}`))
}

// A guard guards from Start: a call made while its first handshake has not
// finished is held and refused, never allowed, whether or not plugin.json
// declares the hook; one that waits long enough is decided by the hook.
func TestGuardSlowHandshakeRefuses(t *testing.T) {
	for _, declared := range []bool{true, false} {
		t.Run(fmt.Sprintf("declared=%v", declared), func(t *testing.T) {
			f := newFixture(t)
			f.eng.HookTimeout = 200 * time.Millisecond
			f.shop(t)
			hold := filepath.Join(f.data, "plugin_data", "guard", "hold")
			if err := os.MkdirAll(filepath.Dir(hold), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(hold, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			dir := pluginDir(t, "guard", "guard")
			m, err := LoadManifest(dir)
			if err != nil {
				t.Fatal(err)
			}
			m.DecisionHook = declared
			writeManifest(t, dir, m)
			p, err := Start(dir, &f.opts)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(p.Stop)
			wantRefused(t, f.authorize(t, "shop__buy", `{"item":"book"}`), "hook:guard", "it is starting")

			// A call that waits for the guard is decided by it once it is ready.
			f.eng.HookTimeout = time.Minute
			held := make(chan policy.Result, 1)
			go func() { held <- f.authorize(t, "shop__buy", `{"item":"evil"}`) }()
			os.Remove(hold)
			wantRefused(t, <-held, "hook:guard", "evil is blocked")
			ready(t, p)
			wantAllowed(t, f.authorize(t, "shop__buy", `{"item":"book"}`))
		})
	}
}

// A plugin that fails before its first handshake and declares no hook
// does not hold calls up: it never said it guards them.
func TestFailedStartDoesNotGuard(t *testing.T) {
	f := newFixture(t)
	f.opts.BackoffMin, f.opts.BackoffMax = time.Hour, time.Hour
	f.shop(t)
	p := f.start(t, "broken", "crash-start")
	waitStatus(t, p, "failed to start", func(s Status) bool { return s.State == Backoff })
	wantAllowed(t, f.authorize(t, "shop__buy", `{"item":"book"}`))
}

// Over the wire a hook's or a resolver's answer that is not a decision
// refuses: null, a bare string, an empty or unknown verdict or effect.
func TestGuardGarbageAnswersRefuse(t *testing.T) {
	f := newFixture(t)
	f.shop(t)
	p := f.start(t, "rawguard", "rawguard")
	ready(t, p)
	if _, ok := f.k.Tools().Lookup("rawguard__shadow"); ok {
		t.Fatal(`a tool registered as {"Name":"shadow"}: the host matched a member name by case`)
	}
	args := func(hook, effect string) string {
		b, _ := json.Marshal(map[string]string{"hook": hook, "effect": effect})
		return string(b)
	}
	wantAllowed(t, f.authorize(t, "shop__buy", args(`{"verdict":"allow"}`, "")))
	for _, hook := range []string{"", "null", `"allow"`, `{}`, `{"verdict":""}`, `{"verdict":"maybe"}`, `[{"verdict":"allow"}]`, `{"verdict":`} {
		wantRefused(t, f.authorize(t, "shop__buy", args(hook, "")), "hook:rawguard", "decision hook of plugin")
	}
	allow := `{"verdict":"allow"}`
	wantAllowed(t, f.authorize(t, "rawguard__move", args(allow, `{"effect":"read"}`)))
	for _, effect := range []string{"", "null", `"read"`, `{}`, `{"effect":""}`, `{"effect":"teleport"}`, `{"target":{"label":"x"}}`} {
		t.Run(strconv.Quote(effect), func(t *testing.T) {
			r := f.authorize(t, "rawguard__move", args(allow, effect))
			if r.Allowed || r.Decision.Rule != "resolve-effect" {
				t.Errorf("effect %s: want refused by resolve-effect, got %+v", effect, r)
			}
		})
	}
}

// A guard reloaded by the manager keeps refusing until the new process is
// back, and disabling it withdraws its hook.
func TestGuardReloadKeepsRefusing(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	f.eng.HookTimeout = 200 * time.Millisecond
	f.shop(t)
	st := openStore(t, t.TempDir())
	plugins := t.TempDir()
	m := NewManager(plugins, st, &f.opts)
	defer m.Close()
	writePlugin(t, filepath.Join(plugins, "guard"), "guard", "guard")
	if err := m.Scan(ctx); err != nil {
		t.Fatal(err)
	}
	m.WaitReady(ctx)
	wantRefused(t, f.authorize(t, "shop__buy", `{"item":"evil"}`), "hook:guard", "evil is blocked")

	hold := filepath.Join(f.data, "plugin_data", "guard", "hold")
	if err := os.WriteFile(hold, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := m.Reload(ctx, "guard"); err != nil {
		t.Fatal(err)
	}
	wantRefused(t, f.authorize(t, "shop__buy", `{"item":"book"}`), "hook:guard", "not answering")
	os.Remove(hold)
	m.WaitReady(ctx)
	wantAllowed(t, f.authorize(t, "shop__buy", `{"item":"book"}`))
	wantRefused(t, f.authorize(t, "shop__buy", `{"item":"evil"}`), "hook:guard", "evil is blocked")

	if err := st.SetPluginEnabled(ctx, "guard", false); err != nil {
		t.Fatal(err)
	}
	if err := m.Scan(ctx); err != nil {
		t.Fatal(err)
	}
	wantAllowed(t, f.authorize(t, "shop__buy", `{"item":"evil"}`))
}

// stageGuardPlugin refuses calls whose item is "evil" the HomeAgent way:
// a before_toolcall stage handler that sets Deny. Like guardPlugin, it
// does not finish its Start while the file "hold" exists.
type stageGuardPlugin struct{ guardPlugin }

func newStageGuardPlugin(name string, _ map[string]any) (sdk.Plugin, error) {
	return &stageGuardPlugin{guardPlugin{name: name}}, nil
}

func (p *stageGuardPlugin) Start(s *sdk.PluginSDK) error {
	waitHold(s)
	s.RegisterStage(sdk.StageBeforeToolcall, func(sc *sdk.StageContext) error {
		if len(sc.ToolCalls) == 1 && sc.ToolCalls[0].Arguments["item"] == "evil" {
			sc.ToolCalls[0].Deny = "evil is blocked"
		}
		return nil
	})
	return s.RegisterToolContext("crash", sdk.ToolDef{Effect: sdk.EffectRead}, func(context.Context, *sdk.ToolContext, map[string]any) (any, error) {
		os.Exit(3)
		return nil, nil
	})
}

// A child's before_toolcall handler guards like a decision hook: while the
// child is down, calls are refused, not run.
func TestStageGuardCrashKeepsRefusing(t *testing.T) {
	buy := func(id, item string) llmtest.Reply {
		return llmtest.Reply{ToolCalls: []llmtest.Call{{ID: id, Name: "shop__buy", Arguments: `{"item":"` + item + `"}`}}}
	}
	f := newFixture(t, buy("evil", "evil"), llmtest.Reply{Text: "ok"}, buy("book", "book"), llmtest.Reply{Text: "ok"})
	f.opts.BackoffMin, f.opts.BackoffMax = time.Hour, time.Hour // stays down
	f.eng.HookTimeout = 200 * time.Millisecond
	f.shop(t)
	p := f.start(t, "stageguard", "stageguard")
	ready(t, p)
	result := func(req int, id string) string {
		for _, m := range f.srv.Requests()[req].Messages {
			if m["tool_call_id"] == id {
				return m["content"].(string)
			}
		}
		return ""
	}
	ask := func() {
		if out := f.k.Ask(context.Background(), kernel.Input{Injection: sdk.Injection{Channel: "test", Text: "buy"}}); out.Err != nil {
			t.Fatal(out.Err)
		}
	}
	ask()
	if got := result(1, "evil"); !strings.Contains(got, "evil is blocked") {
		t.Fatalf("evil: %s", got)
	}
	f.call("stageguard__crash", `{}`)
	waitStatus(t, p, "down", func(s Status) bool { return s.State == Backoff })
	ask()
	if got := result(3, "book"); !strings.Contains(got, "not answering") {
		t.Fatalf("while the guard is down: %s", got)
	}
}
