package llm

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hearth-agent/hearth/internal/llm/anthropictest"
	"github.com/hearth-agent/hearth/sdk/llmtest"
)

func anthClient(url string) *Client {
	return &Client{BaseURL: url, APIKey: "sk-ant-test-0123456789", Model: "claude-test", API: APIAnthropic, Backoff: time.Millisecond}
}

var weatherTool = NewToolSpec("weather__now", "The weather now.", json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}}}`))

// jsonOf re-encodes v, for comparing parts of a recorded request.
func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestAnthropicStreamTextThinkingUsage(t *testing.T) {
	srv := anthropictest.NewServer(t, anthropictest.Reply{Thinking: "Let me think it over.", Text: "Hello from Claude.",
		Usage: anthropictest.Usage{Input: 20, Output: 9, CacheRead: 1000, CacheWrite: 300}})
	var text, reasoning strings.Builder
	deltas := 0
	resp, err := anthClient(srv.URL).Chat(context.Background(), &Request{Messages: []Message{
		{Role: "system", Content: "You are Hearth."},
		{Role: "user", Content: "hi"},
	}}, func(d Delta) {
		deltas++
		text.WriteString(d.Content)
		reasoning.WriteString(d.Reasoning)
	})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Content != "Hello from Claude." || resp.Reasoning != "Let me think it over." || text.String() != resp.Content ||
		reasoning.String() != resp.Reasoning || deltas != 6 {
		t.Fatalf("resp %+v, streamed %q / %q in %d deltas", resp, text.String(), reasoning.String(), deltas)
	}
	want := Usage{PromptTokens: 1320, CompletionTokens: 9, TotalTokens: 1329, CachedTokens: 1000, CacheWriteTokens: 300}
	if resp.Usage != want || resp.FinishReason != "stop" || resp.Model != "claude-test" {
		t.Fatalf("usage %+v, finish %q, model %q", resp.Usage, resp.FinishReason, resp.Model)
	}
	if string(resp.ThinkingBlocks) != `[{"type":"thinking","thinking":"Let me think it over.","signature":"sig-0"}]` {
		t.Fatalf("thinking blocks %s", resp.ThinkingBlocks)
	}
	req := srv.Requests()[0]
	if req.Path != "/v1/messages" || req.APIKey != "sk-ant-test-0123456789" || req.Version != AnthropicVersion || req.Bearer != "" {
		t.Fatalf("path %q, key %q, version %q, bearer %q", req.Path, req.APIKey, req.Version, req.Bearer)
	}
	if got := jsonOf(t, req.Body["system"]); got != `[{"cache_control":{"type":"ephemeral"},"text":"You are Hearth.","type":"text"}]` {
		t.Fatalf("system %s", got)
	}
	if req.Body["model"] != "claude-test" || req.Body["stream"] != true || req.Body["max_tokens"] != float64(DefaultAnthropicMaxTokens) ||
		req.Body["thinking"] != nil {
		t.Fatalf("body %s", req.Raw)
	}
	if got := jsonOf(t, req.Messages()); got != `[{"content":[{"cache_control":{"type":"ephemeral"},"text":"hi","type":"text"}],"role":"user"}]` {
		t.Fatalf("messages %s", got)
	}
}

// A base URL with /v1, as OpenAI-style base URLs are written, reaches the
// same endpoint.
func TestAnthropicBaseURLWithVersion(t *testing.T) {
	srv := anthropictest.NewServer(t, anthropictest.Reply{Text: "ok"})
	if _, err := anthClient(srv.URL+"/v1/").Chat(context.Background(), &Request{Messages: []Message{{Role: "user", Content: "hi"}}}, nil); err != nil {
		t.Fatal(err)
	}
	if p := srv.Requests()[0].Path; p != "/v1/messages" {
		t.Fatalf("path %q", p)
	}
}

// A turn with tool calls: the calls stream in as input_json deltas; sent
// back, each tool_use is answered by its tool_result in one user message,
// the tools go as input_schema, and the cache breakpoints sit at the end
// of the tools, the system prompt, the previous call's prefix and the
// request.
func TestAnthropicToolCallRoundTrip(t *testing.T) {
	srv := anthropictest.NewServer(t,
		anthropictest.Reply{Text: "Checking.", ToolCalls: []anthropictest.Call{
			{ID: "toolu_a", Name: "weather__now", Input: `{"city":"Paris"}`},
			{ID: "toolu_b", Name: "weather__now", Input: `{"city":"Rome"}`},
		}},
		anthropictest.Reply{Text: "Sunny in both."},
	)
	c := anthClient(srv.URL)
	msgs := []Message{{Role: "system", Content: "sys"}, {Role: "user", Content: "weather?"}}
	req := &Request{Messages: msgs, Tools: []ToolSpec{weatherTool}}
	resp, err := c.Chat(context.Background(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.ToolCalls) != 2 || resp.FinishReason != "tool_calls" ||
		resp.ToolCalls[0] != (ToolCall{ID: "toolu_a", Type: "function", Function: FunctionCall{Name: "weather__now", Arguments: `{"city":"Paris"}`}}) ||
		resp.ToolCalls[1].ID != "toolu_b" || resp.ToolCalls[1].Function.Arguments != `{"city":"Rome"}` {
		t.Fatalf("calls %+v, finish %q", resp.ToolCalls, resp.FinishReason)
	}
	msgs = append(msgs, Message{Role: "assistant", Content: resp.Content, ToolCalls: resp.ToolCalls},
		Message{Role: "tool", ToolCallID: "toolu_a", Content: "sunny, 21C"},
		Message{Role: "tool", ToolCallID: "toolu_b", Content: "sunny, 25C"},
		Message{Role: "user", Images: []Image{{MIMEType: "image/png", Data: []byte("PNG")}}})
	resp, err = c.Chat(context.Background(), &Request{Messages: msgs, Tools: []ToolSpec{weatherTool}}, nil)
	if err != nil || resp.Content != "Sunny in both." {
		t.Fatalf("resp %+v, err %v", resp, err)
	}
	second := srv.Requests()[1]
	if got := jsonOf(t, second.Tools()); got != `[{"cache_control":{"type":"ephemeral"},"description":"The weather now.",`+
		`"input_schema":{"properties":{"city":{"type":"string"}},"type":"object"},"name":"weather__now"}]` {
		t.Fatalf("tools %s", got)
	}
	want := `[{"content":[{"cache_control":{"type":"ephemeral"},"text":"weather?","type":"text"}],"role":"user"},` +
		`{"content":[{"text":"Checking.","type":"text"},` +
		`{"id":"toolu_a","input":{"city":"Paris"},"name":"weather__now","type":"tool_use"},` +
		`{"id":"toolu_b","input":{"city":"Rome"},"name":"weather__now","type":"tool_use"}],"role":"assistant"},` +
		`{"content":[{"content":"sunny, 21C","tool_use_id":"toolu_a","type":"tool_result"},` +
		`{"content":"sunny, 25C","tool_use_id":"toolu_b","type":"tool_result"},` +
		`{"cache_control":{"type":"ephemeral"},"source":{"data":"UE5H","media_type":"image/png","type":"base64"},"type":"image"}],"role":"user"}]`
	if got := jsonOf(t, second.Messages()); got != want {
		t.Fatalf("messages\n got %s\nwant %s", got, want)
	}
	// The prefix the first call sent is the second's, byte for byte, up
	// to its last message (where the first call's breakpoint was).
	first := srv.Requests()[0].Raw
	cut := bytes.Index(first, []byte(`"text":"weather?"`))
	if cut < 0 || !bytes.Equal(first[:cut], second.Raw[:cut]) {
		t.Fatalf("the prefix changed between calls:\n%s\n%s", first, second.Raw)
	}
}

// Tool specs are encoded once for the Anthropic wire too: two requests
// carry identical bytes, and a changed description is encoded afresh.
func TestAnthropicToolSpecEncodedOnce(t *testing.T) {
	a, err := weatherTool.anthropicJSON()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := weatherTool.anthropicJSON()
	if &a[0] != &b[0] {
		t.Fatal("the spec was encoded again")
	}
	changed := weatherTool
	changed.Function.Description = "Now with wind."
	c, _ := changed.anthropicJSON()
	if !strings.Contains(string(c), "Now with wind.") || strings.Contains(string(a), "wind") {
		t.Fatalf("changed spec %s, cached %s", c, a)
	}
	none := NewToolSpec("ping", "", nil)
	d, _ := none.anthropicJSON()
	if string(d) != `{"name":"ping","input_schema":{"type":"object"}}` {
		t.Fatalf("spec without parameters %s", d)
	}
}

// Thinking is asked for with its budget; the thinking that came before
// tool calls goes back first in the assistant message, as Anthropic
// requires; without it, thinking is not asked for rather than refused.
func TestAnthropicThinkingSentBack(t *testing.T) {
	srv := anthropictest.NewServer(t,
		anthropictest.Reply{Thinking: "Need the weather.", ToolCalls: []anthropictest.Call{{ID: "toolu_1", Name: "weather__now", Input: `{"city":"Oslo"}`}}},
		anthropictest.Reply{Text: "Cold."},
		anthropictest.Reply{Text: "Cold still."},
	)
	c := anthClient(srv.URL)
	c.ThinkingBudget = 2048
	msgs := []Message{{Role: "user", Content: "weather in Oslo?"}}
	resp, err := c.Chat(context.Background(), &Request{Messages: msgs, Tools: []ToolSpec{weatherTool}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	body := srv.Requests()[0].Body
	if jsonOf(t, body["thinking"]) != `{"budget_tokens":2048,"type":"enabled"}` || body["max_tokens"] != float64(DefaultAnthropicMaxTokens) {
		t.Fatalf("thinking %v, max_tokens %v", body["thinking"], body["max_tokens"])
	}
	call := Message{Role: "assistant", ToolCalls: resp.ToolCalls, ThinkingBlocks: resp.ThinkingBlocks}
	result := Message{Role: "tool", ToolCallID: "toolu_1", Content: "-3C"}
	if _, err := c.Chat(context.Background(), &Request{Messages: append(msgs, call, result)}, nil); err != nil {
		t.Fatal(err)
	}
	second := srv.Requests()[1]
	content := second.Messages()[1]["content"].([]any)
	if jsonOf(t, content[0]) != `{"signature":"sig-0","thinking":"Need the weather.","type":"thinking"}` || second.Body["thinking"] == nil {
		t.Fatalf("assistant content %s, thinking %v", jsonOf(t, content), second.Body["thinking"])
	}
	call.ThinkingBlocks = nil // as from history, where thinking is not kept
	if _, err := c.Chat(context.Background(), &Request{Messages: append(msgs, call, result)}, nil); err != nil {
		t.Fatal(err)
	}
	if third := srv.Requests()[2].Body; third["thinking"] != nil {
		t.Fatalf("thinking asked for without the thinking blocks: %v", third["thinking"])
	}
}

func TestAnthropicWholeAnswer(t *testing.T) {
	srv := anthropictest.NewServer(t, anthropictest.Reply{NoStream: true, Text: "whole", ToolCalls: []anthropictest.Call{{ID: "t1", Name: "x", Input: `{"a":1}`}},
		Usage: anthropictest.Usage{Input: 5, Output: 2, CacheRead: 10}})
	var streamed string
	resp, err := anthClient(srv.URL).Chat(context.Background(), &Request{Messages: []Message{{Role: "user", Content: "hi"}}},
		func(d Delta) { streamed += d.Content })
	if err != nil {
		t.Fatal(err)
	}
	if resp.Content != "whole" || streamed != "whole" || len(resp.ToolCalls) != 1 || resp.ToolCalls[0].Function.Arguments != `{"a":1}` ||
		resp.Usage != (Usage{PromptTokens: 15, CompletionTokens: 2, TotalTokens: 17, CachedTokens: 10}) {
		t.Fatalf("resp %+v", resp)
	}
}

func TestAnthropic429RetryAfterHonoured(t *testing.T) {
	srv := anthropictest.NewServer(t,
		anthropictest.Reply{Status: 429, ErrorType: "rate_limit_error", ErrorMessage: "slow down", RetryAfter: "0.05"},
		anthropictest.Reply{Status: StatusOverloaded, ErrorType: "overloaded_error", ErrorMessage: "Overloaded"},
		anthropictest.Reply{Text: "ok"},
	)
	var retries []Retry
	start := time.Now()
	resp, err := anthClient(srv.URL).Chat(context.Background(), &Request{Messages: []Message{{Role: "user", Content: "hi"}}}, func(d Delta) {
		if d.Retry != nil {
			retries = append(retries, *d.Retry)
		}
	})
	if err != nil || resp.Content != "ok" {
		t.Fatalf("resp %+v, err %v", resp, err)
	}
	if len(retries) != 2 || retries[0].Reason != "429 rate limited" || retries[0].After != 50*time.Millisecond || retries[1].Reason != "529 overloaded" {
		t.Fatalf("retries %+v", retries)
	}
	if waited := time.Since(start); waited < 50*time.Millisecond {
		t.Fatalf("retried after %v, before the 50ms Retry-After", waited)
	}
}

func TestAnthropicRejectedKey(t *testing.T) {
	srv := anthropictest.NewServer(t, anthropictest.Reply{Status: 401, ErrorType: "authentication_error", ErrorMessage: "invalid x-api-key"})
	_, err := anthClient(srv.URL).Chat(context.Background(), &Request{Messages: []Message{{Role: "user", Content: "hi"}}}, nil)
	if !errors.Is(err, ErrAuth) || !strings.Contains(err.Error(), "invalid x-api-key") || len(srv.Requests()) != 1 {
		t.Fatalf("err %v after %d requests", err, len(srv.Requests()))
	}
}

// An overload reported inside the stream, before any answer, is retried
// like a 529; the answer then comes whole.
func TestAnthropicStreamOverloadRetried(t *testing.T) {
	srv := anthropictest.NewServer(t, anthropictest.Reply{StreamError: "overloaded_error"}, anthropictest.Reply{Text: "after the storm"})
	resp, err := anthClient(srv.URL).Chat(context.Background(), &Request{Messages: []Message{{Role: "user", Content: "hi"}}}, nil)
	if err != nil || resp.Content != "after the storm" || len(srv.Requests()) != 2 {
		t.Fatalf("resp %+v, err %v, %d requests", resp, err, len(srv.Requests()))
	}
	srv.Push(anthropictest.Reply{StreamError: "invalid_request_error"})
	_, err = anthClient(srv.URL).Chat(context.Background(), &Request{Messages: []Message{{Role: "user", Content: "hi"}}}, nil)
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.Type != "invalid_request_error" || len(srv.Requests()) != 3 {
		t.Fatalf("err %v, %d requests", err, len(srv.Requests()))
	}
}

// A stream dropped in the middle of a tool call, before any text was
// passed on, is retried and nothing is lost; dropped after text, the
// text that came is returned with ErrIncomplete.
func TestAnthropicDroppedMidToolCall(t *testing.T) {
	call := []anthropictest.Call{{ID: "toolu_1", Name: "weather__now", Input: `{"city":"Lima"}`}}
	srv := anthropictest.NewServer(t,
		anthropictest.Reply{ToolCalls: call, CutAfter: 4}, // message_start, ping, block start, one delta
		anthropictest.Reply{ToolCalls: call},
	)
	resp, err := anthClient(srv.URL).Chat(context.Background(), &Request{Messages: []Message{{Role: "user", Content: "hi"}}}, nil)
	if err != nil || len(resp.ToolCalls) != 1 || resp.ToolCalls[0].Function.Arguments != `{"city":"Lima"}` || len(srv.Requests()) != 2 {
		t.Fatalf("resp %+v, err %v, %d requests", resp, err, len(srv.Requests()))
	}
	srv.Push(anthropictest.Reply{Text: "Looking it up.", ToolCalls: call, CutAfter: 8})
	var streamed string
	resp, err = anthClient(srv.URL).Chat(context.Background(), &Request{Messages: []Message{{Role: "user", Content: "hi"}}},
		func(d Delta) { streamed += d.Content })
	if !errors.Is(err, ErrIncomplete) || !strings.Contains(err.Error(), "message_stop") || resp == nil ||
		resp.Content != "Looking it up." || streamed != resp.Content || len(srv.Requests()) != 3 {
		t.Fatalf("resp %+v, err %v, %d requests", resp, err, len(srv.Requests()))
	}
}

// A malformed event is retried once, then reported with the event.
func TestAnthropicMalformedEvent(t *testing.T) {
	srv := anthropictest.NewServer(t, anthropictest.Reply{Malformed: `{"type":"content_block_start",`}, anthropictest.Reply{Text: "fine"})
	resp, err := anthClient(srv.URL).Chat(context.Background(), &Request{Messages: []Message{{Role: "user", Content: "hi"}}}, nil)
	if err != nil || resp.Content != "fine" {
		t.Fatalf("resp %+v, err %v", resp, err)
	}
	srv.Push(anthropictest.Reply{Malformed: `{"type":"content_block_start",`}, anthropictest.Reply{Malformed: `not json`})
	_, err = anthClient(srv.URL).Chat(context.Background(), &Request{Messages: []Message{{Role: "user", Content: "hi"}}}, nil)
	if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), "not json") || len(srv.Requests()) != 4 {
		t.Fatalf("err %v, %d requests", err, len(srv.Requests()))
	}
}

// Deltas for a block that never started, or tool input for a text block,
// are malformed, not silently dropped.
func TestAnthropicStreamOutOfOrder(t *testing.T) {
	for _, ev := range []string{
		`{"type":"content_block_delta","index":3,"delta":{"type":"text_delta","text":"x"}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{"}}`,
	} {
		srv := llmtest.NewRawServer(t, func(w http.ResponseWriter, _ *http.Request) {
			llmtest.SSE(w, `{"type":"message_start","message":{"model":"m","usage":{"input_tokens":1}}}`,
				`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`, ev)
		})
		c := anthClient(srv.URL)
		c.MaxRetries = -1
		_, err := c.Chat(context.Background(), &Request{Messages: []Message{{Role: "user", Content: "hi"}}}, nil)
		if !errors.Is(err, ErrMalformed) {
			t.Fatalf("%s: err %v", ev, err)
		}
	}
}

// Pings are keep-alives, not progress: a server that only pings runs
// into the first byte timeout.
func TestAnthropicPingsAreNotAnAnswer(t *testing.T) {
	srv := llmtest.NewRawServer(t, func(w http.ResponseWriter, r *http.Request) {
		for {
			llmtest.SSE(w, `{"type":"ping"}`)
			select {
			case <-r.Context().Done():
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	})
	c := anthClient(srv.URL)
	c.MaxRetries, c.FirstByteTimeout = -1, 60*time.Millisecond
	_, err := c.Chat(hangGuard(t), &Request{Messages: []Message{{Role: "user", Content: "hi"}}}, nil)
	var te *TimeoutError
	if !errors.As(err, &te) || te.Wait != "first byte" {
		t.Fatalf("err %v", err)
	}
}

// Messages convert as the wire needs: a later system message becomes user
// text, roles alternate, a malformed call's arguments are kept, images
// given by URL go as URL or base64 sources.
func TestAnthropicMessageConversion(t *testing.T) {
	msgs, err := anthropicMessages([]Message{
		{Role: "user", Content: "one"},
		{Role: "system", Content: "note"},
		{Role: "assistant", ToolCalls: []ToolCall{{ID: "t", Function: FunctionCall{Name: "f", Arguments: "{oops"}}}},
		{Role: "tool", ToolCallID: "t", Content: "r"},
		{Role: "user", Images: []Image{{URL: "https://example.com/a.png"}, {URL: "data:image/jpeg;base64,AAAA"}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range msgs {
		got = append(got, m.role+":"+string(bytes.Join(m.blocks, []byte(","))))
	}
	want := []string{
		`user:{"type":"text","text":"one"},{"type":"text","text":"[system] note"}`,
		`assistant:{"type":"tool_use","id":"t","name":"f","input":{"arguments":"{oops"}}`,
		`user:{"type":"tool_result","tool_use_id":"t","content":"r"},{"type":"image","source":{"type":"url","url":"https://example.com/a.png"}},` +
			`{"type":"image","source":{"type":"base64","media_type":"image/jpeg","data":"AAAA"}}`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A cache write is billed at its own price: 1.25 times the input price
// at Anthropic's.
func TestPriceCacheWrite(t *testing.T) {
	p, ok := KnownPrice("claude-sonnet-4-5-20250929")
	if !ok || p.CacheWrite != 1.25*p.Input {
		t.Fatalf("price %+v, %v", p, ok)
	}
	u := Usage{PromptTokens: 1_000_000 + 200_000 + 300_000, CachedTokens: 200_000, CacheWriteTokens: 300_000, CompletionTokens: 100_000}
	// 1M fresh at $3, 200K read at $0.30, 300K written at $3.75, 100K out at $15.
	if got, want := p.Cost(u), 3+0.06+1.125+1.5; math.Abs(got-want) > 1e-9 {
		t.Fatalf("cost %v, want %v", got, want)
	}
	// Without a cache write price, writes cost the input price.
	if got := (Price{Input: 2}).Cost(Usage{PromptTokens: 10, CacheWriteTokens: 10}); math.Abs(got-20e-6) > 1e-15 {
		t.Fatalf("cost %v", got)
	}
	// Counts beyond the prompt are clamped, never negative.
	if got := (Price{Input: 1, CacheWrite: 2}).Cost(Usage{PromptTokens: 10, CachedTokens: 8, CacheWriteTokens: 5}); math.Abs(got-(8+2*2)*1e-6) > 1e-15 {
		t.Fatalf("cost %v", got)
	}
}

func TestCheckAPI(t *testing.T) {
	for _, ok := range []string{"", "openai", "anthropic"} {
		if err := CheckAPI(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	if err := CheckAPI("Anthropic"); err == nil || !strings.Contains(err.Error(), `"anthropic"`) {
		t.Errorf("err %v", err)
	}
}

func FuzzDecodeAnthropicStream(f *testing.F) {
	f.Add([]byte(`data: {"type":"message_start","message":{"model":"m","usage":{"input_tokens":1}}}` + "\n\n" +
		`data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}` + "\n\n" +
		`data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"hi"}}` + "\n\n" +
		`data: {"type":"message_stop"}` + "\n\n"))
	f.Add([]byte(`data: {"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"t","name":"x","input":{}}}` + "\n\n" +
		`data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"a\""}}` + "\n\n"))
	f.Add([]byte("event: ping\r\ndata: {\"type\":\"ping\"}\r\n\r\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\"}}\n\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		d := decoder{limit: DefaultMaxResponseBytes, maxLine: lineLimit(DefaultMaxResponseBytes), onDelta: func(Delta) {},
			redact: func(s string) string { return s }}
		resp, err := d.anthropicStream(bufio.NewReader(bytes.NewReader(data)))
		if err == nil && (resp == nil || checkEmpty(resp) != nil) {
			t.Fatalf("no error for %+v", resp)
		}
	})
}

// anthropicAnswer is a streamed answer of n text deltas and a tool call.
func anthropicAnswer(n int) []byte {
	var b bytes.Buffer
	ev := func(v string) { b.WriteString("event: x\ndata: " + v + "\n\n") }
	ev(`{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-x","content":[],` +
		`"usage":{"input_tokens":100,"output_tokens":1,"cache_read_input_tokens":2000,"cache_creation_input_tokens":50}}}`)
	ev(`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`)
	for i := range n {
		ev(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"word ` + strconv.Itoa(i) + ` "}}`)
	}
	ev(`{"type":"content_block_stop","index":0}`)
	ev(`{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_1","name":"weather__now","input":{}}}`)
	for _, p := range []string{`{\"city\":`, `\"Paris\",`, `\"days\":[1,2,3]}`} {
		ev(`{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"` + p + `"}}`)
	}
	ev(`{"type":"content_block_stop","index":1}`)
	ev(`{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":300}}`)
	ev(`{"type":"message_stop"}`)
	return b.Bytes()
}

// BenchmarkAnthropicStream is one streamed answer (200 text deltas and a
// tool call) over loopback HTTP: the request encoded, the stream read and
// assembled. docs/benchmarks.md compares it with the official SDK.
func BenchmarkAnthropicStream(b *testing.B) {
	body := anthropicAnswer(200)
	srv := llmtest.NewRawServer(b, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write(body)
	})
	c := anthClient(srv.URL)
	tools := []ToolSpec{weatherTool}
	msgs := []Message{{Role: "system", Content: "You are Hearth."}, {Role: "user", Content: "weather?"}}
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		resp, err := c.Chat(context.Background(), &Request{Messages: msgs, Tools: tools}, func(d Delta) { n += len(d.Content) })
		if err != nil || len(resp.ToolCalls) != 1 || n == 0 {
			b.Fatal(resp, err)
		}
	}
}

// A history that breaks the wire's strict pairing is repaired, not sent
// to be refused: a call without a recorded result gets one saying so, a
// result without its call goes as text after the results, and a history
// cut to begin with the model's message gets a user message first.
func TestAnthropicPairsRepaired(t *testing.T) {
	msgs, err := anthropicMessages([]Message{
		{Role: "assistant", ToolCalls: []ToolCall{{ID: "a", Function: FunctionCall{Name: "f", Arguments: "{}"}}, {ID: "b", Function: FunctionCall{Name: "g"}}}},
		{Role: "tool", ToolCallID: "zz", Content: "stray"},
		{Role: "tool", ToolCallID: "b", Content: "B"},
		{Role: "user", Content: "next"},
		{Role: "assistant", ToolCalls: []ToolCall{{ID: "c", Function: FunctionCall{Name: "f"}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range msgs {
		got = append(got, m.role+":"+string(bytes.Join(m.blocks, []byte(","))))
	}
	want := []string{
		`user:{"type":"text","text":"(the conversation before this point was left out)"}`,
		`assistant:{"type":"tool_use","id":"a","name":"f","input":{}},{"type":"tool_use","id":"b","name":"g","input":{}}`,
		`user:{"type":"tool_result","tool_use_id":"b","content":"B"},` +
			`{"type":"tool_result","tool_use_id":"a","content":"(no result: the call was not completed)","is_error":true},` +
			`{"type":"text","text":"[a tool result whose call is not in the conversation] stray"},{"type":"text","text":"next"}`,
		`assistant:{"type":"tool_use","id":"c","name":"f","input":{}}`,
		`user:{"type":"tool_result","tool_use_id":"c","content":"(no result: the call was not completed)","is_error":true}`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A request that offers no tools (a turn's last step) over a history with
// tool calls declares the tools called, and forbids calling them.
func TestAnthropicNoToolsDeclaresTheUsedOnes(t *testing.T) {
	srv := anthropictest.NewServer(t, anthropictest.Reply{Text: "done"}, anthropictest.Reply{Text: "plain"})
	c := anthClient(srv.URL)
	msgs := []Message{{Role: "user", Content: "go"},
		{Role: "assistant", ToolCalls: []ToolCall{{ID: "t1", Function: FunctionCall{Name: "weather__now", Arguments: `{"city":"Oslo"}`}}}},
		{Role: "tool", ToolCallID: "t1", Content: "cold"}}
	if _, err := c.Chat(context.Background(), &Request{Messages: msgs}, nil); err != nil {
		t.Fatal(err)
	}
	body := srv.Requests()[0].Body
	if got := jsonOf(t, body["tools"]); got != `[{"cache_control":{"type":"ephemeral"},"input_schema":{"type":"object"},"name":"weather__now"}]` ||
		jsonOf(t, body["tool_choice"]) != `{"type":"none"}` {
		t.Fatalf("tools %s, tool_choice %v", got, body["tool_choice"])
	}
	if _, err := c.Chat(context.Background(), &Request{Messages: msgs[:1]}, nil); err != nil {
		t.Fatal(err)
	}
	if body := srv.Requests()[1].Body; body["tools"] != nil || body["tool_choice"] != nil {
		t.Fatalf("a request without tool calls declares tools: %s", srv.Requests()[1].Raw)
	}
}

// A request of system messages alone still has the one user message the
// wire requires.
func TestAnthropicSystemOnly(t *testing.T) {
	c := anthClient("http://127.0.0.1:1")
	body, err := c.encodeAnthropic(&Request{Messages: []Message{{Role: "system", Content: "s"}}}, "m")
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Messages []map[string]any `json:"messages"`
	}
	if err := json.Unmarshal(body, &got); err != nil || len(got.Messages) != 1 || got.Messages[0]["role"] != "user" {
		t.Fatalf("body %s, err %v", body, err)
	}
}
