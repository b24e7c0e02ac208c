// Package anthropictest is a scripted Anthropic Messages API server for
// tests: a real HTTP server on loopback that answers each POST
// /v1/messages with the next scripted reply, streamed as Anthropic
// streams (event: and data: lines, message_start, content blocks with
// text, thinking, signature and input_json deltas, ping, message_delta
// with usage, message_stop), and records every request.
package anthropictest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
)

// Call is a scripted tool_use block.
type Call struct {
	ID    string // defaults to toolu_<n>
	Name  string
	Input string // JSON object text, streamed in pieces
}

// Usage is the reply's token counts, as Anthropic reports them: Input
// excludes the tokens read from or written to the cache.
type Usage struct {
	Input, Output, CacheRead, CacheWrite int
}

// Reply is one scripted answer.
type Reply struct {
	Thinking  string // a thinking block before the text, with a signature
	Text      string
	ToolCalls []Call
	Usage     Usage

	// Status, when not 0 or 200, answers with this HTTP status and an
	// Anthropic error body of ErrorType carrying ErrorMessage.
	Status       int
	ErrorType    string
	ErrorMessage string
	RetryAfter   string

	// StreamError, when set, sends an error event of that type after
	// message_start, as Anthropic does for an overload mid-stream.
	StreamError string
	// CutAfter, when above zero, closes the connection after that many
	// events, without message_stop.
	CutAfter int
	// Malformed, when set, is sent as the data of the event after
	// message_start.
	Malformed string
	// NoStream answers with a whole JSON message.
	NoStream bool
}

// Request is a recorded request.
type Request struct {
	Body    map[string]any
	Raw     []byte
	Path    string
	APIKey  string // x-api-key
	Version string // anthropic-version
	Bearer  string // an Authorization header, which the wire does not use
}

// Messages returns the request's messages.
func (r Request) Messages() []map[string]any { return objects(r.Body["messages"]) }

// Tools returns the request's tools.
func (r Request) Tools() []map[string]any { return objects(r.Body["tools"]) }

func objects(v any) []map[string]any {
	list, _ := v.([]any)
	out := make([]map[string]any, 0, len(list))
	for _, x := range list {
		if m, ok := x.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// Server is a scripted Messages API server.
type Server struct {
	// URL is the base URL to configure, without /v1.
	URL string

	srv      *httptest.Server
	mu       sync.Mutex
	script   []Reply
	requests []Request
	calls    int
}

// NewServer starts a server answering with replies in order; t's cleanup
// closes it. When the script runs out it answers 500.
func NewServer(t testing.TB, replies ...Reply) *Server {
	s := &Server{script: replies}
	s.srv = httptest.NewServer(http.HandlerFunc(s.handle))
	s.URL = s.srv.URL
	t.Cleanup(s.srv.Close)
	return s
}

// Push appends replies to the script.
func (s *Server) Push(replies ...Reply) {
	s.mu.Lock()
	s.script = append(s.script, replies...)
	s.mu.Unlock()
}

// Requests returns the requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	req := Request{Raw: raw, Path: r.URL.Path, APIKey: r.Header.Get("x-api-key"),
		Version: r.Header.Get("anthropic-version"), Bearer: r.Header.Get("Authorization")}
	if err := json.Unmarshal(raw, &req.Body); err != nil {
		writeError(w, 400, "invalid_request_error", "body is not JSON: "+err.Error(), "")
		return
	}
	s.mu.Lock()
	s.requests = append(s.requests, req)
	n := s.calls
	s.calls++
	var reply Reply
	ok := len(s.script) > 0
	if ok {
		reply, s.script = s.script[0], s.script[1:]
	}
	s.mu.Unlock()
	switch {
	case r.Method != http.MethodPost || r.URL.Path != "/v1/messages":
		writeError(w, 404, "not_found_error", "no such endpoint "+r.URL.Path, "")
	case !ok:
		writeError(w, 500, "api_error", "anthropictest: the script ran out", "")
	case reply.Status != 0 && reply.Status != 200:
		writeError(w, reply.Status, reply.ErrorType, reply.ErrorMessage, reply.RetryAfter)
	case reply.NoStream:
		writeWhole(w, reply, n)
	default:
		writeStream(w, reply, n)
	}
}

