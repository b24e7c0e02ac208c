package llm

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hearth-agent/hearth/sdk/llmtest"
)

func client(srv *llmtest.Server) *Client {
	return &Client{BaseURL: srv.URL, APIKey: "sk-test", Model: "m", Backoff: time.Millisecond}
}

func TestStreamTextReasoningUsage(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Reply{
		Text: "你好，世界！今天天气不错。", Reasoning: "用户在打招呼，应当礼貌回应。",
		Usage: &llmtest.Usage{Prompt: 100, Completion: 20, Cached: 64},
	})
	var text, reasoning strings.Builder
	deltas := 0
	resp, err := client(srv).Chat(context.Background(), &Request{Messages: []Message{{Role: "user", Content: "hi"}}},
		func(d Delta) { deltas++; text.WriteString(d.Content); reasoning.WriteString(d.Reasoning) })
	if err != nil {
		t.Fatal(err)
	}
	if resp.Content != "你好，世界！今天天气不错。" || text.String() != resp.Content {
		t.Errorf("content %q, streamed %q", resp.Content, text.String())
	}
	if resp.Reasoning != "用户在打招呼，应当礼貌回应。" || reasoning.String() != resp.Reasoning {
		t.Errorf("reasoning %q, streamed %q", resp.Reasoning, reasoning.String())
	}
	if deltas < 4 {
		t.Errorf("got %d deltas, want the answer in several pieces", deltas)
	}
	want := Usage{PromptTokens: 100, CompletionTokens: 20, TotalTokens: 120, CachedTokens: 64}
	if resp.Usage != want {
		t.Errorf("usage %+v, want %+v", resp.Usage, want)
	}
	req := srv.Requests()[0]
	if req.Authorization != "Bearer sk-test" || req.Model != "m" || !req.Stream {
		t.Errorf("request %+v", req)
	}
}

func TestToolCallAssembly(t *testing.T) {
	calls := []llmtest.Call{
		{ID: "a", Name: "time__now", Arguments: `{"zone":"Asia/Shanghai"}`},
		{ID: "b", Name: "weather__query", Arguments: `{"city":"北京","days":3}`},
	}
	for _, tc := range []struct {
		name  string
		reply llmtest.Reply
	}{
		{"indexed", llmtest.Reply{ToolCalls: calls}},
		{"no index", llmtest.Reply{ToolCalls: calls, OmitIndex: true}},
		{"reused index", llmtest.Reply{ToolCalls: calls, ZeroIndex: true}},
		{"not streamed", llmtest.Reply{ToolCalls: calls, NoStream: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, tc.reply)
			resp, err := client(srv).Chat(context.Background(), &Request{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(resp.ToolCalls) != 2 {
				t.Fatalf("got %d calls: %+v", len(resp.ToolCalls), resp.ToolCalls)
			}
			for i, c := range calls {
				got := resp.ToolCalls[i]
				if got.ID != c.ID || got.Function.Name != c.Name || got.Function.Arguments != c.Arguments {
					t.Errorf("call %d = %+v, want %+v", i, got, c)
				}
			}
			if resp.FinishReason != "tool_calls" {
				t.Errorf("finish reason %q", resp.FinishReason)
			}
		})
	}
}

func TestAssemblerMissingIDs(t *testing.T) {
	a := newAssembler(0)
	zero := 0
	a.addToolCall(&toolCallDelta{Index: &zero, Function: struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	}{Name: "p__t", Arguments: `{"a"`}})
	a.addToolCall(&toolCallDelta{Function: struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	}{Arguments: `:1}`}})
	resp := a.finish()
	if len(resp.ToolCalls) != 1 || resp.ToolCalls[0].ID == "" || resp.ToolCalls[0].Function.Arguments != `{"a":1}` {
		t.Fatalf("got %+v", resp.ToolCalls)
	}
}

func TestRetryHonorsRetryAfter(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Reply{Status: http.StatusTooManyRequests, ErrorMessage: "slow down", RetryAfter: "0.05"},
		llmtest.Reply{Status: http.StatusServiceUnavailable, ErrorMessage: "busy"},
		llmtest.Reply{Text: "ok"},
	)
	start := time.Now()
	resp, err := client(srv).Chat(context.Background(), &Request{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Content != "ok" || len(srv.Requests()) != 3 {
		t.Fatalf("content %q after %d requests", resp.Content, len(srv.Requests()))
	}
	if waited := time.Since(start); waited < 50*time.Millisecond {
		t.Fatalf("retried after %v, before the 50ms Retry-After", waited)
	}
}

func TestRetryAfterTooLongFailsAtOnce(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Reply{Status: 429, ErrorMessage: "quota", RetryAfter: "3600"})
	_, err := client(srv).Chat(context.Background(), &Request{}, nil)
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.Status != 429 || len(srv.Requests()) != 1 {
		t.Fatalf("err %v after %d requests", err, len(srv.Requests()))
	}
}

