package kernel

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/hearth-agent/hearth/internal/llm"
	"github.com/hearth-agent/hearth/internal/policy"
	"github.com/hearth-agent/hearth/internal/store"
	"github.com/hearth-agent/hearth/internal/tools"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/llmtest"
)

var benchSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"city":  map[string]any{"type": "string", "description": "城市名称"},
		"days":  map[string]any{"type": "integer", "minimum": 1, "maximum": 7},
		"units": map[string]any{"type": "string", "enum": []any{"c", "f"}},
	},
	"required": []string{"city"},
}

const benchArgs = `{"city":"北京","days":3,"units":"c"}`

var benchResult = map[string]any{"city": "北京", "temp": 25, "weather": "晴", "days": []any{"晴", "多云", "小雨"}}

// benchBudgets are the budgets of benchKernel's kernels (nil: none).
var benchBudgets *llm.Budgets

func benchKernel(b *testing.B, provider llm.Provider, st History, nTools int) *Kernel {
	// A window that takes every tool (1,000 take about 60k tokens).
	k := New(provider, st, &Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), ContextWindow: 1 << 20, Budgets: benchBudgets})
	b.Cleanup(func() { k.Close() })
	err := k.LoadPlugin("weather", func(n string, _ map[string]any) (sdk.Plugin, error) {
		return pluginFunc{n, func(s *sdk.PluginSDK) error {
			for i := 0; i < nTools; i++ {
				name := "query"
				if i > 0 {
					name = fmt.Sprintf("tool_%04d", i)
				}
				err := s.RegisterTool(name, sdk.ToolDef{Description: "查询天气", Parameters: benchSchema},
					func(map[string]any) (any, error) { return benchResult, nil })
				if err != nil {
					return err
				}
			}
			return nil
		}}, nil
	}, nil)
	if err != nil {
		b.Fatal(err)
	}
	return k
}

// BenchmarkToolCallPath is one in-process tool call through the whole
// host path: argument decoding, lookup, the before_toolcall and
// after_toolcall stage points (no handlers), validation, the policy hook
// point, dispatch with a deadline, and JSON encoding of the result.
func BenchmarkToolCallPath(b *testing.B) {
	call := toolCallPath(b)
	b.ReportAllocs()
	for b.Loop() {
		call()
	}
}

// BenchmarkToolCallBare is the floor for BenchmarkToolCallPath: decoding
// and validating the same arguments and encoding the same result, nothing
// else.
func BenchmarkToolCallBare(b *testing.B) {
	call := toolCallBare(b)
	b.ReportAllocs()
	for b.Loop() {
		call()
	}
}

// BenchmarkToolCallVsFloor measures the two above in alternating blocks
// of the same run, so a shared machine's drift falls on both, and reports
// each one's time per call and their ratio (issue 14's aim: at most 2).
func BenchmarkToolCallVsFloor(b *testing.B) {
	path, bare := toolCallPath(b), toolCallBare(b)
	const block = 200
	var inPath, inBare time.Duration
	calls := 0
	for b.Loop() {
		start := time.Now()
		for range block {
			path()
		}
		mid := time.Now()
		for range block {
			bare()
		}
		inPath, inBare = inPath+mid.Sub(start), inBare+time.Since(mid)
		calls += block
	}
	b.ReportMetric(float64(inPath.Nanoseconds())/float64(calls), "path-ns/call")
	b.ReportMetric(float64(inBare.Nanoseconds())/float64(calls), "floor-ns/call")
	b.ReportMetric(float64(inPath)/float64(inBare), "×floor")
}

// toolCallPath returns one call of BenchmarkToolCallPath.
func toolCallPath(b *testing.B) func() {
	k := benchKernel(b, nil, nil, 1)
	eng, err := policy.NewEngine(context.Background(), policy.DiscardStore{}, nil)
	if err != nil {
		b.Fatal(err)
	}
	k.cfg.Policy = eng
	t := &turnState{s: &session{key: sessionKey{"terminal", ""}}, emit: func(Event) {}, sc: &sdk.StageContext{},
		in: Input{Injection: sdk.Injection{Channel: "terminal"}}}
	wire := []llm.ToolCall{{ID: "c1", Type: "function", Function: llm.FunctionCall{Name: "weather__query", Arguments: benchArgs}}}
	t.offered = map[string]bool{"weather__query": true}
	ctx := context.Background()
	return func() {
		t.toolCalls = 0
		t.modelCalls(wire, k.tools) // as the turn does with the model's answer
		_, msgs := k.runToolCalls(ctx, t, t.sc.ToolCalls, "", "")
		if msgs[0].Content == "" {
			b.Fatal("no result")
		}
	}
}