func writeError(w http.ResponseWriter, status int, typ, msg, retryAfter string) {
	if retryAfter != "" {
		w.Header().Set("Retry-After", retryAfter)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": msg}})
}

func callID(c Call, n, i int) string {
	if c.ID != "" {
		return c.ID
	}
	return fmt.Sprintf("toolu_%d_%d", n, i)
}

func stopReason(r Reply) string {
	if len(r.ToolCalls) > 0 {
		return "tool_use"
	}
	return "end_turn"
}

func writeWhole(w http.ResponseWriter, r Reply, n int) {
	var content []any
	if r.Thinking != "" {
		content = append(content, map[string]any{"type": "thinking", "thinking": r.Thinking, "signature": "sig-" + strconv.Itoa(n)})
	}
	if r.Text != "" {
		content = append(content, map[string]any{"type": "text", "text": r.Text})
	}
	for i, c := range r.ToolCalls {
		content = append(content, map[string]any{"type": "tool_use", "id": callID(c, n, i), "name": c.Name, "input": json.RawMessage(c.Input)})
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"id": "msg_" + strconv.Itoa(n), "type": "message", "role": "assistant",
		"model": "claude-test", "content": content, "stop_reason": stopReason(r), "usage": map[string]any{
			"input_tokens": r.Usage.Input, "output_tokens": r.Usage.Output,
			"cache_read_input_tokens": r.Usage.CacheRead, "cache_creation_input_tokens": r.Usage.CacheWrite}})
}

// pieces splits s in three, so every block streams in several deltas.
func pieces(s string) []string {
	if len(s) < 3 {
		return []string{s}
	}
	a, b := len(s)/3, 2*len(s)/3
	return []string{s[:a], s[a:b], s[b:]}
}

func writeStream(w http.ResponseWriter, r Reply, n int) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	fl, _ := w.(http.Flusher)
	sent := 0
	send := func(typ string, v any) bool {
		if r.CutAfter > 0 && sent >= r.CutAfter {
			return false
		}
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", typ, b)
		if fl != nil {
			fl.Flush()
		}
		sent++
		return true
	}
	ev := func(typ string, kv ...any) map[string]any {
		m := map[string]any{"type": typ}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	if !send("message_start", ev("message_start", "message", map[string]any{
		"id": "msg_" + strconv.Itoa(n), "type": "message", "role": "assistant", "model": "claude-test",
		"content": []any{}, "stop_reason": nil, "usage": map[string]any{
			"input_tokens": r.Usage.Input, "output_tokens": 1,
			"cache_read_input_tokens": r.Usage.CacheRead, "cache_creation_input_tokens": r.Usage.CacheWrite}})) {
		return
	}
	if r.Malformed != "" {
		fmt.Fprintf(w, "event: content_block_start\ndata: %s\n\n", r.Malformed)
		return
	}
	if r.StreamError != "" {
		send("error", ev("error", "error", map[string]any{"type": r.StreamError, "message": "scripted " + r.StreamError}))
		return
	}
	if !send("ping", ev("ping")) {
		return
	}
	idx := 0
	block := func(start map[string]any, deltas []map[string]any) bool {
		if !send("content_block_start", ev("content_block_start", "index", idx, "content_block", start)) {
			return false
		}
		for _, d := range deltas {
			if !send("content_block_delta", ev("content_block_delta", "index", idx, "delta", d)) {
				return false
			}
		}
		ok := send("content_block_stop", ev("content_block_stop", "index", idx))
		idx++
		return ok
	}
	if r.Thinking != "" {
		var ds []map[string]any
		for _, p := range pieces(r.Thinking) {
			ds = append(ds, map[string]any{"type": "thinking_delta", "thinking": p})
		}
		ds = append(ds, map[string]any{"type": "signature_delta", "signature": "sig-" + strconv.Itoa(n)})
		if !block(map[string]any{"type": "thinking", "thinking": ""}, ds) {
			return
		}
	}
	if r.Text != "" {
		var ds []map[string]any
		for _, p := range pieces(r.Text) {
			ds = append(ds, map[string]any{"type": "text_delta", "text": p})
		}
		if !block(map[string]any{"type": "text", "text": ""}, ds) {
			return
		}
	}
	for i, c := range r.ToolCalls {
		var ds []map[string]any
		for _, p := range pieces(c.Input) {
			ds = append(ds, map[string]any{"type": "input_json_delta", "partial_json": p})
		}
		if !block(map[string]any{"type": "tool_use", "id": callID(c, n, i), "name": c.Name, "input": map[string]any{}}, ds) {
			return
		}
	}
	if !send("message_delta", ev("message_delta", "delta", map[string]any{"stop_reason": stopReason(r), "stop_sequence": nil},
		"usage", map[string]any{"output_tokens": r.Usage.Output})) {
		return
	}
	send("message_stop", ev("message_stop"))
}
