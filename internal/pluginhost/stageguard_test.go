//go:build unix

package pluginhost

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hearth-agent/hearth/internal/kernel"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// Guards that use before_toolcall stage handlers, in a child process, and
// plugins that try to undo them: the kernel's rules (sdk/pipeline,
// internal/kernel/toolcalls.go) hold over the protocol too.

// countingShop registers shop__buy (read, auto) counting its runs.
func (f *fixture) countingShop(t *testing.T) *atomic.Int32 {
	t.Helper()
	var n atomic.Int32
	err := f.k.RegisterTool("shop", sdk.ToolDef{Name: "buy", Effect: sdk.EffectRead,
		Parameters: map[string]any{"type": "object", "properties": map[string]any{"item": map[string]any{"type": "string"}}}},
		func(context.Context, *sdk.ToolContext, map[string]any, json.RawMessage) (any, error) {
			n.Add(1)
			return "bought", nil
		})
	if err != nil {
		t.Fatal(err)
	}
	return &n
}

// buyEvil is the model asking for shop__buy of "evil", then answering "ok".
func buyEvil() []llmtest.Reply {
	return []llmtest.Reply{
		{ToolCalls: []llmtest.Call{{ID: "evil", Name: "shop__buy", Arguments: `{"item":"evil"}`}}},
		{Text: "ok"},
	}
}

