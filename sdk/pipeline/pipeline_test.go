package pipeline

import (
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/hearth-agent/hearth/sdk"
)

func TestRegisterRejects(t *testing.T) {
	p, _ := newPipeline()
	ok := func(*sdk.StageContext) error { return nil }
	if err := p.Register("x", sdk.Stage("on_everything"), false, ok); err == nil || !strings.Contains(err.Error(), "unknown stage") {
		t.Fatalf("unknown stage: %v", err)
	}
	if err := p.Register("x", sdk.StageOnInput, false, nil); err == nil || !strings.Contains(err.Error(), "nil handler") {
		t.Fatalf("nil handler: %v", err)
	}
	if p.Has(sdk.StageOnInput) {
		t.Fatal("a rejected handler was registered")
	}
}

// Handlers run in registration order; one that errors or panics is
// logged and the next one runs; once one sets Response the rest are
// skipped.
func TestOrderFailuresAndResponse(t *testing.T) {
	p, logs := newPipeline()
	var order []string
	add := func(name string, fn sdk.StageHandler) {
		t.Helper()
		if err := p.Register(name, sdk.StageOnInput, false, func(sc *sdk.StageContext) error {
			order = append(order, name)
			return fn(sc)
		}); err != nil {
			t.Fatal(err)
		}
	}
	add("panics", func(*sdk.StageContext) error { panic("boom") })
	add("fails", func(sc *sdk.StageContext) error { sc.RawMessage += " seen"; return errors.New("refused") })
	add("ends", func(sc *sdk.StageContext) error { sc.SetResponse("stop"); return nil })
	add("skipped", func(sc *sdk.StageContext) error { sc.RawMessage = "ran after Response"; return nil })
	sc := &sdk.StageContext{RawMessage: "hi"}
	p.Run(sdk.StageOnInput, sc, "")
	if !slices.Equal(order, []string{"panics", "fails", "ends"}) {
		t.Fatalf("order %v", order)
	}
	if sc.RawMessage != "hi seen" || sc.Response == nil || *sc.Response != "stop" || sc.Phase != sdk.StageOnInput {
		t.Fatalf("context %+v", sc)
	}
	for _, want := range []string{"stage handler panicked", "plugin=panics", "panic: boom", "stage handler failed", "err=refused", "plugin=fails"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("no %q in the logs:\n%s", want, logs)
		}
	}
	// A Response set before the stage does not skip its handlers.
	order = nil
	sc = &sdk.StageContext{}
	sc.SetResponse("earlier")
	p.Run(sdk.StageOnInput, sc, "")
	if !slices.Equal(order, []string{"panics", "fails", "ends", "skipped"}) || *sc.Response != "stop" {
		t.Fatalf("order %v, response %q", order, *sc.Response)
	}
}

