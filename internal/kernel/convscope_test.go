package kernel

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hearth-agent/hearth/internal/scope"
	"github.com/hearth-agent/hearth/internal/scope/scopetest"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/host"
	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// memoryPlugin remembers and recalls through HomeAgent's context-free
// memory APIs, in its tool handlers and in an on_input stage handler.
func memoryPlugin(s *sdk.PluginSDK) error {
	if err := s.RegisterTool("remember", sdk.ToolDef{Description: "remember a fact",
		Parameters: map[string]any{"type": "object", "properties": map[string]any{"fact": map[string]any{"type": "string"}}}},
		func(args map[string]any) (any, error) {
			fact, _ := args["fact"].(string)
			if err := s.Memory().Commit([]sdk.Triple{{Subject: fact, Relation: "is", Object: "known"}}); err != nil {
				return nil, err
			}
			if err := s.DocMemory().Insert(&sdk.Doc{ID: "fact", Content: fact}); err != nil {
				return nil, err
			}
			return "ok", s.Knowledge().Add("fact", fact)
		}); err != nil {
		return err
	}
	if err := s.RegisterTool("recall", sdk.ToolDef{Description: "recall facts"},
		func(map[string]any) (any, error) {
			var found []string
			ents, _, err := s.Memory().Recall([]string{"fact"}, 1)
			for _, e := range ents {
				found = append(found, "g:"+e.Name)
			}
			for _, d := range s.DocMemory().Query("fact", 10) {
				found = append(found, "d:"+d.Content)
			}
			ks, _ := s.Knowledge().Search("fact", 10)
			for _, k := range ks {
				found = append(found, "k:"+k.Content)
			}
			slices.Sort(found)
			return strings.Join(found, " "), err
		}); err != nil {
		return err
	}
	s.RegisterStage(sdk.StageOnInput, func(sc *sdk.StageContext) error {
		return s.TextMemory().Append(sdk.TextEvent{Role: "user", Content: sc.RawMessage})
	})
	return nil
}

// scopedEnv is a kernel whose plugins get scoped memory APIs over mem,
// as internal/app gives them.
func scopedEnv(t *testing.T, mem *scopetest.Memory) *env {
	var k *Kernel
	e := newEnv(t, Options{Services: func(plugin string) host.Services {
		shared := k.Capable(plugin, scope.CapabilityShared)
		return host.Services{Memory: scope.MemoryAPI(mem, plugin, shared), DocMemory: scope.DocMemoryAPI(mem, plugin, shared),
			TextMemory: scope.TextMemoryAPI(mem, plugin, shared), Knowledge: scope.KnowledgeAPI(mem, plugin, shared)}
	}})
	k = e.k
	load(t, k, "alpha", memoryPlugin)
	load(t, k, "beta", memoryPlugin)
	return e
}

// inGroup asks in group g of qq, the model making calls in one step, and
// returns the tool results the model read, by call id.
func inGroup(t *testing.T, e *env, g, text string, calls ...llmtest.Call) map[string]string {
	t.Helper()
	return askWith(t, e, Input{Injection: sdk.Injection{Channel: "qq", ChatID: "group:" + g, GroupID: g, UserID: "u" + g, Text: text}}, calls...)
}

// askWith asks with in, the model making calls in one step, and returns
// the tool results the model read, by call id.
func askWith(t *testing.T, e *env, in Input, calls ...llmtest.Call) map[string]string {
	t.Helper()
	n := len(e.srv.Requests())
	e.srv.Push(llmtest.Reply{ToolCalls: calls}, llmtest.Reply{Text: "done"})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out := e.k.Ask(ctx, in)
	if out.Err != nil {
		t.Fatal(out.Err)
	}
	reqs := e.srv.Requests()
	if len(reqs) != n+2 {
		t.Fatalf("%d requests, want %d", len(reqs), n+2)
	}
	got := map[string]string{}
	for _, c := range calls {
		m, ok := toolMessage(reqs[n+1].Messages, c.ID)
		if !ok {
			t.Fatalf("no result for %s", c.ID)
		}
		got[c.ID], _ = m["content"].(string)
	}
	return got
}

