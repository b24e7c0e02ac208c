// Package llmtest is a scripted OpenAI-compatible chat completions server
// for tests: a real HTTP server on loopback that answers each request with
// the next scripted reply, streamed with real server-sent-events framing,
// and records every request it receives.
//
//	srv := llmtest.NewServer(t,
//		llmtest.Reply{ToolCalls: []llmtest.Call{{Name: "time__now", Arguments: `{"zone":"Asia/Shanghai"}`}}},
//		llmtest.Reply{Text: "It is noon."},
//	)
//	// point the agent at srv.URL (as OPENAI_BASE_URL, with HEARTH_MODEL set:
//	// Hearth knows no default model of a loopback server), run it, then:
//	msgs := srv.Requests()[1].Messages // includes the tool result
//
// RawServer is for answers a test writes itself (a stall, keep-alive
// comments only, an HTML page, a cut stream), with SSE to frame events.
package llmtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"
	"unicode/utf8"
)

// Call is a scripted tool call.
type Call struct {
	ID        string // defaults to call_<n>
	Name      string
	Arguments string // JSON text, streamed in pieces
}

// Usage is the token usage reported at the end of a reply.
type Usage struct {
	Prompt, Completion, Cached int
}

// Reply is one scripted answer.
type Reply struct {
	Text      string
	Reasoning string // streamed as reasoning_content before the text
	ToolCalls []Call
	Usage     *Usage

	// Status, when not 0 or 200, answers with this HTTP status and an
	// OpenAI-style error body carrying ErrorMessage.
	Status       int
	ErrorMessage string
	RetryAfter   string // Retry-After header of an error answer

	// ChunkDelay pauses between streamed chunks.
	ChunkDelay time.Duration
	// Hang keeps the stream open after the first chunk until the client
	// goes away (to test cancellation).
	Hang bool
	// OmitIndex and ZeroIndex stream tool calls without an index, or
	// with index 0 for every call, as some providers do.
	OmitIndex, ZeroIndex bool
	// NoStream answers with a plain JSON chat.completion.
	NoStream bool

	// Func, when set, computes the reply from the request instead.
	Func func(Request) Reply
}

// Request is a recorded request.
type Request struct {
	Model         string           `json:"model"`
	Messages      []map[string]any `json:"messages"`
	Tools         []map[string]any `json:"tools"`
	Stream        bool             `json:"stream"`
	Authorization string           `json:"-"`
}

// ToolNames returns the function names the request offered.
func (r Request) ToolNames() []string {
	var out []string
	for _, t := range r.Tools {
		if f, ok := t["function"].(map[string]any); ok {
			if n, ok := f["name"].(string); ok {
				out = append(out, n)
			}
		}
	}
	return out
}

// Server is a scripted chat completions server.
type Server struct {
	// URL is the base URL to configure as the provider's, ending in /v1.
	URL string

	srv      *httptest.Server
	mu       sync.Mutex
	fallback *Reply
	script   []Reply
	requests []Request
	calls    int
}

// NewServer starts a server answering with replies in order; t's cleanup
// closes it. When the script runs out the server answers 500 with a
// message saying so.
func NewServer(t testing.TB, replies ...Reply) *Server {
	s := &Server{script: replies}
	s.srv = httptest.NewServer(http.HandlerFunc(s.handle))
	s.URL = s.srv.URL + "/v1"
	t.Cleanup(s.Close)
	return s
}

// Close stops the server.
func (s *Server) Close() { s.srv.Close() }

// Push appends replies to the script.
func (s *Server) Push(replies ...Reply) {
	s.mu.Lock()
	s.script = append(s.script, replies...)
	s.mu.Unlock()
}

// SetFallback makes r the answer once the script is exhausted, for
// benchmarks and soak tests; r.Func can vary it per request. Requests are
// not recorded while the fallback answers, so memory stays flat.
func (s *Server) SetFallback(r Reply) {
	s.mu.Lock()
	s.fallback = &r
	s.mu.Unlock()
}

// Requests returns the requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		http.Error(w, `{"error":{"message":"not found"}}`, http.StatusNotFound)
		return
	}
	var req Request
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeError(w, http.StatusBadRequest, "malformed request: "+err.Error(), "")
		return
	}
	req.Authorization = r.Header.Get("Authorization")
	s.mu.Lock()
	var reply Reply
	ok := len(s.script) > 0
	if ok {
		reply, s.script = s.script[0], s.script[1:]
		s.requests = append(s.requests, req)
	} else if s.fallback != nil {
		reply, ok = *s.fallback, true
	} else {
		s.requests = append(s.requests, req)
	}
	n := s.calls
	s.calls++
	s.mu.Unlock()
	if !ok {
		writeError(w, http.StatusInternalServerError, "llmtest: script exhausted", "")
		return
	}
	if reply.Func != nil {
		reply = reply.Func(req)
	}
	if reply.Status != 0 && reply.Status != http.StatusOK {
		writeError(w, reply.Status, reply.ErrorMessage, reply.RetryAfter)
		return
	}
	if reply.NoStream || !req.Stream {
		writeWhole(w, reply, n)
		return
	}
	writeStream(w, r, reply, n)
}

