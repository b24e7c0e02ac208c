package kernel

import (
	"context"
	"encoding/json"
	"log/slog"
	"math"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/internal/llm"
	"github.com/hearth-agent/hearth/internal/policy"
	"github.com/hearth-agent/hearth/internal/store"
	"github.com/hearth-agent/hearth/internal/store/storetest"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/llmtest"
)

const traceKey = "sk-trace0123456789abcdefSECRET"

// traceEnv is a kernel calling srv through llm.Sources (a named source
// with a key and a price) and keeping traces in st.
func traceEnv(t *testing.T, st History, opts Options, replies ...llmtest.Reply) (*Kernel, *llmtest.Server, *logBuffer) {
	t.Helper()
	srv := llmtest.NewServer(t, replies...)
	src, err := llm.NewSources([]llm.Source{{Name: "fake", BaseURL: srv.URL, APIKey: traceKey, Model: "m1",
		Price: &llm.Price{Input: 1, Output: 2, CachedInput: 0.5}}}, "")
	if err != nil {
		t.Fatal(err)
	}
	logs := &logBuffer{}
	opts.Logger = slog.New(slog.NewTextHandler(logs, nil))
	k := New(src, st, &opts)
	t.Cleanup(func() { k.Close() })
	return k, srv, logs
}

func onlyTrace(t *testing.T, st *store.Store) store.Trace {
	t.Helper()
	list, err := st.Traces(context.Background(), store.TraceFilter{})
	if err != nil || len(list) != 1 {
		t.Fatalf("traces %+v, %v; want one", list, err)
	}
	return list[0]
}