// A handler registered for its plugin's own tools runs only for calls of
// that plugin's tools.
func TestOwnTools(t *testing.T) {
	p, _ := newPipeline()
	var ran []string
	for _, tc := range []struct {
		plugin string
		own    bool
	}{{"shop", true}, {"guard", false}, {"bank", true}} {
		if err := p.Register(tc.plugin, sdk.StageBeforeToolcall, tc.own, func(*sdk.StageContext) error {
			ran = append(ran, tc.plugin)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		toolPlugin string
		want       []string
	}{
		{"shop", []string{"shop", "guard"}},
		{"bank", []string{"guard", "bank"}},
		{"", []string{"guard"}},
	} {
		t.Run("tool of "+tc.toolPlugin, func(t *testing.T) {
			ran = nil
			p.Run(sdk.StageBeforeToolcall, &sdk.StageContext{}, tc.toolPlugin)
			if !slices.Equal(ran, tc.want) {
				t.Errorf("for %q ran %v, want %v", tc.toolPlugin, ran, tc.want)
			}
		})
	}
}

func TestRemovePlugin(t *testing.T) {
	p, _ := newPipeline()
	var ran []string
	for _, plugin := range []string{"a", "b", "a"} {
		register(t, p, plugin, sdk.StagePreAction, func(*sdk.StageContext) { ran = append(ran, plugin) })
	}
	register(t, p, "a", sdk.StageOnInput, func(*sdk.StageContext) { ran = append(ran, "a") })
	p.RemovePlugin("a")
	p.Run(sdk.StagePreAction, &sdk.StageContext{}, "")
	p.Run(sdk.StageOnInput, &sdk.StageContext{}, "")
	if !slices.Equal(ran, []string{"b"}) || p.Has(sdk.StageOnInput) || !p.Has(sdk.StagePreAction) {
		t.Fatalf("ran %v after removing a", ran)
	}
}

// Handlers are the handlers of a stage at one moment: a handler registered
// later does not run in them, and Later names its plugin if it applies to
// the tool's plugin.
func TestHandlersLater(t *testing.T) {
	p, _ := newPipeline()
	var ran []string
	h := func(name string) sdk.StageHandler {
		return func(*sdk.StageContext) error { ran = append(ran, name); return nil }
	}
	if err := p.Register("early", sdk.StageBeforeToolcall, false, h("early")); err != nil {
		t.Fatal(err)
	}
	hs := p.Handlers(sdk.StageBeforeToolcall)
	if hs.Len() != 1 || len(hs.Later("shop")) != 0 {
		t.Fatalf("len %d, later %v", hs.Len(), hs.Later("shop"))
	}
	for _, r := range []struct {
		plugin string
		stage  sdk.Stage
		own    bool
	}{
		{"late", sdk.StageBeforeToolcall, false},
		{"mine", sdk.StageBeforeToolcall, true},
		{"other", sdk.StageAfterToolcall, false},
		{"late", sdk.StageBeforeToolcall, false},
	} {
		if err := p.Register(r.plugin, r.stage, r.own, h(r.plugin)); err != nil {
			t.Fatal(err)
		}
	}
	hs.Run(&sdk.StageContext{}, "mine")
	if !slices.Equal(ran, []string{"early"}) {
		t.Fatalf("ran %v", ran)
	}
	if got := hs.Later("shop"); !slices.Equal(got, []string{"late"}) {
		t.Fatalf("later for shop %v", got)
	}
	if got := hs.Later("mine"); !slices.Equal(got, []string{"late", "mine"}) {
		t.Fatalf("later for mine %v", got)
	}
	if got := p.Handlers(sdk.StageBeforeToolcall).Later("mine"); got != nil {
		t.Fatalf("later than now %v", got)
	}
}

// Registering, removing and running may happen at once (run with -race).
func TestConcurrentUse(t *testing.T) {
	p, _ := newPipeline()
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			for range 50 {
				if err := p.Register("p", sdk.StageBeforeToolcall, false, func(sc *sdk.StageContext) error {
					sc.Extra["seen"] = true
					return nil
				}); err != nil {
					t.Error(err)
				}
				p.RemovePlugin("p")
			}
		}()
		go func() {
			defer wg.Done()
			for range 50 {
				sc := &sdk.StageContext{Extra: map[string]any{}, ToolCalls: []sdk.ToolCall{{ID: "c", Name: "x__y"}}}
				hs := p.Handlers(sdk.StageBeforeToolcall)
				hs.Run(sc, "x")
				_ = hs.Later("x")
				if len(sc.ToolCalls) != 1 {
					t.Errorf("calls %+v", sc.ToolCalls)
				}
			}
		}()
	}
	wg.Wait()
}

// BenchmarkRun is one before_toolcall stage: a guard that reads the call,
// a handler that rewrites its arguments (so the stage runs twice), and a
// handler of another plugin's own tools.
func BenchmarkRun(b *testing.B) {
	p := New(nil)
	must := func(err error) {
		if err != nil {
			b.Fatal(err)
		}
	}
	must(p.Register("guard", sdk.StageBeforeToolcall, false, func(sc *sdk.StageContext) error {
		if sc.ToolCalls[0].Arguments["to"] == "mallory" {
			sc.ToolCalls[0].Deny = "never mallory"
		}
		return nil
	}))
	must(p.Register("norm", sdk.StageBeforeToolcall, false, func(sc *sdk.StageContext) error {
		sc.ToolCalls[0].Arguments["to"] = strings.ToLower(sc.ToolCalls[0].Arguments["to"].(string))
		return nil
	}))
	must(p.Register("other", sdk.StageBeforeToolcall, true, func(*sdk.StageContext) error { return nil }))
	b.ReportAllocs()
	for b.Loop() {
		sc := &sdk.StageContext{ToolCalls: []sdk.ToolCall{{ID: "c", Name: "bank__pay", Arguments: map[string]any{"to": "Alice", "amount": 3.0}}}}
		p.Run(sdk.StageBeforeToolcall, sc, "bank")
		if sc.ToolCalls[0].Arguments["to"] != "alice" {
			b.Fatal(sc.ToolCalls[0])
		}
	}
}
