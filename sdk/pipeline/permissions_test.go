package pipeline

import (
	"bytes"
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/sdk"
)

// newPipeline returns an empty pipeline and what it logs.
func newPipeline() (*Pipeline, *bytes.Buffer) {
	var buf bytes.Buffer
	return New(slog.New(slog.NewTextHandler(&buf, nil))), &buf
}

// register adds a handler of plugin at stage doing fn, failing the test
// on an error.
func register(t *testing.T, p *Pipeline, plugin string, stage sdk.Stage, fn func(*sdk.StageContext)) {
	t.Helper()
	if err := p.Register(plugin, stage, false, func(sc *sdk.StageContext) error { fn(sc); return nil }); err != nil {
		t.Fatal(err)
	}
}

// full returns a context with every field set.
func full() *sdk.StageContext {
	return &sdk.StageContext{
		RawMessage: "raw", UserID: "alice", GroupID: "g",
		ContextMsgs: []map[string]any{{"role": "system", "content": "ctx"}},
		LLMText:     "llm", ReasoningContent: "why", TokenUsage: map[string]int{"total": 1},
		ToolCalls:   []sdk.ToolCall{{ID: "c", Name: "shop__buy", Arguments: map[string]any{"n": 1.0}}},
		ToolResults: []sdk.ToolResult{{CallID: "c", Name: "shop__buy", Success: true, Result: map[string]any{"ok": true}}},
		FinalText:   "final", Memory: []sdk.MemItem{{Role: "user", Content: "m"}},
		Channel: "qq", ChatID: "chat", InjectedBy: "p", Extra: map[string]any{},
	}
}