func TestAuthErrorNotRetried(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Reply{Status: 401, ErrorMessage: "Authentication Fails, Your api key is invalid"})
	_, err := client(srv).Chat(context.Background(), &Request{}, nil)
	if !errors.Is(err, ErrAuth) || !strings.Contains(err.Error(), "api key is invalid") {
		t.Fatalf("err = %v", err)
	}
	if len(srv.Requests()) != 1 {
		t.Fatalf("auth failure retried: %d requests", len(srv.Requests()))
	}
}

func TestBadRequestShowsMessage(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Reply{Status: 400, ErrorMessage: "Model Not Exist"})
	_, err := client(srv).Chat(context.Background(), &Request{}, nil)
	if err == nil || !strings.Contains(err.Error(), "Model Not Exist") || len(srv.Requests()) != 1 {
		t.Fatalf("err = %v", err)
	}
}

// Cancelling once part of the answer has arrived ends the stream with
// the context's error. The server streams one piece of text and holds the
// stream open; the cancel comes from the delta callback, so the stream is
// surely in progress when it does.
func TestCancelDuringStream(t *testing.T) {
	clientGone := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, `data: {"choices":[{"index":0,"delta":{"role":"assistant","content":"part"}}]}`+"\n\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
		close(clientGone)
	}))
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var got strings.Builder
	c := &Client{BaseURL: srv.URL + "/v1", APIKey: "sk-test", Model: "m", Backoff: time.Millisecond}
	_, err := c.Chat(ctx, &Request{}, func(d Delta) { got.WriteString(d.Content); cancel() })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if got.String() != "part" {
		t.Fatalf("streamed %q before the cancel, want %q", got.String(), "part")
	}
	<-clientGone // the connection was closed, not left open
}

func TestUnreachableProvider(t *testing.T) {
	c := &Client{BaseURL: "http://127.0.0.1:1/v1", MaxRetries: -1}
	_, err := c.Chat(context.Background(), &Request{}, nil)
	if err == nil || !strings.Contains(err.Error(), "cannot reach the provider") {
		t.Fatalf("err = %v", err)
	}
}

func TestStreamErrorEvent(t *testing.T) {
	_, err := decodeStream(strings.NewReader("data: {\"error\":{\"message\":\"context too long\"}}\n\n"), nil)
	if err == nil || !strings.Contains(err.Error(), "context too long") {
		t.Fatalf("err = %v", err)
	}
}

func TestMessageMarshal(t *testing.T) {
	b, _ := Message{Role: "assistant", ToolCalls: []ToolCall{{ID: "x", Type: "function"}}}.MarshalJSON()
	if !strings.Contains(string(b), `"content":null`) {
		t.Errorf("tool-only assistant message: %s", b)
	}
	b, _ = Message{Role: "user", Content: "", Reasoning: "secret"}.MarshalJSON()
	if !strings.Contains(string(b), `"content":""`) || strings.Contains(string(b), "secret") {
		t.Errorf("user message: %s", b)
	}
}

// decodeStream reads a stream as Chat does, with the default limits.
func decodeStream(r io.Reader, onDelta func(Delta)) (*Response, error) {
	d := decoder{limit: DefaultMaxResponseBytes, maxLine: lineLimit(DefaultMaxResponseBytes), onDelta: onDelta,
		redact: func(s string) string { return s }}
	return d.stream(bufio.NewReader(r))
}

func FuzzDecodeStream(f *testing.F) {
	f.Add([]byte("data: {\"choices\":[{\"delta\":{\"content\":\"hi\"}}]}\n\ndata: [DONE]\n\n"))
	f.Add([]byte("data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"a\",\"function\":{\"name\":\"x\",\"arguments\":\"{\"}}]}}]}\n\n"))
	f.Add([]byte(": ping\r\ndata: {}\r\n\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		resp, err := decodeStream(strings.NewReader(string(data)), func(Delta) {})
		if err == nil && resp == nil {
			t.Fatal("nil response without error")
		}
	})
}

// Conversations at once keep their connections to the provider: a second
// round of 8 concurrent requests opens none (the default transport would
// keep only 2 and open 6 more, each a TCP and TLS handshake in real use).
func TestConcurrentRequestsReuseConnections(t *testing.T) {
	const n = 8
	var conns atomic.Int32
	gate := make(chan struct{})
	var inFlight sync.WaitGroup
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		inFlight.Done()
		<-gate // all n are in flight at once
		llmtest.SSE(w, `{"choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}`)
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	c := &Client{BaseURL: srv.URL + "/v1", Model: "m"}
	for round := range 2 {
		gate = make(chan struct{})
		inFlight.Add(n)
		var done sync.WaitGroup
		for range n {
			done.Add(1)
			go func() {
				defer done.Done()
				if _, err := c.Chat(context.Background(), &Request{Messages: []Message{{Role: "user", Content: "hi"}}}, nil); err != nil {
					t.Error(err)
				}
			}()
		}
		inFlight.Wait()
		close(gate)
		done.Wait()
		if got := conns.Load(); got != n {
			t.Fatalf("round %d: %d connections opened, want %d", round+1, got, n)
		}
	}
}