// TestTwoGroupsTwoPluginsCompiledIn is the check for compiled-in
// plugins: a HomeAgent plugin's context-free memory calls act in the
// conversation of the turn whose handler makes them, and a plugin sees
// only its own entries.
func TestTwoGroupsTwoPluginsCompiledIn(t *testing.T) {
	mem := &scopetest.Memory{}
	e := scopedEnv(t, mem)
	inGroup(t, e, "1", "remember",
		llmtest.Call{ID: "a1", Name: "alpha__remember", Arguments: `{"fact":"fact-alpha-1"}`},
		llmtest.Call{ID: "b1", Name: "beta__remember", Arguments: `{"fact":"fact-beta-1"}`})
	inGroup(t, e, "2", "remember", llmtest.Call{ID: "a2", Name: "alpha__remember", Arguments: `{"fact":"fact-alpha-2"}`})

	got := inGroup(t, e, "1", "recall", llmtest.Call{ID: "ra", Name: "alpha__recall", Arguments: `{}`},
		llmtest.Call{ID: "rb", Name: "beta__recall", Arguments: `{}`})
	if want := "d:fact-alpha-1 g:fact-alpha-1 k:fact-alpha-1"; got["ra"] != want {
		t.Errorf("alpha in group 1 recalls %q, want %q", got["ra"], want)
	}
	if want := "d:fact-beta-1 g:fact-beta-1 k:fact-beta-1"; got["rb"] != want {
		t.Errorf("beta in group 1 recalls %q, want %q", got["rb"], want)
	}
	got = inGroup(t, e, "2", "recall", llmtest.Call{ID: "ra", Name: "alpha__recall", Arguments: `{}`},
		llmtest.Call{ID: "rb", Name: "beta__recall", Arguments: `{}`})
	if want := "d:fact-alpha-2 g:fact-alpha-2 k:fact-alpha-2"; got["ra"] != want {
		t.Errorf("alpha in group 2 recalls %q, want %q", got["ra"], want)
	}
	if got["rb"] != "" {
		t.Errorf("beta in group 2 recalls %q", got["rb"])
	}

	// Outside any turn a plugin's call acts in Global.
	api := e.k.Services("alpha").Memory
	if ents, _, _ := api.Recall([]string{"fact"}, 1); len(ents) != 0 {
		t.Errorf("alpha outside a turn recalls %v", ents)
	}
	// Stage handlers wrote each turn's text in its group, per plugin.
	for _, en := range mem.Entries() {
		if en.Kind == "text" && (en.Scope != scope.Chat("qq", "group:1") && en.Scope != scope.Chat("qq", "group:2") ||
			en.Writer != "alpha" && en.Writer != "beta") {
			t.Errorf("text entry %+v", en)
		}
		if en.Scope == scope.Global {
			t.Errorf("entry of a turn in Global: %+v", en)
		}
	}
}

func TestConversationScope(t *testing.T) {
	e := newEnv(t, Options{})
	cases := []struct {
		in   Input
		want scope.Scope
	}{
		{Input{Injection: sdk.Injection{Channel: "qq", GroupID: "9", UserID: "u"}}, scope.Chat("qq", "group:9")},
		{Input{Injection: sdk.Injection{Channel: "test"}}, scope.Owner}, // a local channel: the owner
		{Input{Injection: sdk.Injection{Channel: "test"}, Plugin: "memo"}, scope.Chat("test", "-")},
		{Input{Injection: sdk.Injection{Channel: "wechat", UserID: "5"}}, scope.User("wechat", "5")}, // a guest
		{Input{Injection: sdk.Injection{Channel: "plugin:memo"}, Plugin: "memo"}, scope.Chat("plugin:memo", "-")},
	}
	for _, c := range cases {
		if got := e.k.conversation(c.in); got != c.want {
			t.Errorf("conversation(%+v) = %q, want %q", c.in.Injection, got, c.want)
		}
	}
}

// TestHandlersRunInTheirTurnsScope checks every kind of in-process
// handler a turn runs: tool, stage and decision hook handlers, and the
// manifest's Context, each see the turn's conversation (scope.Current).
func TestHandlersRunInTheirTurnsScope(t *testing.T) {
	e := newEnv(t, Options{})
	seen := map[string]scope.Scope{}
	var mu sync.Mutex
	note := func(what string) {
		mu.Lock()
		defer mu.Unlock()
		seen[what] = scope.Current()
	}
	p := &watchPlugin{pluginFunc: pluginFunc{"watch", func(s *sdk.PluginSDK) error {
		s.RegisterStage(sdk.StagePreAction, func(*sdk.StageContext) error { note("stage"); return nil })
		s.RegisterDecisionHook(func(context.Context, *sdk.ToolContext, string, map[string]any) (sdk.HookDecision, error) {
			note("hook")
			return sdk.HookDecision{Verdict: sdk.VerdictAllow}, nil
		})
		return s.RegisterTool("look", sdk.ToolDef{Description: "look"}, func(map[string]any) (any, error) { note("tool"); return "ok", nil })
	}}, context: func() { note("context") }}
	if err := e.k.LoadPlugin("watch", func(string, map[string]any) (sdk.Plugin, error) { return p, nil }, nil); err != nil {
		t.Fatal(err)
	}
	inGroup(t, e, "7", "look", llmtest.Call{ID: "l", Name: "watch__look", Arguments: `{}`})
	want := scope.Chat("qq", "group:7")
	for _, what := range []string{"context", "stage", "hook", "tool"} {
		if seen[what] != want {
			t.Errorf("%s handler ran in %q, want %q", what, seen[what], want)
		}
	}
	if scope.Current() != scope.Global {
		t.Errorf("the test's goroutine is left in %q", scope.Current())
	}
}