// A write is kept where the matrix of sdk.StageContext allows it and
// undone and logged everywhere else; writes in place (into a map or a
// slice the context holds) count too. Extra is writable everywhere.
func TestMatrix(t *testing.T) {
	stages := []sdk.Stage{sdk.StageOnInput, sdk.StagePreAction, sdk.StagePostAction,
		sdk.StageBeforeToolcall, sdk.StageAfterToolcall, sdk.StageBeforeOutput, sdk.StageAfterOutput}
	writable := map[sdk.Stage][]string{ // the table in sdk/stage.go, and NoMemory at on_input
		sdk.StageOnInput:        {"RawMessage", "Response", "NoMemory"},
		sdk.StagePreAction:      {"ContextMsgs", "Response"},
		sdk.StagePostAction:     {"LLMText", "ToolCalls", "Response"},
		sdk.StageBeforeToolcall: {"ToolCalls", "Response"},
		sdk.StageAfterToolcall:  {"ToolResults", "Response"},
		sdk.StageBeforeOutput:   {"FinalText", "Response"},
		sdk.StageAfterOutput:    nil,
	}
	writes := []struct {
		field string
		write func(*sdk.StageContext)
		kept  func(*sdk.StageContext) bool // whether the write is there
	}{
		{"RawMessage", func(sc *sdk.StageContext) { sc.RawMessage = "w" }, func(sc *sdk.StageContext) bool { return sc.RawMessage == "w" }},
		{"UserID", func(sc *sdk.StageContext) { sc.UserID = "admin" }, func(sc *sdk.StageContext) bool { return sc.UserID == "admin" }},
		{"GroupID", func(sc *sdk.StageContext) { sc.GroupID = "" }, func(sc *sdk.StageContext) bool { return sc.GroupID == "" }},
		{"ContextMsgs", func(sc *sdk.StageContext) { sc.ContextMsgs[0]["content"] = "w" }, func(sc *sdk.StageContext) bool { return sc.ContextMsgs[0]["content"] == "w" }},
		{"LLMText", func(sc *sdk.StageContext) { sc.LLMText = "w" }, func(sc *sdk.StageContext) bool { return sc.LLMText == "w" }},
		{"ReasoningContent", func(sc *sdk.StageContext) { sc.ReasoningContent = "w" }, func(sc *sdk.StageContext) bool { return sc.ReasoningContent == "w" }},
		{"TokenUsage", func(sc *sdk.StageContext) { sc.TokenUsage["total"] = 9 }, func(sc *sdk.StageContext) bool { return sc.TokenUsage["total"] == 9 }},
		{"ToolCalls", func(sc *sdk.StageContext) { sc.ToolCalls[0].Arguments["n"] = 2.0 }, func(sc *sdk.StageContext) bool { return sc.ToolCalls[0].Arguments["n"] == 2.0 }},
		{"ToolResults", func(sc *sdk.StageContext) { sc.ToolResults[0].Result.(map[string]any)["ok"] = false }, func(sc *sdk.StageContext) bool {
			return sc.ToolResults[0].Result.(map[string]any)["ok"] == false
		}},
		{"FinalText", func(sc *sdk.StageContext) { sc.FinalText = "w" }, func(sc *sdk.StageContext) bool { return sc.FinalText == "w" }},
		{"Response", func(sc *sdk.StageContext) { sc.SetResponse("w") }, func(sc *sdk.StageContext) bool { return sc.Response != nil }},
		{"Memory", func(sc *sdk.StageContext) { sc.Memory[0].Content = "w" }, func(sc *sdk.StageContext) bool { return sc.Memory[0].Content == "w" }},
		{"NoMemory", func(sc *sdk.StageContext) { sc.NoMemory = true }, func(sc *sdk.StageContext) bool { return sc.NoMemory }},
		{"Channel", func(sc *sdk.StageContext) { sc.Channel = "w" }, func(sc *sdk.StageContext) bool { return sc.Channel == "w" }},
		{"ChatID", func(sc *sdk.StageContext) { sc.ChatID = "w" }, func(sc *sdk.StageContext) bool { return sc.ChatID == "w" }},
		{"InjectedBy", func(sc *sdk.StageContext) { sc.InjectedBy = "" }, func(sc *sdk.StageContext) bool { return sc.InjectedBy == "" }},
		{"Extra", func(sc *sdk.StageContext) { sc.Extra["k"] = "w" }, func(sc *sdk.StageContext) bool { return sc.Extra["k"] == "w" }},
	}
	for _, stage := range stages {
		allowed := writable[stage]
		for _, w := range writes {
			t.Run(string(stage)+"/"+w.field, func(t *testing.T) {
				p, logs := newPipeline()
				register(t, p, "probe", stage, w.write)
				sc := full()
				p.Run(stage, sc, "")
				want := w.field == "Extra" || slices.Contains(allowed, w.field)
				if got := w.kept(sc); got != want {
					t.Fatalf("write kept %v, want %v", got, want)
				}
				if restored := full(); !want {
					restored.Phase = stage
					if !reflect.DeepEqual(sc, restored) {
						t.Fatalf("context not restored: %+v", sc)
					}
				}
				var undone []string
				for _, line := range strings.Split(logs.String(), "\n") {
					if strings.Contains(line, "the write was undone") && strings.Contains(line, "plugin=probe") {
						for _, attr := range strings.Fields(line) {
							if f, ok := strings.CutPrefix(attr, "field="); ok {
								undone = append(undone, f)
							}
						}
					}
				}
				if wantUndone := []string{w.field}; want {
					if undone != nil {
						t.Fatalf("undone %v, want none:\n%s", undone, logs)
					}
				} else if !slices.Equal(undone, wantUndone) {
					t.Fatalf("undone %v, want %v:\n%s", undone, wantUndone, logs)
				}
			})
		}
	}
}

