package tools

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/toolcall"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// call runs a call of the tool the model knows as name, as a turn does
// between its stages and its policy: toolcall.Tool.Call.
func call(t *testing.T, r *Registry, ctx context.Context, tc *sdk.ToolContext, name string, raw json.RawMessage) toolcall.Result {
	t.Helper()
	tool, ok := r.Lookup(name)
	if !ok {
		t.Fatalf("no tool %q", name)
	}
	return tool.Call(ctx, tc, raw)
}

func echo(_ context.Context, _ *sdk.ToolContext, args map[string]any, _ json.RawMessage) (any, error) {
	return args, nil
}

var citySchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"city": map[string]any{"type": "string"},
		"days": map[string]any{"type": "integer", "minimum": 1},
		"opts": map[string]any{"type": "object", "properties": map[string]any{
			"unit": map[string]any{"type": "string", "enum": []any{"c", "f"}},
		}},
	},
	"required": []string{"city"},
}

func TestRegisterNames(t *testing.T) {
	r := NewRegistry()
	tests := []struct {
		plugin, tool string
		want         error
	}{
		{"weather", "query", nil},
		{"weather", "query", ErrDuplicate},
		{"weather", "bad name", ErrInvalidName},
		{"weather", "", ErrInvalidName},
		{"bad__plugin", "x", ErrInvalidName},
		{"weather", strings.Repeat("x", 60), ErrInvalidName},
		{"天气", "query", ErrInvalidName},
	}
	for _, tt := range tests {
		_, err := r.Register(tt.plugin, sdk.ToolDef{Name: tt.tool}, echo)
		if !errors.Is(err, tt.want) {
			t.Errorf("Register(%q, %q) = %v, want %v", tt.plugin, tt.tool, err, tt.want)
		}
	}
	if r.Len() != 1 {
		t.Fatalf("Len = %d, want 1", r.Len())
	}
}

func TestRegisterRejectsBadSchema(t *testing.T) {
	r := NewRegistry()
	for _, params := range []map[string]any{
		{"type": "string"},
		{"type": "object", "properties": map[string]any{"a": map[string]any{"type": 7}}},
	} {
		if _, err := r.Register("p", sdk.ToolDef{Name: "t", Parameters: params}, echo); !errors.Is(err, ErrBadSchema) {
			t.Errorf("Register with %v = %v, want ErrBadSchema", params, err)
		}
	}
}

func TestListSortedAndRemove(t *testing.T) {
	r := NewRegistry()
	for _, n := range []struct{ p, t string }{{"zeta", "a"}, {"alpha", "z"}, {"alpha", "b"}, {"mid", "m"}} {
		if _, err := r.Register(n.p, sdk.ToolDef{Name: n.t}, echo); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	for _, tl := range r.List() {
		got = append(got, tl.Name)
	}
	want := "alpha__b alpha__z mid__m zeta__a"
	if strings.Join(got, " ") != want {
		t.Fatalf("List = %v, want %s", got, want)
	}
	if n := r.RemovePlugin("alpha"); n != 2 {
		t.Fatalf("RemovePlugin = %d, want 2", n)
	}
	if _, ok := r.Lookup("alpha__b"); ok {
		t.Fatal("alpha__b still registered after RemovePlugin")
	}
	if len(r.List()) != 2 {
		t.Fatalf("List after remove has %d tools, want 2", len(r.List()))
	}
}

func TestInvalidArgumentsNeverReachHandler(t *testing.T) {
	r := NewRegistry()
	var calls atomic.Int32
	_, err := r.Register("weather", sdk.ToolDef{Name: "query", Parameters: citySchema},
		func(context.Context, *sdk.ToolContext, map[string]any, json.RawMessage) (any, error) {
			calls.Add(1)
			return "ok", nil
		})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args, wantInError string
	}{
		{`{"city": 3}`, `field \"city\"`},
		{`{}`, `city`},
		{`{"city": "x", "days": 0}`, `field \"days\"`},
		{`{"city": "x", "days": 1.5}`, `field \"days\"`},
		{`{"city": "x", "opts": {"unit": "k"}}`, `field \"opts.unit\"`},
		{`[1,2]`, `not a JSON object`},
		{`{"city": `, `not a JSON object`},
	}
	for _, tt := range tests {
		res := call(t, r, context.Background(), &sdk.ToolContext{}, "weather__query", json.RawMessage(tt.args))
		if !res.IsError || !errors.Is(res.Err, toolcall.ErrInvalidArguments) {
			t.Errorf("args %s: got %+v, want invalid-arguments error", tt.args, res)
			continue
		}
		if !strings.Contains(res.Content, tt.wantInError) {
			t.Errorf("args %s: content %s does not contain %s", tt.args, res.Content, tt.wantInError)
		}
		if !json.Valid([]byte(res.Content)) {
			t.Errorf("args %s: content is not JSON: %s", tt.args, res.Content)
		}
	}
	if n := calls.Load(); n != 0 {
		t.Fatalf("handler called %d times with invalid arguments", n)
	}
	res := call(t, r, context.Background(), &sdk.ToolContext{}, "weather__query", json.RawMessage(`{"city":"北京","days":2}`))
	if res.IsError || res.Content != "ok" || calls.Load() != 1 {
		t.Fatalf("valid call: %+v, calls %d", res, calls.Load())
	}
}