// watchPlugin is a plugin with a manifest Context.
type watchPlugin struct {
	pluginFunc
	context func()
}

func (p *watchPlugin) Manifest() sdk.Manifest {
	return sdk.Manifest{ID: "watch", Name: "watch", Version: "1.0.0",
		Context: func(context.Context, sdk.ContextInput) (string, error) { p.context(); return "", nil }}
}

// goPlugin writes from goroutines its handlers start: tool "spawn"
// waits for its goroutine; the on_input stage handler, on a message
// "later", leaves one behind that writes when a message "fire" comes,
// and sends how its writes went on fired (buffered).
func goPlugin(fired chan<- string) func(s *sdk.PluginSDK) error {
	return func(s *sdk.PluginSDK) error {
		if err := s.RegisterTool("spawn", sdk.ToolDef{}, func(map[string]any) (any, error) {
			done := make(chan error)
			go func() {
				inner := make(chan error)
				go func() {
					inner <- s.Memory().Commit([]sdk.Triple{{Subject: "spawned", Relation: "is", Object: "known"}})
				}()
				done <- <-inner
			}()
			return "ok", <-done
		}); err != nil {
			return err
		}
		fire, wrote := make(chan struct{}), make(chan struct{})
		s.RegisterStage(sdk.StageOnInput, func(sc *sdk.StageContext) error {
			switch sc.RawMessage {
			case "later":
				go func() {
					<-fire
					var errs []string
					for _, err := range []error{
						s.Memory().Commit([]sdk.Triple{{Subject: "late", Relation: "is", Object: "known"}}),
						s.DocMemory().Insert(&sdk.Doc{ID: "late", Content: "late"}),
						s.TextMemory().Append(sdk.TextEvent{Role: "user", Content: "late"}),
						s.Knowledge().Add("late", "late"),
					} {
						errs = append(errs, fmt.Sprint(err))
					}
					fired <- strings.Join(errs, "\n")
					close(wrote)
				}()
			case "fire":
				fire <- struct{}{}
				<-wrote // the writes are made while this stage handler runs
			}
			return nil
		})
		return nil
	}
}

// TestHandlerGoroutinesCompiledIn: a goroutine a compiled-in tool
// handler starts (and one that goroutine starts) writes in the turn's
// conversation while the handler runs. One a stage handler leaves
// running is refused its writes once the handler returned, even while
// the next turn of the same session, in another conversation (the
// owner's words typed into a chat app's session, then that app's user),
// runs its stage handlers: it never writes in global nor in the later
// turn's conversation.
func TestHandlerGoroutinesCompiledIn(t *testing.T) {
	mem := &scopetest.Memory{}
	e := scopedEnv(t, mem)
	fired := make(chan string, 1)
	load(t, e.k, "gos", goPlugin(fired))
	if got := inGroup(t, e, "1", "spawn", llmtest.Call{ID: "s", Name: "gos__spawn", Arguments: `{}`}); got["s"] != "ok" {
		t.Fatalf("spawn: %q", got["s"])
	}
	// Both turns queued at once, so that one worker serves them in turn.
	owner := Input{Injection: sdk.Injection{Channel: "wechat", ChatID: "friend", UserID: "owner", Text: "later"}, Owner: true}
	guest := Input{Injection: sdk.Injection{Channel: "wechat", ChatID: "friend", UserID: "friend", Text: "fire"}}
	e.srv.Push(llmtest.Reply{Text: "one"}, llmtest.Reply{Text: "two"})
	first, second := e.k.Submit(owner), e.k.Submit(guest)
	for _, done := range []<-chan Outcome{first, second} {
		if out := <-done; out.Err != nil {
			t.Fatal(out.Err)
		}
	}
	report := <-fired
	errs := strings.Split(report, "\n")
	if len(errs) != 4 {
		t.Fatalf("the late goroutine's writes: %q", report)
	}
	for _, err := range errs {
		if !strings.HasPrefix(err, "call ended:") {
			t.Errorf("a write after the handler returned: %q, want %q", err, scope.ErrCallEnded)
		}
	}
	found := false
	for _, en := range mem.Entries() {
		switch {
		case en.Key == "spawned":
			found = true
			if want := scope.Chat("qq", "group:1"); en.Scope != want {
				t.Errorf("the handler's goroutine wrote in %q, want %q", en.Scope, want)
			}
		case en.Key == "late" || en.Text == "late":
			t.Errorf("a write after the handler returned was stored: %+v", en)
		}
	}
	if !found {
		t.Error("the handler's goroutine's write was not stored")
	}
}