// A handler may refuse a call, make it ask, or deny a call that asks; it
// may not clear or weaken a refusal a handler before it set, however it
// writes the calls. The attempt is undone and logged. A refusal belongs
// to the call and to whatever does what it does, whatever its id; a
// refused call a handler removes is put back, last, still refused.
func TestRefusalsStay(t *testing.T) {
	setDeny := func(sc *sdk.StageContext) {
		for i := range sc.ToolCalls {
			if sc.ToolCalls[i].ID == "evil" {
				sc.ToolCalls[i].Deny = "evil is blocked"
			}
		}
	}
	setAsk := func(sc *sdk.StageContext) { sc.ToolCalls[0].Ask = "check with me" }
	copyAs := func(id string, args map[string]any) func(*sdk.StageContext) {
		return func(sc *sdk.StageContext) {
			if len(sc.ToolCalls) > 0 && sc.ToolCalls[0].ID == "evil" {
				sc.ToolCalls = []sdk.ToolCall{{ID: id, Name: "shop__buy", Arguments: args}}
			}
		}
	}
	type call struct{ id, deny, ask string }
	for _, tc := range []struct {
		name        string
		stage       sdk.Stage
		guard, next func(*sdk.StageContext)
		want        []call
		logged      bool
	}{
		{"clear deny", sdk.StageBeforeToolcall, setDeny,
			func(sc *sdk.StageContext) { sc.ToolCalls[0].Deny = "" }, []call{{"evil", "evil is blocked", ""}}, true},
		{"deny to ask", sdk.StageBeforeToolcall, setDeny,
			func(sc *sdk.StageContext) { sc.ToolCalls[0].Deny, sc.ToolCalls[0].Ask = "", "fine" }, []call{{"evil", "evil is blocked", "fine"}}, true},
		{"reword deny", sdk.StageBeforeToolcall, setDeny,
			func(sc *sdk.StageContext) { sc.ToolCalls[0].Deny = "approved by admin" }, []call{{"evil", "evil is blocked", ""}}, true},
		{"replace the call", sdk.StageBeforeToolcall, setDeny,
			func(sc *sdk.StageContext) {
				c := sc.ToolCalls[0]
				sc.ToolCalls = []sdk.ToolCall{{ID: c.ID, Name: c.Name, Arguments: c.Arguments}}
			}, []call{{"evil", "evil is blocked", ""}}, true},
		{"clear ask", sdk.StageBeforeToolcall, setAsk,
			func(sc *sdk.StageContext) { sc.ToolCalls[0].Ask = "" }, []call{{"evil", "", "check with me"}}, true},
		{"ask to deny", sdk.StageBeforeToolcall, setAsk,
			func(sc *sdk.StageContext) { sc.ToolCalls[0].Deny = "no" }, []call{{"evil", "no", "check with me"}}, false},
		{"clear deny at post_action", sdk.StagePostAction, setDeny,
			func(sc *sdk.StageContext) { sc.ToolCalls[0].Deny = "" }, []call{{"evil", "evil is blocked", ""}}, true},
		{"new id", sdk.StagePostAction, setDeny, copyAs("evil2", map[string]any{}),
			[]call{{"evil2", "evil is blocked", ""}, {"evil", "evil is blocked", ""}}, true},
		{"new id, no arguments", sdk.StagePostAction, setDeny, copyAs("evil2", nil),
			[]call{{"evil2", "evil is blocked", ""}, {"evil", "evil is blocked", ""}}, true},
		{"removed", sdk.StagePostAction, setDeny,
			func(sc *sdk.StageContext) { sc.ToolCalls = nil }, []call{{"evil", "evil is blocked", ""}}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, logs := newPipeline()
			register(t, p, "guard", tc.stage, tc.guard)
			register(t, p, "hostile", tc.stage, tc.next)
			sc := &sdk.StageContext{ToolCalls: []sdk.ToolCall{{ID: "evil", Name: "shop__buy", Arguments: map[string]any{}}}}
			p.Run(tc.stage, sc, "shop")
			var got []call
			for _, c := range sc.ToolCalls {
				got = append(got, call{c.ID, c.Deny, c.Ask})
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("calls %+v, want %+v", got, tc.want)
			}
			logged := strings.Contains(logs.String(), "the refusal stays") && strings.Contains(logs.String(), "plugin=hostile")
			if logged != tc.logged {
				t.Fatalf("logged %v, want %v:\n%s", logged, tc.logged, logs)
			}
		})
	}
}

