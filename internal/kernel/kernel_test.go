package kernel

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/hearth-agent/hearth/internal/llm"
	"github.com/hearth-agent/hearth/internal/policy"
	"github.com/hearth-agent/hearth/internal/store"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/host"
	"github.com/hearth-agent/hearth/sdk/llmtest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// logBuffer collects log records for assertions.
type logBuffer struct {
	mu  sync.Mutex
	buf strings.Builder
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

type env struct {
	k    *Kernel
	srv  *llmtest.Server
	logs *logBuffer
	dir  string
	st   *store.Store
}

func newEnv(t *testing.T, cfg Options, replies ...llmtest.Reply) *env {
	t.Helper()
	srv := llmtest.NewServer(t, replies...)
	dir := t.TempDir()
	return startEnv(t, cfg, srv, dir)
}

func startEnv(t *testing.T, cfg Options, srv *llmtest.Server, dir string) *env {
	t.Helper()
	st, err := store.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	logs := &logBuffer{}
	cfg.Logger = slog.New(slog.NewTextHandler(logs, nil))
	if cfg.Policy == nil {
		eng, err := policy.NewEngine(context.Background(), st, cfg.Logger)
		if err != nil {
			t.Fatal(err)
		}
		// Everyone in the kernel tests' own channels is the owner; the
		// policy tests use other channels.
		eng.LocalChannels = append(eng.LocalChannels, "test", "qq", "a", "b")
		cfg.Policy = eng
	}
	k := New(&llm.Client{BaseURL: srv.URL, Model: "test", Backoff: time.Millisecond}, st, &cfg)
	e := &env{k: k, srv: srv, logs: logs, dir: dir, st: st}
	t.Cleanup(func() { e.close(t) })
	return e
}

func (e *env) close(t *testing.T) {
	if e.k == nil {
		return
	}
	if err := e.k.Close(); err != nil {
		t.Error(err)
	}
	e.st.Close()
	e.k = nil
}

func (e *env) ask(t *testing.T, text string) Outcome {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return e.k.Ask(ctx, Input{Injection: sdk.Injection{Channel: "test", Text: text}})
}

// pluginFunc adapts a start function to sdk.Plugin.
type pluginFunc struct {
	name  string
	start func(*sdk.PluginSDK) error
}

func (p pluginFunc) Name() string                 { return p.name }
func (p pluginFunc) Start(s *sdk.PluginSDK) error { return p.start(s) }
func (p pluginFunc) Stop() error                  { return nil }

// hang returns a reply that keeps its stream open until the client goes
// away, and a channel closed once its request has arrived: from then on
// the model call is in flight.
func hang() (llmtest.Reply, <-chan struct{}) {
	arrived := make(chan struct{})
	return llmtest.Reply{Func: func(llmtest.Request) llmtest.Reply {
		close(arrived)
		return llmtest.Reply{Hang: true}
	}}, arrived
}

func load(t *testing.T, k *Kernel, name string, start func(*sdk.PluginSDK) error) {
	t.Helper()
	err := k.LoadPlugin(name, func(n string, _ map[string]any) (sdk.Plugin, error) {
		return pluginFunc{n, start}, nil
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
}

func clockPlugin(s *sdk.PluginSDK) error {
	type in struct {
		Zone string `json:"zone,omitempty"`
	}
	return sdk.AddTool(s, sdk.ToolDef{Name: "now", Description: "current time"},
		func(_ context.Context, _ *sdk.ToolContext, a in) (map[string]string, error) {
			return map[string]string{"zone": a.Zone, "time": "12:00"}, nil
		})
}

func toolMessage(msgs []map[string]any, id string) (map[string]any, bool) {
	for _, m := range msgs {
		if m["role"] == "tool" && m["tool_call_id"] == id {
			return m, true
		}
	}
	return nil, false
}

func TestToolCallRoundTripAndHistoryAfterRestart(t *testing.T) {
	e := newEnv(t, Options{},
		llmtest.Reply{ToolCalls: []llmtest.Call{{ID: "call_a", Name: "clock__now", Arguments: `{"zone":"Asia/Shanghai"}`}}},
		llmtest.Reply{Text: "现在是中午十二点。"},
	)
	load(t, e.k, "clock", clockPlugin)
	out := e.ask(t, "几点了？")
	if out.Err != nil || out.Text != "现在是中午十二点。" {
		t.Fatalf("outcome %+v", out)
	}
	reqs := e.srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	if names := reqs[0].ToolNames(); len(names) != 1 || names[0] != "clock__now" {
		t.Fatalf("tools offered: %v", names)
	}
	tm, ok := toolMessage(reqs[1].Messages, "call_a")
	if !ok {
		t.Fatalf("no tool message for call_a in %v", reqs[1].Messages)
	}
	var result map[string]string
	if err := json.Unmarshal([]byte(tm["content"].(string)), &result); err != nil || result["zone"] != "Asia/Shanghai" {
		t.Fatalf("tool content %v (%v)", tm["content"], err)
	}

	// Restart: a new kernel on the same data directory continues the conversation.
	srv, dir := e.srv, e.dir
	e.close(t)
	srv.Push(llmtest.Reply{Text: "你刚才问了时间。"})
	e2 := startEnv(t, Options{}, srv, dir)
	load(t, e2.k, "clock", clockPlugin)
	if out := e2.ask(t, "我刚才问了什么？"); out.Text != "你刚才问了时间。" {
		t.Fatalf("outcome %+v", out)
	}
	last := srv.Requests()[2].Messages
	var roles []string
	for _, m := range last {
		roles = append(roles, m["role"].(string))
	}
	if got := strings.Join(roles, ","); got != "system,user,assistant,tool,assistant,user" {
		t.Fatalf("roles after restart: %s", got)
	}
	if last[1]["content"] != "几点了？" || last[5]["content"] != "我刚才问了什么？" {
		t.Fatalf("history %v", last)
	}
}

func TestInvalidArgumentsReturnToModel(t *testing.T) {
	e := newEnv(t, Options{},
		llmtest.Reply{ToolCalls: []llmtest.Call{{ID: "c1", Name: "w__q", Arguments: `{"city": 7}`}}},
		llmtest.Reply{ToolCalls: []llmtest.Call{{ID: "c2", Name: "w__q", Arguments: `{"city": "Beijing"}`}}},
		llmtest.Reply{Text: "done"},
	)
	var got []string
	load(t, e.k, "w", func(s *sdk.PluginSDK) error {
		return s.RegisterTool("q", sdk.ToolDef{Parameters: map[string]any{
			"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}},
			"required": []string{"city"},
		}}, func(args map[string]any) (any, error) {
			got = append(got, args["city"].(string))
			return "sunny", nil
		})
	})
	if out := e.ask(t, "weather"); out.Text != "done" {
		t.Fatalf("%+v", out)
	}
	if len(got) != 1 || got[0] != "Beijing" {
		t.Fatalf("handler saw %v", got)
	}
	tm, _ := toolMessage(e.srv.Requests()[1].Messages, "c1")
	if !strings.Contains(tm["content"].(string), `field \"city\"`) {
		t.Fatalf("model got %v", tm["content"])
	}
}

func TestUnknownToolAndMalformedArguments(t *testing.T) {
	e := newEnv(t, Options{},
		llmtest.Reply{ToolCalls: []llmtest.Call{
			{ID: "c1", Name: "nope__x", Arguments: `{}`},
			{ID: "c2", Name: "clock__now", Arguments: `{"zone": `},
		}},
		llmtest.Reply{Text: "ok"},
	)
	load(t, e.k, "clock", clockPlugin)
	if out := e.ask(t, "x"); out.Text != "ok" {
		t.Fatalf("%+v", out)
	}
	msgs := e.srv.Requests()[1].Messages
	m1, _ := toolMessage(msgs, "c1")
	m2, _ := toolMessage(msgs, "c2")
	if !strings.Contains(m1["content"].(string), "unknown tool") || !strings.Contains(m2["content"].(string), "not a JSON object") {
		t.Fatalf("results %v / %v", m1, m2)
	}
}

func TestConcurrentAndSerialTools(t *testing.T) {
	e := newEnv(t, Options{},
		llmtest.Reply{ToolCalls: []llmtest.Call{
			{Name: "p__a", Arguments: `{}`}, {Name: "p__b", Arguments: `{}`},
			{Name: "p__s1", Arguments: `{}`}, {Name: "p__s2", Arguments: `{}`},
		}},
		llmtest.Reply{Text: "ok"},
	)
	var mu sync.Mutex
	var order []string
	var serialActive atomic.Int32
	release := make(chan struct{})
	var started sync.WaitGroup
	started.Add(2)
	load(t, e.k, "p", func(s *sdk.PluginSDK) error {
		parallel := func(name string) {
			_ = s.RegisterToolContext(name, sdk.ToolDef{}, func(ctx context.Context, _ *sdk.ToolContext, _ map[string]any) (any, error) {
				started.Done()
				<-release // both must be running at once to get past here
				return name, nil
			})
		}
		parallel("a")
		parallel("b")
		serial := func(name string) {
			_ = s.RegisterToolContext(name, sdk.ToolDef{Serial: true}, func(context.Context, *sdk.ToolContext, map[string]any) (any, error) {
				if n := serialActive.Add(1); n > 1 {
					t.Errorf("serial tools overlapped")
				}
				// Not synchronisation: the window in which a second
				// serial tool, were it let in, would be seen overlapping.
				time.Sleep(5 * time.Millisecond)
				mu.Lock()
				order = append(order, name)
				mu.Unlock()
				serialActive.Add(-1)
				return name, nil
			})
		}
		serial("s1")
		serial("s2")
		return nil
	})
	go func() { started.Wait(); close(release) }()
	if out := e.ask(t, "go"); out.Text != "ok" {
		t.Fatalf("%+v", out)
	}
	if strings.Join(order, ",") != "s1,s2" {
		t.Fatalf("serial order %v", order)
	}
}

func TestStepCapForcesAnAnswer(t *testing.T) {
	loop := llmtest.Reply{ToolCalls: []llmtest.Call{{Name: "clock__now", Arguments: `{}`}}}
	e := newEnv(t, Options{MaxSteps: 3}, loop, loop, llmtest.Reply{Text: "giving up"})
	load(t, e.k, "clock", clockPlugin)
	if out := e.ask(t, "loop"); out.Text != "giving up" {
		t.Fatalf("%+v", out)
	}
	reqs := e.srv.Requests()
	if len(reqs) != 3 || len(reqs[2].Tools) != 0 || len(reqs[1].Tools) != 1 {
		t.Fatalf("%d requests; tools on last: %d", len(reqs), len(reqs[len(reqs)-1].Tools))
	}
}

func TestInterruptCancelsStreamAndIsAnsweredNext(t *testing.T) {
	hung, inFlight := hang()
	e := newEnv(t, Options{},
		hung,
		llmtest.Reply{Text: "answer to the interrupt"},
		llmtest.Reply{Text: "answer to the queued one"},
	)
	var mu sync.Mutex
	var events []Event
	e.k.SetSink("test", func(_ sdk.Injection, ev Event) {
		mu.Lock()
		events = append(events, ev)
		mu.Unlock()
	})
	first := e.k.Submit(Input{Injection: sdk.Injection{Channel: "test", Text: "long question"},
		OnEvent: func(ev Event) { mu.Lock(); events = append(events, ev); mu.Unlock() }})
	<-inFlight
	queued := e.k.Submit(Input{Injection: sdk.Injection{Channel: "test", Text: "queued"}})
	e.k.SetCapabilities("timer", []string{sdk.CapabilityInjectChannels})
	s := host.New("timer", e.k)
	s.InjectInterruptText("timer", "test", "urgent")

	out1 := <-first
	if !out1.Interrupted || !errors.Is(out1.Err, ErrInterrupted) {
		t.Fatalf("first outcome %+v", out1)
	}
	if out := <-queued; out.Text != "answer to the queued one" {
		t.Fatalf("queued outcome %+v", out)
	}
	reqs := e.srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	lastUser := func(r llmtest.Request) any { return r.Messages[len(r.Messages)-1]["content"] }
	if lastUser(reqs[1]) != "[message from plugin timer] urgent" || lastUser(reqs[2]) != "queued" {
		t.Fatalf("order: %v then %v", lastUser(reqs[1]), lastUser(reqs[2]))
	}
	mu.Lock()
	defer mu.Unlock()
	var sawInterrupted, sawUrgentAnswer bool
	for _, ev := range events {
		sawInterrupted = sawInterrupted || ev.Kind == EventInterrupted
		sawUrgentAnswer = sawUrgentAnswer || (ev.Kind == EventFinal && ev.Text == "answer to the interrupt")
	}
	if !sawInterrupted || !sawUrgentAnswer {
		t.Fatalf("events %+v", events)
	}
}

func TestNoMemoryInputIsNotRemembered(t *testing.T) {
	e := newEnv(t, Options{}, llmtest.Reply{Text: "noted"}, llmtest.Reply{Text: "hello"})
	e.k.SetCapabilities("p", []string{sdk.CapabilityInjectChannels})
	s := host.New("p", e.k)
	s.InjectTextNoMemory("p", "test", "[browser navigated]")
	out := e.ask(t, "hi") // queued behind the injection, same session
	if out.Text != "hello" {
		t.Fatalf("%+v", out)
	}
	msgs := e.srv.Requests()[1].Messages
	for _, m := range msgs {
		if m["content"] == "[browser navigated]" || m["content"] == "noted" {
			t.Fatalf("no-memory exchange in history: %v", msgs)
		}
	}
}

func TestProviderErrorKeepsUserMessage(t *testing.T) {
	e := newEnv(t, Options{}, llmtest.Reply{Status: 401, ErrorMessage: "invalid key"}, llmtest.Reply{Text: "ok"})
	out := e.ask(t, "first")
	if !errors.Is(out.Err, llm.ErrAuth) {
		t.Fatalf("%+v", out)
	}
	e.ask(t, "second")
	msgs := e.srv.Requests()[1].Messages
	if msgs[1]["content"] != "first" {
		t.Fatalf("the failed turn's message was lost: %v", msgs)
	}
}

func TestSessionsRunIndependently(t *testing.T) {
	hanging, inFlight := hang()
	e := newEnv(t, Options{}, hanging, llmtest.Reply{Text: "b answered"})
	ctx, cancel := context.WithCancel(context.Background())
	hung := make(chan Outcome, 1)
	go func() { hung <- e.k.Ask(ctx, Input{Injection: sdk.Injection{Channel: "a", Text: "hang"}}) }()
	<-inFlight
	out := e.k.Ask(context.Background(), Input{Injection: sdk.Injection{Channel: "b", Text: "hi"}})
	if out.Text != "b answered" {
		t.Fatalf("%+v", out)
	}
	cancel()
	if o := <-hung; !o.Interrupted {
		t.Fatalf("cancelled ask: %+v", o)
	}
}

func TestPluginStartFailureWithdrawsRegistrations(t *testing.T) {
	e := newEnv(t, Options{})
	err := e.k.LoadPlugin("bad", func(n string, _ map[string]any) (sdk.Plugin, error) {
		return pluginFunc{n, func(s *sdk.PluginSDK) error {
			_ = s.RegisterTool("t", sdk.ToolDef{}, func(map[string]any) (any, error) { return nil, nil })
			s.RegisterStage(sdk.StageOnInput, func(*sdk.StageContext) error { return nil })
			panic("boom")
		}}, nil
	}, nil)
	if err == nil || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("err = %v", err)
	}
	if _, ok := e.k.Tools().Lookup("bad__t"); ok || e.k.pipeline.Has(sdk.StageOnInput) {
		t.Fatal("a failed plugin's registrations remain")
	}
}

func TestFallbackSinkGetsUnclaimedChannels(t *testing.T) {
	e := newEnv(t, Options{}, llmtest.Reply{Text: "reminder answered"})
	got := make(chan sdk.Injection, 1)
	e.k.SetSink("", func(in sdk.Injection, ev Event) {
		if ev.Kind == EventFinal && ev.Text == "reminder answered" {
			got <- in
		}
	})
	host.New("memo", e.k).InjectInterruptText("memo", "memo", "check your memos")
	select {
	case in := <-got:
		if in.Channel != "plugin:memo" || in.Source != "memo" {
			t.Fatalf("routed %+v", in)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("fallback sink never called")
	}
}

// metaResult is a result with renderer metadata, as xbot's ToolResult.
type metaResult struct{}

func (metaResult) Text() string                      { return "diff applied" }
func (metaResult) IsError() bool                     { return false }
func (metaResult) ResultMetadata() map[string]string { return map[string]string{"diff": "-a\n+b"} }

func TestChannelScopedToolsAndMetadata(t *testing.T) {
	e := newEnv(t, Options{},
		llmtest.Reply{ToolCalls: []llmtest.Call{{ID: "e", Name: "ed__edit", Arguments: `{}`}}},
		llmtest.Reply{Text: "ok"},
		llmtest.Reply{Text: "elsewhere"},
	)
	load(t, e.k, "ed", func(s *sdk.PluginSDK) error {
		return s.RegisterTool("edit", sdk.ToolDef{Effect: sdk.EffectRead, Channels: []string{"a"}}, func(map[string]any) (any, error) {
			return metaResult{}, nil
		})
	})
	var meta map[string]string
	out := e.k.Ask(context.Background(), Input{Injection: sdk.Injection{Channel: "a", Text: "edit"}, OnEvent: func(ev Event) {
		if ev.Kind == EventToolEnd {
			meta = ev.Metadata
		}
	}})
	if out.Text != "ok" || meta["diff"] != "-a\n+b" {
		t.Fatalf("%+v, metadata %v", out, meta)
	}
	if got, _ := toolMessage(e.srv.Requests()[1].Messages, "e"); got["content"] != "diff applied" {
		t.Fatalf("model saw %v", got)
	}
	e.k.Ask(context.Background(), Input{Injection: sdk.Injection{Channel: "b", Text: "edit"}})
	if names := e.srv.Requests()[2].ToolNames(); len(names) != 0 {
		t.Fatalf("a channel-a tool was offered on channel b: %v", names)
	}
}

func TestIdleSessionsAreEvictedAndReloaded(t *testing.T) {
	e := newEnv(t, Options{MaxSessions: 4})
	e.srv.SetFallback(llmtest.Reply{Text: "ok"})
	for i := 0; i < 10; i++ {
		e.k.Ask(context.Background(), Input{Injection: sdk.Injection{Channel: "test", ChatID: fmt.Sprint(i), Text: fmt.Sprint("hello ", i)}})
	}
	e.k.mu.Lock()
	n := len(e.k.sessions)
	e.k.mu.Unlock()
	if n > 4 {
		t.Fatalf("%d sessions kept, want at most 4", n)
	}
	// Chat 0 was evicted; its history comes back from the store.
	e.srv.Push(llmtest.Reply{Text: "back"})
	if out := e.k.Ask(context.Background(), Input{Injection: sdk.Injection{Channel: "test", ChatID: "0", Text: "again"}}); out.Text != "back" {
		t.Fatalf("%+v", out)
	}
	reqs := e.srv.Requests()
	last := reqs[len(reqs)-1].Messages
	if last[1]["content"] != "hello 0" {
		t.Fatalf("history not reloaded: %v", last)
	}
}