// registerKinds are the two ways a tool is registered: its calls run on
// a goroutine of their own, or (Prompt) on the caller's. Tests of what a
// call does run on both.
var registerKinds = []struct {
	name     string
	register func(*Registry, string, sdk.ToolDef, sdk.RawToolHandler) (*Tool, error)
}{
	{"goroutine", (*Registry).Register},
	{"prompt", (*Registry).RegisterPrompt},
}

func TestTimeoutEndsHandlerGoroutine(t *testing.T) {
	for _, kind := range registerKinds {
		t.Run(kind.name, func(t *testing.T) {
			r := NewRegistry()
			ended := make(chan struct{})
			_, err := kind.register(r, "slow", sdk.ToolDef{Name: "sleep", Timeout: 20 * time.Millisecond},
				func(ctx context.Context, _ *sdk.ToolContext, _ map[string]any, _ json.RawMessage) (any, error) {
					defer close(ended)
					select {
					case <-time.After(time.Minute):
						return "woke", nil
					case <-ctx.Done():
						return nil, ctx.Err()
					}
				})
			if err != nil {
				t.Fatal(err)
			}
			res := call(t, r, context.Background(), &sdk.ToolContext{}, "slow__sleep", nil)
			if !res.IsError || !errors.Is(res.Err, toolcall.ErrTimeout) || !strings.Contains(res.Content, "timed out") {
				t.Fatalf("got %+v, want timeout error result", res)
			}
			<-ended // the handler saw its deadline; goleak checks nothing else is left
		})
	}
}

func TestCancellationReachesHandler(t *testing.T) {
	for _, kind := range registerKinds {
		t.Run(kind.name, func(t *testing.T) {
			r := NewRegistry()
			started := make(chan struct{})
			sawCancel := make(chan error, 1)
			_, err := kind.register(r, "p", sdk.ToolDef{Name: "wait"},
				func(ctx context.Context, _ *sdk.ToolContext, _ map[string]any, _ json.RawMessage) (any, error) {
					close(started)
					<-ctx.Done()
					sawCancel <- ctx.Err()
					return nil, ctx.Err()
				})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			go func() { <-started; cancel() }()
			res := call(t, r, ctx, &sdk.ToolContext{}, "p__wait", nil)
			if !res.IsError || !errors.Is(res.Err, context.Canceled) {
				t.Fatalf("got %+v", res)
			}
			if err := <-sawCancel; !errors.Is(err, context.Canceled) {
				t.Fatalf("handler saw %v", err)
			}
		})
	}
}

func TestPanicBecomesErrorResult(t *testing.T) {
	for _, kind := range registerKinds {
		t.Run(kind.name, func(t *testing.T) {
			r := NewRegistry()
			_, err := kind.register(r, "p", sdk.ToolDef{Name: "boom"},
				func(context.Context, *sdk.ToolContext, map[string]any, json.RawMessage) (any, error) {
					var m map[string]int
					m["x"] = 1 // nil map write
					return nil, nil
				})
			if err != nil {
				t.Fatal(err)
			}
			res := call(t, r, context.Background(), &sdk.ToolContext{}, "p__boom", nil)
			if !res.IsError || !errors.Is(res.Err, toolcall.ErrPanic) {
				t.Fatalf("got %+v", res)
			}
			if strings.Contains(res.Content, "goroutine") {
				t.Fatalf("stack trace leaked to the model: %s", res.Content)
			}
		})
	}
}

type flagged struct {
	Msg string `json:"msg"`
	bad bool
}

func (f flagged) IsError() bool { return f.bad }

func TestEncode(t *testing.T) {
	tests := []struct {
		name    string
		v       any
		content string
		isError bool
	}{
		{"string", "晴 25°C", "晴 25°C", false},
		{"nil", nil, "null", false},
		{"map", map[string]any{"temp": 25, "weather": "晴"}, `{"temp":25,"weather":"晴"}`, false},
		{"isError map", map[string]any{"isError": true, "content": "城市不存在"}, `{"content":"城市不存在","isError":true}`, true},
		{"isError false", map[string]any{"isError": false}, `{"isError":false}`, false},
		{"raw json", json.RawMessage(`{"a":1}`), `{"a":1}`, false},
		{"struct", struct {
			A int `json:"a"`
		}{2}, `{"a":2}`, false},
		{"error reporter", flagged{Msg: "no", bad: true}, `{"msg":"no"}`, true},
		{"slice", []string{"a", "b"}, `["a","b"]`, false},
	}
	for _, tt := range tests {
		r := toolcall.Encode(tt.v)
		if r.Content != tt.content || r.IsError != tt.isError {
			t.Errorf("%s: toolcall.Encode = (%s, %v), want (%s, %v)", tt.name, r.Content, r.IsError, tt.content, tt.isError)
		}
	}
	if r := toolcall.Encode(make(chan int)); !r.IsError || !json.Valid([]byte(r.Content)) {
		t.Errorf("unencodable value: %+v", r)
	}
}