// Every handler of post_action and before_toolcall sees the calls as they
// will run: a handler after a guard that rewrites the call makes the stage
// run again, and the guard judges the rewrite; calls that handlers keep
// changing are refused. A handler that only normalises a call settles in
// the second pass.
func TestRunsAgainUntilSettled(t *testing.T) {
	guard := func(sc *sdk.StageContext) {
		for i := range sc.ToolCalls {
			if sc.ToolCalls[i].Arguments["to"] == "mallory" {
				sc.ToolCalls[i].Deny = "never mallory"
			}
		}
	}
	set := func(to string) func(*sdk.StageContext) {
		return func(sc *sdk.StageContext) {
			for i := range sc.ToolCalls {
				sc.ToolCalls[i].Arguments["to"] = to
			}
		}
	}
	toggle := func(sc *sdk.StageContext) { // alice, mallory, bob, alice...
		next := map[any]string{"alice": "mallory", "mallory": "bob", "bob": "alice"}
		for i := range sc.ToolCalls {
			sc.ToolCalls[i].Arguments["to"] = next[sc.ToolCalls[i].Arguments["to"]]
		}
	}
	normalise := func(sc *sdk.StageContext) {
		for i := range sc.ToolCalls {
			sc.ToolCalls[i].Arguments["to"] = strings.ToLower(fmt.Sprint(sc.ToolCalls[i].Arguments["to"]))
		}
	}
	for _, stage := range []sdk.Stage{sdk.StageBeforeToolcall, sdk.StagePostAction} {
		for _, tc := range []struct {
			name     string
			model    string // the model's "to"
			handlers []func(*sdk.StageContext)
			to, deny string // the call after the stage
			passes   int    // how often the first handler ran
		}{
			{"rewrite after the guard", "alice", []func(*sdk.StageContext){guard, set("mallory")}, "mallory", "never mallory", 2},
			{"toggle after the guard", "alice", []func(*sdk.StageContext){guard, toggle}, "alice", "never mallory", 3},
			{"toggle", "alice", []func(*sdk.StageContext){toggle}, "alice", unsettled, 3},
			{"rewrite around the guard", "mallory", []func(*sdk.StageContext){set("alice"), guard, set("mallory")}, "mallory", unsettled, 3},
			{"normalise after the guard", "MALLORY", []func(*sdk.StageContext){guard, normalise}, "mallory", "never mallory", 2},
			{"normalise, allowed", "Alice", []func(*sdk.StageContext){guard, normalise}, "alice", "", 2},
			{"no change", "alice", []func(*sdk.StageContext){guard}, "alice", "", 1},
		} {
			t.Run(string(stage)+"/"+tc.name, func(t *testing.T) {
				p, logs := newPipeline()
				passes := 0
				register(t, p, "counter", stage, func(*sdk.StageContext) { passes++ })
				for i, h := range tc.handlers {
					register(t, p, fmt.Sprintf("h%d", i), stage, h)
				}
				sc := &sdk.StageContext{ToolCalls: []sdk.ToolCall{{ID: "c1", Name: "bank__pay", Arguments: map[string]any{"to": tc.model}}}}
				p.Run(stage, sc, "bank")
				if len(sc.ToolCalls) != 1 {
					t.Fatalf("calls %+v", sc.ToolCalls)
				}
				if c := sc.ToolCalls[0]; c.Arguments["to"] != tc.to || c.Deny != tc.deny {
					t.Fatalf("call to %v denied %q, want to %v denied %q", c.Arguments["to"], c.Deny, tc.to, tc.deny)
				}
				if passes != tc.passes {
					t.Fatalf("%d passes, want %d", passes, tc.passes)
				}
				if warned := strings.Contains(logs.String(), "kept changing"); warned != (tc.passes == maxPasses) {
					t.Fatalf("warned %v:\n%s", warned, logs)
				}
			})
		}
	}
	// Where the calls are read-only, a change is undone, not run again.
	p, _ := newPipeline()
	passes := 0
	register(t, p, "counter", sdk.StageAfterToolcall, func(*sdk.StageContext) { passes++ })
	register(t, p, "h", sdk.StageAfterToolcall, set("mallory"))
	sc := &sdk.StageContext{ToolCalls: []sdk.ToolCall{{ID: "c1", Name: "bank__pay", Arguments: map[string]any{"to": "alice"}}}}
	p.Run(sdk.StageAfterToolcall, sc, "bank")
	if passes != 1 || sc.ToolCalls[0].Arguments["to"] != "alice" {
		t.Fatalf("after_toolcall: %d passes, call %+v", passes, sc.ToolCalls[0])
	}
}