// A turn with stages, two model calls and a tool call that needed
// approval leaves a trace of all of it, secrets masked.
func TestTraceRecordsTurn(t *testing.T) {
	st := openStore(t)
	k, _, _ := traceEnv(t, st, Options{},
		llmtest.Reply{Reasoning: "think", ToolCalls: []llmtest.Call{{ID: "c1", Name: "echo__say",
			Arguments: `{"text":"key ` + traceKey + `"}`}}, Usage: &llmtest.Usage{Prompt: 100, Completion: 20, Cached: 40}},
		llmtest.Reply{Text: "done", Usage: &llmtest.Usage{Prompt: 200, Completion: 10}},
	)
	eng, err := policy.NewEngine(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	eng.LocalChannels = append(eng.LocalChannels, "test")
	k.cfg.Policy = eng
	load(t, k, "echo", func(s *sdk.PluginSDK) error {
		return s.RegisterTool("say", sdk.ToolDef{Effect: sdk.EffectWrite, Parameters: map[string]any{"type": "object"}},
			func(args map[string]any) (any, error) {
				return "said " + args["text"].(string) + strings.Repeat("x", 10000), nil
			})
	})
	eng.SetDefaults("echo", map[sdk.Effect]sdk.Mode{sdk.EffectWrite: sdk.ModeAsk})
	onStage(t, k, "shout", sdk.StageOnInput, func(sc *sdk.StageContext) { sc.RawMessage += "!" })
	onStage(t, k, "watch", sdk.StageBeforeToolcall, func(*sdk.StageContext) {})
	ap := &approvals{next: []policy.Answer{policy.AllowOnce}}
	var finalTrace string
	out := k.Ask(context.Background(), Input{Injection: sdk.Injection{Channel: "test", ChatID: "c", UserID: "u",
		Text: "say my key " + traceKey}, Approver: ap.approver, OnEvent: func(ev Event) {
		if ev.Kind == EventFinal {
			finalTrace = ev.TraceID
		}
	}})
	if out.Err != nil || out.Text != "done" {
		t.Fatalf("outcome %+v", out)
	}

	tr := onlyTrace(t, st)
	if out.TraceID != tr.ID || finalTrace != tr.ID {
		t.Errorf("outcome names trace %q, the final event %q, stored %q", out.TraceID, finalTrace, tr.ID)
	}
	body, _ := json.Marshal(tr)
	if strings.Contains(string(body), traceKey) || strings.Contains(string(body), "0123456789abcdef") {
		t.Fatalf("the key is in the stored trace: %s", body)
	}
	sess, _ := st.FindSession(context.Background(), "test", "c")
	if tr.ID == "" || tr.SessionID != sess.ID || tr.Channel != "test" || tr.ChatID != "c" || tr.UserID != "u" ||
		tr.Outcome != store.TraceAnswered || tr.Answer != "done" || !strings.HasPrefix(tr.Input, "say my key ") ||
		tr.Ended.Before(tr.Started) {
		t.Errorf("trace header %+v", tr)
	}
	var stages []string
	for _, s := range tr.Stages {
		stages = append(stages, s.Stage+":"+strings.Join(s.Changed, ","))
	}
	if got := strings.Join(stages, " "); got != "on_input:raw_message before_toolcall:" {
		t.Errorf("stages %q", got)
	}
	if s := tr.Stages[1]; s.ToolPlugin != "echo" || s.CallID != "c1" || s.Handlers != 1 {
		t.Errorf("before_toolcall stage %+v", s)
	}
	if len(tr.ModelCalls) != 2 {
		t.Fatalf("model calls %+v", tr.ModelCalls)
	}
	m0, m1 := tr.ModelCalls[0], tr.ModelCalls[1]
	if m0.Source != "fake" || m0.Model == "" || m0.ToolCalls != 1 || m0.FirstTokenMS <= 0 || m0.FirstTokenMS > m0.DurationMS ||
		m0.Usage != (store.TraceUsage{InputTokens: 100, OutputTokens: 20, CachedTokens: 40}) || m0.Error != "" {
		t.Errorf("first model call %+v", m0)
	}
	near := func(c *store.TraceCost, want float64) bool {
		return c != nil && c.Currency == "USD" && math.Abs(c.Amount-want) < 1e-12
	}
	if !near(m0.Cost, 120e-6) || !near(m1.Cost, 220e-6) || !near(tr.Cost, 340e-6) {
		t.Errorf("costs %+v %+v %+v", m0.Cost, m1.Cost, tr.Cost)
	}
	if tr.Usage != (store.TraceUsage{InputTokens: 300, OutputTokens: 30, CachedTokens: 40}) {
		t.Errorf("usage %+v", tr.Usage)
	}
	if len(tr.ToolCalls) != 1 {
		t.Fatalf("tool calls %+v", tr.ToolCalls)
	}
	c := tr.ToolCalls[0]
	if c.CallID != "c1" || c.Name != "echo__say" || c.Plugin != "echo" || c.Outcome != "ok" || c.Decision != "allow" ||
		c.IsError || !c.Truncated || len(c.Result) != traceToolBytes || !strings.HasPrefix(c.Result, "said key ") ||
		!strings.Contains(c.Arguments, "text") || c.Effect != "write" || c.DecidedBy != "user" {
		c.Result = c.Result[:40]
		t.Errorf("tool call %+v", c)
	}
	if c.Approval == nil || c.Approval.Answer != "once" || c.Approval.AnsweredBy != "user" {
		t.Errorf("approval %+v", c.Approval)
	}
}

// A failing model call is in the trace with its error, the key masked.
func TestTraceRecordsProviderError(t *testing.T) {
	st := openStore(t)
	k, _, _ := traceEnv(t, st, Options{}, llmtest.Reply{Status: 400, ErrorMessage: "bad key " + traceKey})
	out := k.Ask(context.Background(), Input{Injection: sdk.Injection{Channel: "test", Text: "hi"}})
	if out.Err == nil {
		t.Fatal("no error")
	}
	tr := onlyTrace(t, st)
	if tr.Outcome != store.TraceError || tr.Error == "" || len(tr.ModelCalls) != 1 || !strings.Contains(tr.ModelCalls[0].Error, "bad key") {
		t.Fatalf("trace %+v", tr)
	}
	if strings.Contains(tr.ModelCalls[0].Error+tr.Error, traceKey) {
		t.Fatalf("the key is in the trace: %q", tr.ModelCalls[0].Error)
	}
}

// An interrupted model call is in the trace with its error.
func TestTraceInterruptedModelCall(t *testing.T) {
	st := openStore(t)
	hung, inFlight := hang()
	k, _, _ := traceEnv(t, st, Options{}, hung)
	done := k.Submit(Input{Injection: sdk.Injection{Channel: "test", Text: "long"}})
	<-inFlight
	k.Interrupt("test", "") // the stop button
	if out := <-done; !out.Interrupted {
		t.Fatalf("outcome %+v", out)
	}
	tr := onlyTrace(t, st)
	// Why it stopped, not "context canceled".
	if tr.Outcome != store.TraceInterrupted || len(tr.ModelCalls) != 1 || tr.ModelCalls[0].Error != ErrStopped.Error() ||
		tr.Error != ErrStopped.Error() {
		t.Fatalf("trace %+v", tr)
	}
}

// A turn interrupted while a tool runs is stored as interrupted, with the
// call it was in.
func TestTraceInterruptedDuringToolCall(t *testing.T) {
	st := openStore(t)
	k, _, _ := traceEnv(t, st, Options{}, llmtest.Reply{ToolCalls: []llmtest.Call{{ID: "w1", Name: "slow__wait"}}})
	running := make(chan struct{})
	load(t, k, "slow", func(s *sdk.PluginSDK) error {
		return sdk.AddTool(s, sdk.ToolDef{Name: "wait", Effect: sdk.EffectRead},
			func(ctx context.Context, _ *sdk.ToolContext, _ struct{}) (string, error) {
				close(running)
				<-ctx.Done()
				return "", ctx.Err()
			})
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := k.submit(ctx, Input{Injection: sdk.Injection{Channel: "test", Text: "wait"}})
	<-running
	cancel()
	if out := <-done; !out.Interrupted {
		t.Fatalf("outcome %+v", out)
	}
	tr := onlyTrace(t, st)
	if tr.Outcome != store.TraceInterrupted || len(tr.ToolCalls) != 1 || tr.ToolCalls[0].CallID != "w1" || !tr.ToolCalls[0].IsError {
		t.Fatalf("trace %+v", tr)
	}
}

// A trace that cannot be stored is logged; the turn answers.
func TestTraceSaveFailureDoesNotFailTheTurn(t *testing.T) {
	st := storetest.Open(t)
	st.FailAfter("SaveTrace", 0, nil)
	k, _, logs := traceEnv(t, st, Options{}, llmtest.Reply{Text: "fine"})
	out := k.Ask(context.Background(), Input{Injection: sdk.Injection{Channel: "test", Text: "hi"}})
	if out.Err != nil || out.Text != "fine" {
		t.Fatalf("outcome %+v", out)
	}
	if st.Calls("SaveTrace") != 1 || !strings.Contains(logs.String(), "saving the turn's trace failed") {
		t.Fatalf("%d saves; logs %s", st.Calls("SaveTrace"), logs)
	}
}

// NoTraces records nothing.
func TestNoTraces(t *testing.T) {
	st := openStore(t)
	k, _, _ := traceEnv(t, st, Options{NoTraces: true}, llmtest.Reply{Text: "fine"})
	if out := k.Ask(context.Background(), Input{Injection: sdk.Injection{Channel: "test", Text: "hi"}}); out.Err != nil {
		t.Fatal(out.Err)
	}
	if list, err := st.Traces(context.Background(), store.TraceFilter{}); err != nil || len(list) != 0 {
		t.Fatalf("traces %+v, %v", list, err)
	}
}

func openStore(t *testing.T) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}