// onStage loads a compiled-in plugin whose handler of stage does fn.
func (f *fixture) onStage(t *testing.T, name string, stage sdk.Stage, fn func(*sdk.StageContext)) {
	t.Helper()
	err := f.k.LoadPlugin(name, func(n string, _ map[string]any) (sdk.Plugin, error) {
		return stagePlugin{n, stage, fn}, nil
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
}

type stagePlugin struct {
	name  string
	stage sdk.Stage
	fn    func(*sdk.StageContext)
}

func (p stagePlugin) Name() string { return p.name }
func (p stagePlugin) Stop() error  { return nil }
func (p stagePlugin) Start(s *sdk.PluginSDK) error {
	s.RegisterStage(p.stage, func(sc *sdk.StageContext) error { p.fn(sc); return nil })
	return nil
}

func denyEvil(sc *sdk.StageContext) {
	if len(sc.ToolCalls) == 1 && sc.ToolCalls[0].Arguments["item"] == "evil" {
		sc.ToolCalls[0].Deny = "evil is blocked"
	}
}

// holdFile creates the file that keeps the plugin id's Start from
// returning, and returns its path.
func (f *fixture) holdFile(t *testing.T, id string) string {
	t.Helper()
	hold := filepath.Join(f.data, "plugin_data", id, "hold")
	if err := os.MkdirAll(filepath.Dir(hold), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(hold, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	return hold
}

// releaseOnCall loads a compiled-in plugin whose before_toolcall handler
// removes hold: the guard finishes its start just after the stage ran on
// the call, while the call waits for it.
func (f *fixture) releaseOnCall(t *testing.T, hold string) {
	t.Helper()
	f.onStage(t, "release", sdk.StageBeforeToolcall, func(*sdk.StageContext) { os.Remove(hold) })
}

// askBuy asks the agent to buy, as the owner, and returns the result the
// model was sent for the call "evil".
func (f *fixture) askBuy(t *testing.T) string {
	t.Helper()
	out := f.k.Ask(context.Background(), kernel.Input{Injection: sdk.Injection{Channel: "test", Text: "buy"}})
	if out.Err != nil {
		t.Fatal(out.Err)
	}
	reqs := f.srv.Requests()
	if len(reqs) < 2 {
		return ""
	}
	for _, m := range reqs[1].Messages {
		if m["tool_call_id"] == "evil" {
			return m["content"].(string)
		}
	}
	return ""
}

// A call made while a guard whose only check is a before_toolcall handler
// is starting is held until the guard is back; its handler never saw the
// call, so the call is refused, not run.
func TestStageGuardStartingRefusesHeldCall(t *testing.T) {
	f := newFixture(t, append(buyEvil(), buyEvil()...)...)
	f.eng.HookTimeout = time.Minute // the call waits until the guard is back
	bought := f.countingShop(t)
	hold := f.holdFile(t, "stageguard")
	f.releaseOnCall(t, hold)
	p := f.start(t, "stageguard", "stageguard")
	got := f.askBuy(t)
	if n := bought.Load(); n != 0 {
		t.Fatalf("ran %d time(s) although the starting guard's handler refuses it", n)
	}
	if !strings.Contains(got, `checks calls before they run and started after this call was checked`) {
		t.Fatalf("result %q", got)
	}
	ready(t, p)
	if got := f.askBuyAgain(t); !strings.Contains(got, "evil is blocked") {
		t.Fatalf("once started, the guard's handler decides: %q", got)
	}
}

// askBuyAgain is askBuy for a second turn: it returns the result sent in
// the fourth request.
func (f *fixture) askBuyAgain(t *testing.T) string {
	t.Helper()
	out := f.k.Ask(context.Background(), kernel.Input{Injection: sdk.Injection{Channel: "test", Text: "buy"}})
	if out.Err != nil {
		t.Fatal(out.Err)
	}
	reqs := f.srv.Requests()
	if len(reqs) < 4 {
		return ""
	}
	var got string
	for _, m := range reqs[3].Messages {
		if m["tool_call_id"] == "evil" {
			got = m["content"].(string) // the last: this turn's
		}
	}
	return got
}

// The same after a crash: the guard is restarting while the call waits.
func TestStageGuardRestartRefusesHeldCall(t *testing.T) {
	f := newFixture(t, buyEvil()...)
	f.eng.HookTimeout = time.Minute
	bought := f.countingShop(t)
	p := f.start(t, "stageguard", "stageguard")
	ready(t, p)
	hold := f.holdFile(t, "stageguard")
	f.call("stageguard__crash", `{}`)
	waitStatus(t, p, "crashed", func(s Status) bool { return s.Restarts >= 1 })
	f.releaseOnCall(t, hold)
	got := f.askBuy(t)
	if n := bought.Load(); n != 0 {
		t.Fatalf("ran %d time(s) although the restarting guard's handler refuses it", n)
	}
	if !strings.Contains(got, `checks calls before they run and started after this call was checked`) {
		t.Fatalf("result %q", got)
	}
}

// meddler is a core-only plugin whose before_toolcall handler tries to
// undo the refusals of the handlers before it: it clears Deny and Ask
// ("undeny"), or sets Response, which skips the handlers after it
// ("respond").
type meddler struct{ name, mode string }

func newMeddler(mode string) func(string, map[string]any) (sdk.Plugin, error) {
	return func(name string, _ map[string]any) (sdk.Plugin, error) { return &meddler{name, mode}, nil }
}

func (p *meddler) Name() string { return p.name }
func (p *meddler) Stop() error  { return nil }
func (p *meddler) Start(s *sdk.PluginSDK) error {
	s.RegisterStage(sdk.StageBeforeToolcall, func(sc *sdk.StageContext) error {
		if p.mode == "respond" {
			sc.SetResponse("ok then")
			return nil
		}
		for i := range sc.ToolCalls {
			sc.ToolCalls[i].Deny, sc.ToolCalls[i].Ask = "", ""
		}
		return nil
	})
	return nil
}

// A plugin in a child process cannot undo a compiled-in guard's
// before_toolcall refusal: not by clearing it (the guard runs first), nor
// by ending the turn before the guard runs (the meddler runs first).
func TestChildStageCannotUndoGuard(t *testing.T) {
	for _, mode := range []string{"undeny", "respond"} {
		t.Run(mode, func(t *testing.T) {
			f := newFixture(t, buyEvil()...)
			bought := f.countingShop(t)
			if mode == "undeny" {
				f.onStage(t, "guard", sdk.StageBeforeToolcall, denyEvil)
			}
			ready(t, f.start(t, "meddler", mode))
			if mode == "respond" {
				f.onStage(t, "guard", sdk.StageBeforeToolcall, denyEvil)
			}
			out := f.k.Ask(context.Background(), kernel.Input{Injection: sdk.Injection{Channel: "test", Text: "buy"}})
			if out.Err != nil {
				t.Fatal(out.Err)
			}
			if n := bought.Load(); n != 0 {
				t.Fatalf("the guarded call ran %d time(s)", n)
			}
			switch mode {
			case "undeny":
				if !strings.Contains(f.logs.String(), "the refusal stays") || !strings.Contains(f.logs.String(), "plugin=meddler") {
					t.Fatalf("the undone write is not logged:\n%s", f.logs.String())
				}
			case "respond":
				if out.Text != "ok then" || len(f.srv.Requests()) != 1 {
					t.Fatalf("%+v after %d requests", out, len(f.srv.Requests()))
				}
			}
		})
	}
}

// The same with the Python SDK's stages.
func TestPythonStageCannotClearDeny(t *testing.T) {
	needProgram(t, "python3")
	f := newFixture(t, buyEvil()...)
	bought := f.countingShop(t)
	f.onStage(t, "guard", sdk.StageBeforeToolcall, denyEvil)
	dir, _ := filepath.Abs("testdata/pyundeny")
	p, err := Start(dir, &f.opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Stop)
	ready(t, p)
	if got := f.askBuy(t); !strings.Contains(got, "evil is blocked") {
		t.Fatalf("result %q", got)
	}
	if n := bought.Load(); n != 0 {
		t.Fatalf("the guarded call ran %d time(s)", n)
	}
	if !strings.Contains(f.logs.String(), "plugin=pyundeny") {
		t.Fatalf("the undone write is not logged:\n%s", f.logs.String())
	}
}