func writeError(w http.ResponseWriter, status int, msg, retryAfter string) {
	if retryAfter != "" {
		w.Header().Set("Retry-After", retryAfter)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": msg, "type": "scripted"}})
}

func callID(c Call, n, i int) string {
	if c.ID != "" {
		return c.ID
	}
	return fmt.Sprintf("call_%d_%d", n, i)
}

func usageJSON(u *Usage) map[string]any {
	if u == nil {
		u = &Usage{Prompt: 10, Completion: 5}
	}
	return map[string]any{
		"prompt_tokens": u.Prompt, "completion_tokens": u.Completion,
		"total_tokens":          u.Prompt + u.Completion,
		"prompt_tokens_details": map[string]any{"cached_tokens": u.Cached},
	}
}

func writeWhole(w http.ResponseWriter, reply Reply, n int) {
	msg := map[string]any{"role": "assistant", "content": reply.Text}
	if reply.Reasoning != "" {
		msg["reasoning_content"] = reply.Reasoning
	}
	var calls []map[string]any
	for i, c := range reply.ToolCalls {
		calls = append(calls, map[string]any{
			"id": callID(c, n, i), "type": "function",
			"function": map[string]any{"name": c.Name, "arguments": c.Arguments},
		})
	}
	if calls != nil {
		msg["tool_calls"] = calls
	}
	finish := "stop"
	if len(calls) > 0 {
		finish = "tool_calls"
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-" + strconv.Itoa(n), "object": "chat.completion", "model": "scripted",
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
		"usage":   usageJSON(reply.Usage),
	})
}

// pieces splits s into up to three parts on rune boundaries, so clients
// see text arrive in several chunks.
func pieces(s string) []string {
	if s == "" {
		return nil
	}
	n := utf8.RuneCountInString(s)
	if n < 3 {
		return []string{s}
	}
	var out []string
	step := (n + 2) / 3
	start, count := 0, 0
	for i := range s {
		if count > 0 && count%step == 0 {
			out = append(out, s[start:i])
			start = i
		}
		count++
	}
	return append(out, s[start:])
}

func writeStream(w http.ResponseWriter, r *http.Request, reply Reply, n int) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	flusher, _ := w.(http.Flusher)
	id := "chatcmpl-" + strconv.Itoa(n)
	send := func(delta map[string]any, finish any, usage map[string]any) bool {
		c := map[string]any{
			"id": id, "object": "chat.completion.chunk", "model": "scripted",
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}},
		}
		if usage != nil {
			c["choices"] = []any{}
			c["usage"] = usage
		}
		b, _ := json.Marshal(c)
		if _, err := fmt.Fprintf(w, "data: %s\n\n", b); err != nil {
			return false
		}
		if flusher != nil {
			flusher.Flush()
		}
		if reply.ChunkDelay > 0 {
			select {
			case <-time.After(reply.ChunkDelay):
			case <-r.Context().Done():
				return false
			}
		}
		return true
	}
	if !send(map[string]any{"role": "assistant", "content": ""}, nil, nil) {
		return
	}
	if reply.Hang {
		<-r.Context().Done()
		return
	}
	for _, p := range pieces(reply.Reasoning) {
		if !send(map[string]any{"reasoning_content": p}, nil, nil) {
			return
		}
	}
	for _, p := range pieces(reply.Text) {
		if !send(map[string]any{"content": p}, nil, nil) {
			return
		}
	}
	for i, c := range reply.ToolCalls {
		index := any(i)
		if reply.ZeroIndex {
			index = 0
		}
		first := map[string]any{"id": callID(c, n, i), "type": "function",
			"function": map[string]any{"name": c.Name, "arguments": ""}}
		if !reply.OmitIndex {
			first["index"] = index
		}
		if !send(map[string]any{"tool_calls": []any{first}}, nil, nil) {
			return
		}
		for _, p := range pieces(c.Arguments) {
			d := map[string]any{"function": map[string]any{"arguments": p}}
			if !reply.OmitIndex {
				d["index"] = index
			}
			if !send(map[string]any{"tool_calls": []any{d}}, nil, nil) {
				return
			}
		}
	}
	finish := "stop"
	if len(reply.ToolCalls) > 0 {
		finish = "tool_calls"
	}
	if !send(map[string]any{}, finish, nil) || !send(nil, nil, usageJSON(reply.Usage)) {
		return
	}
	_, _ = fmt.Fprint(w, "data: [DONE]\n\n")
	if flusher != nil {
		flusher.Flush()
	}
}