// toolCallBare returns one call of BenchmarkToolCallBare.
func toolCallBare(b *testing.B) func() {
	r := tools.NewRegistry()
	tool, err := r.Register("weather", sdk.ToolDef{Name: "query", Parameters: benchSchema},
		func(context.Context, *sdk.ToolContext, map[string]any, json.RawMessage) (any, error) {
			return benchResult, nil
		})
	if err != nil {
		b.Fatal(err)
	}
	return func() {
		var args map[string]any
		if err := json.Unmarshal([]byte(benchArgs), &args); err != nil {
			b.Fatal(err)
		}
		if err := tool.Validate(args); err != nil {
			b.Fatal(err)
		}
		out, err := json.Marshal(benchResult)
		if err != nil || len(out) == 0 {
			b.Fatal(err)
		}
	}
}

// timedProvider measures the time spent inside the provider.
type timedProvider struct {
	inner llm.Provider
	mu    sync.Mutex
	spent time.Duration
}

func (p *timedProvider) Chat(ctx context.Context, req *llm.Request, onDelta func(llm.Delta)) (*llm.Response, error) {
	start := time.Now()
	resp, err := p.inner.Chat(ctx, req, onDelta)
	p.mu.Lock()
	p.spent += time.Since(start)
	p.mu.Unlock()
	return resp, err
}

func (p *timedProvider) take() time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	d := p.spent
	p.spent = 0
	return d
}

// instantProvider answers from memory: a tool call, then text.
type instantProvider struct{}

func (instantProvider) Chat(_ context.Context, req *llm.Request, onDelta func(llm.Delta)) (*llm.Response, error) {
	if req.Messages[len(req.Messages)-1].Role == "tool" {
		onDelta(llm.Delta{Content: "北京晴，25 度。"})
		return &llm.Response{Content: "北京晴，25 度。", FinishReason: "stop"}, nil
	}
	return &llm.Response{ToolCalls: []llm.ToolCall{{ID: "c1", Type: "function",
		Function: llm.FunctionCall{Name: "weather__query", Arguments: benchArgs}}}, FinishReason: "tool_calls"}, nil
}

// weatherTurn answers like instantProvider, over HTTP.
func weatherTurn(req llmtest.Request) llmtest.Reply {
	if req.Messages[len(req.Messages)-1]["role"] == "tool" {
		return llmtest.Reply{Text: "北京晴，25 度。"}
	}
	return llmtest.Reply{ToolCalls: []llmtest.Call{{ID: "c1", Name: "weather__query", Arguments: benchArgs}}}
}

// benchTurns runs b.N full turns (on_input to memory, one tool call, two
// model calls, nTools registered tools, history in SQLite) and reports the
// host's own time per turn, excluding the time spent inside the provider,
// as p50 and p99.
func benchTurns(b *testing.B, provider llm.Provider, nTools int) {
	st, err := store.Open(context.Background(), b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	tp := &timedProvider{inner: provider}
	k := benchKernel(b, tp, st, nTools)
	ctx := context.Background()
	in := Input{Injection: sdk.Injection{Channel: "bench", Text: "北京天气怎么样？"}}
	var host []time.Duration
	b.ReportAllocs()
	for b.Loop() {
		start := time.Now()
		out := k.Ask(ctx, in)
		total := time.Since(start)
		if out.Err != nil || out.Text == "" {
			b.Fatalf("turn failed: %+v", out)
		}
		host = append(host, total-tp.take())
	}
	slices.Sort(host)
	b.ReportMetric(float64(host[len(host)/2].Microseconds()), "host-p50-µs")
	b.ReportMetric(float64(host[len(host)*99/100].Microseconds()), "host-p99-µs")
}

// BenchmarkTurnLoopback uses a real OpenAI-compatible server on loopback.
func BenchmarkTurnLoopback(b *testing.B) {
	srv := llmtest.NewServer(b)
	srv.SetFallback(llmtest.Reply{Func: weatherTurn})
	benchTurns(b, &llm.Client{BaseURL: srv.URL, Model: "bench"}, 50)
}

// bigTools is the tool count of the *1000 benchmarks: 1,000 with
// HEARTH_BENCH_FULL=1, else 100 (CI runs them once under -race).
func bigTools() int {
	if os.Getenv("HEARTH_BENCH_FULL") == "1" {
		return 1000
	}
	return 100
}

// BenchmarkTurnLoopback1000 is BenchmarkTurnLoopback with 1,000 tools
// (see bigTools), all sent with each request.
func BenchmarkTurnLoopback1000(b *testing.B) {
	srv := llmtest.NewServer(b)
	srv.SetFallback(llmtest.Reply{Func: weatherTurn})
	benchTurns(b, &llm.Client{BaseURL: srv.URL, Model: "bench"}, bigTools())
}

// BenchmarkTurnInProcess1000 is BenchmarkTurnInProcess with 1,000 tools
// (see bigTools).
func BenchmarkTurnInProcess1000(b *testing.B) {
	benchTurns(b, instantProvider{}, bigTools())
}

// BenchmarkTurnInProcess uses a provider that answers from memory, so all
// measured time is the host's.
func BenchmarkTurnInProcess(b *testing.B) {
	benchTurns(b, instantProvider{}, 50)
}