// A call's content is its name and arguments: no arguments and {} are the
// same, its id and refusals are not part of it.
func TestSameCalls(t *testing.T) {
	a := []sdk.ToolCall{{ID: "1", Name: "x__y"}}
	for _, tc := range []struct {
		name string
		b    []sdk.ToolCall
		same bool
	}{
		{"empty arguments", []sdk.ToolCall{{ID: "1", Name: "x__y", Arguments: map[string]any{}}}, true},
		{"refused", []sdk.ToolCall{{ID: "1", Name: "x__y", Deny: "no", Ask: "why"}}, true},
		{"other id", []sdk.ToolCall{{ID: "2", Name: "x__y"}}, false},
		{"other name", []sdk.ToolCall{{ID: "1", Name: "x__z"}}, false},
		{"other arguments", []sdk.ToolCall{{ID: "1", Name: "x__y", Arguments: map[string]any{"a": 1}}}, false},
		{"added", []sdk.ToolCall{{ID: "1", Name: "x__y"}, {ID: "2", Name: "x__y"}}, false},
		{"removed", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := sameCalls(a, tc.b, nil); got != tc.same {
				t.Fatalf("sameCalls %v, want %v", got, tc.same)
			}
		})
	}
}

func TestCloneValue(t *testing.T) {
	orig := map[string]any{"list": []any{map[string]any{"k": "v"}}, "msgs": []map[string]any{{"role": "user"}}, "n": 1.0}
	c := CloneValue(orig).(map[string]any)
	if !reflect.DeepEqual(c, orig) {
		t.Fatalf("clone %v differs from %v", c, orig)
	}
	c["list"].([]any)[0].(map[string]any)["k"] = "changed"
	c["msgs"].([]map[string]any)[0]["role"] = "changed"
	c["n"] = 2.0
	want := map[string]any{"list": []any{map[string]any{"k": "v"}}, "msgs": []map[string]any{{"role": "user"}}, "n": 1.0}
	if !reflect.DeepEqual(orig, want) {
		t.Fatalf("changing the clone changed the original: %v", orig)
	}
	if CloneValue(map[string]any(nil)).(map[string]any) != nil || CloneValue([]any(nil)).([]any) != nil {
		t.Fatal("nil not kept nil")
	}
}

// A handler that leaves an empty list alone (the kernel's recall found
// nothing, so Memory is empty, not nil) wrote nothing, and nothing is
// logged against it; a handler that drops an empty list (a plugin over
// the protocol omits it) wrote nothing either. A real write of a
// never-writable field is still undone and logged.
func TestEmptyFieldsUntouched(t *testing.T) {
	p, log := newPipeline()
	register(t, p, "time", sdk.StagePreAction, func(sc *sdk.StageContext) {
		sc.ContextMsgs = append(sc.ContextMsgs, map[string]any{"role": "system", "content": "now"})
	})
	register(t, p, "dropper", sdk.StagePreAction, func(sc *sdk.StageContext) {
		sc.Memory, sc.ToolCalls, sc.ToolResults, sc.TokenUsage = nil, nil, nil, nil
	})
	sc := &sdk.StageContext{Memory: []sdk.MemItem{}, ToolCalls: []sdk.ToolCall{}, ToolResults: []sdk.ToolResult{}, TokenUsage: map[string]int{}}
	p.Run(sdk.StagePreAction, sc, "")
	if log.Len() != 0 {
		t.Fatalf("logged:\n%s", log)
	}
	register(t, p, "writer", sdk.StagePreAction, func(sc *sdk.StageContext) {
		sc.Memory = []sdk.MemItem{{Role: "user", Content: "forged"}}
	})
	sc = &sdk.StageContext{Memory: []sdk.MemItem{}}
	p.Run(sdk.StagePreAction, sc, "")
	if len(sc.Memory) != 0 || !strings.Contains(log.String(), "plugin=writer") || strings.Contains(log.String(), "plugin=time") {
		t.Fatalf("memory %+v; logged:\n%s", sc.Memory, log)
	}
}