func TestHandlerErrorIsErrorResult(t *testing.T) {
	r := NewRegistry()
	_, _ = r.Register("p", sdk.ToolDef{Name: "fail"}, func(context.Context, *sdk.ToolContext, map[string]any, json.RawMessage) (any, error) {
		return nil, errors.New("城市不存在")
	})
	res := call(t, r, context.Background(), &sdk.ToolContext{}, "p__fail", nil)
	if !res.IsError || res.Content != `{"error":"城市不存在"}` {
		t.Fatalf("got %+v", res)
	}
}

func TestOversizedArgumentsNeverReachHandler(t *testing.T) {
	r := NewRegistry()
	var calls atomic.Int32
	handler := func(context.Context, *sdk.ToolContext, map[string]any, json.RawMessage) (any, error) {
		calls.Add(1)
		return "ok", nil
	}
	if _, err := r.Register("files", sdk.ToolDef{Name: "write"}, handler); err != nil {
		t.Fatal(err)
	}
	huge := json.RawMessage(`{"text":"` + strings.Repeat("a", toolcall.MaxArgumentBytes) + `"}`)
	res := call(t, r, context.Background(), &sdk.ToolContext{}, "files__write", huge)
	if !res.IsError || !errors.Is(res.Err, toolcall.ErrTooLarge) || !errors.Is(res.Err, toolcall.ErrInvalidArguments) ||
		!strings.Contains(res.Content, "over the limit of 1048576 bytes") {
		t.Fatalf("got error %v, content %.200s", res.Err, res.Content)
	}
	tool, _ := r.Lookup("files__write")
	if res := tool.Invoke(context.Background(), &sdk.ToolContext{}, map[string]any{}, huge); !errors.Is(res.Err, toolcall.ErrTooLarge) {
		t.Fatalf("Invoke ran oversized arguments: %+v", res.Err)
	}
	if _, _, err := toolcall.DecodeArguments(huge); !errors.Is(err, toolcall.ErrTooLarge) {
		t.Fatalf("toolcall.DecodeArguments: %v", err)
	}
	if calls.Load() != 0 {
		t.Fatalf("handler called %d times", calls.Load())
	}
	if res := call(t, r, context.Background(), &sdk.ToolContext{}, "files__write", json.RawMessage(`{"text":"a"}`)); res.IsError {
		t.Fatalf("small call: %+v", res)
	}
}

func TestOversizedResultBecomesErrorResult(t *testing.T) {
	r := NewRegistry()
	for name, v := range map[string]any{
		"text":   strings.Repeat("x", toolcall.MaxResultBytes+1),
		"object": map[string]any{"rows": strings.Repeat("y", toolcall.MaxResultBytes)},
	} {
		if _, err := r.Register("big", sdk.ToolDef{Name: name}, func(context.Context, *sdk.ToolContext, map[string]any, json.RawMessage) (any, error) {
			return v, nil
		}); err != nil {
			t.Fatal(err)
		}
		res := call(t, r, context.Background(), &sdk.ToolContext{}, "big__"+name, nil)
		if !res.IsError || !errors.Is(res.Err, toolcall.ErrTooLarge) || len(res.Content) > 1000 ||
			!strings.Contains(res.Content, "over the limit of 1048576 bytes") || !json.Valid([]byte(res.Content)) {
			t.Fatalf("%s: error %v, content %.300s", name, res.Err, res.Content)
		}
	}
	if res := toolcall.Encode(strings.Repeat("z", toolcall.MaxResultBytes)); res.IsError {
		t.Fatal("a result of exactly the limit was refused")
	}
}

func TestCancelledCallNeverStarts(t *testing.T) {
	r := NewRegistry()
	var calls atomic.Int32
	if _, err := r.Register("p", sdk.ToolDef{Name: "x"}, func(context.Context, *sdk.ToolContext, map[string]any, json.RawMessage) (any, error) {
		calls.Add(1)
		return "ran", nil
	}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res := call(t, r, ctx, &sdk.ToolContext{}, "p__x", nil)
	if !res.IsError || !errors.Is(res.Err, context.Canceled) || !strings.Contains(res.Content, "was cancelled") || calls.Load() != 0 {
		t.Fatalf("got %+v, %d calls", res, calls.Load())
	}
}

func TestChangedClosesOnChange(t *testing.T) {
	r := NewRegistry()
	ch := r.Changed()
	select {
	case <-ch:
		t.Fatal("closed before any change")
	default:
	}
	h := func(context.Context, *sdk.ToolContext, map[string]any, json.RawMessage) (any, error) { return nil, nil }
	if _, err := r.Register("p", sdk.ToolDef{Name: "t"}, h); err != nil {
		t.Fatal(err)
	}
	<-ch // closed by the registration
	ch = r.Changed()
	if n := r.RemovePlugin("p"); n != 1 {
		t.Fatalf("removed %d", n)
	}
	<-ch
}
