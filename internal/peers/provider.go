package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"time"
)

// provider is the scripted OpenAI-compatible streaming provider every
// host talks to. It is stateless: each answer follows from the request
// alone, so a host that sends extra requests (a title, a summary) still
// gets an answer, and every request is recorded with its size, the tools
// it offered and how long the provider itself spent on it.
//
// The script: the user's last message carries a marker ("M123"). If the
// request ends with a tool result, the answer is "answer M123". If the
// user asked to "call tool<k>", no tool result follows and the request
// offers a tool whose name ends in "tool<k>" (each host prefixes names its
// own way), the answer is a call of it. Otherwise the answer is
// "answer M123".
type provider struct {
	ln  net.Listener
	srv *http.Server

	mu       sync.Mutex
	reqs     []request
	inflight int
}

// request is one recorded request.
type request struct {
	Start, End time.Time // handler entered; last byte of the answer flushed
	Bytes      int       // request body
	ToolBytes  int       // the "tools" array alone
	Tools      []string  // offered function names
	Marker     string
	ToolCall   string // the tool the answer called, if any
	Wanted     string // the tool the user asked for, if any
	ToolResult string // the content of the last message when it is a tool result
	Err        string // what was wrong with the request, if anything
}

var markerRE = regexp.MustCompile(`M[0-9]+x`)
var callRE = regexp.MustCompile(`call (tool[0-9]+)`)

func newProvider() (*provider, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("provider: %w", err)
	}
	p := &provider{ln: ln}
	p.srv = &http.Server{Handler: http.HandlerFunc(p.handle)}
	go p.srv.Serve(ln)
	return p, nil
}

// URL is the base URL hosts are given (OpenAI style, with /v1).
func (p *provider) URL() string { return "http://" + p.ln.Addr().String() + "/v1" }

func (p *provider) Close() { p.srv.Close() }

// since returns the requests whose handling started at or after t, and
// whether none is being answered now.
func (p *provider) since(t time.Time) ([]request, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []request
	for _, r := range p.reqs {
		if !r.Start.Before(t) {
			out = append(out, r)
		}
	}
	return out, p.inflight == 0
}

type chatMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// text returns a message's content as text, whether a string or parts.
func (m chatMessage) text() string {
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	json.Unmarshal(m.Content, &parts)
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

func (p *provider) handle(w http.ResponseWriter, r *http.Request) {
	if !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		// A model list (xbot asks for one) or anything else a host may
		// probe: answered plainly, not recorded as a turn's request.
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"object":"list","data":[{"id":"gpt-4o","object":"model"}]}`)
		return
	}
	rec := request{Start: time.Now()}
	p.mu.Lock()
	p.inflight++
	p.mu.Unlock()
	defer func() {
		rec.End = time.Now()
		p.mu.Lock()
		p.reqs = append(p.reqs, rec)
		p.inflight--
		p.mu.Unlock()
	}()
	body, err := io.ReadAll(r.Body)
	if err != nil {
		rec.Err = err.Error()
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	rec.Bytes = len(body)
	var req struct {
		Messages []chatMessage     `json:"messages"`
		Tools    []json.RawMessage `json:"tools"`
		Stream   bool              `json:"stream"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		rec.Err = err.Error()
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var raw struct {
		Tools json.RawMessage `json:"tools"`
	}
	json.Unmarshal(body, &raw)
	rec.ToolBytes = len(raw.Tools)
	for _, t := range req.Tools {
		var tool struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		}
		json.Unmarshal(t, &tool)
		rec.Tools = append(rec.Tools, tool.Function.Name)
	}
	lastUser := ""
	for _, m := range req.Messages {
		if m.Role == "user" {
			lastUser = m.text()
		}
	}
	rec.Marker = markerRE.FindString(lastUser)
	var last chatMessage
	if n := len(req.Messages); n > 0 {
		last = req.Messages[n-1]
	}
	if last.Role == "tool" {
		rec.ToolResult = last.text()
	} else if m := callRE.FindStringSubmatch(lastUser); m != nil {
		for _, name := range rec.Tools {
			if strings.HasSuffix(name, m[1]) {
				rec.ToolCall = name
				break
			}
		}
		// A request without the tool (a host's side request: a title, a
		// summary) gets a plain answer; the harness checks the turn.
		rec.Wanted = m[1]
	}
	answer := "answer " + rec.Marker
	if !req.Stream {
		writeWhole(w, answer, rec.ToolCall)
		return
	}
	writeStream(w, answer, rec.ToolCall)
}

const chunkHead = `{"id":"chatcmpl-bench","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[`

func writeStream(w http.ResponseWriter, answer, tool string) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	f, _ := w.(http.Flusher)
	send := func(s string) {
		io.WriteString(w, "data: "+s+"\n\n")
		if f != nil {
			f.Flush()
		}
	}
	send(chunkHead + `{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}`)
	finish := "stop"
	if tool != "" {
		name, _ := json.Marshal(tool)
		send(chunkHead + `{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":` +
			string(name) + `,"arguments":""}}]},"finish_reason":null}]}`)
		send(chunkHead + `{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{}"}}]},"finish_reason":null}]}`)
		finish = "tool_calls"
	} else {
		words := strings.SplitAfter(answer, " ")
		for _, piece := range words {
			s, _ := json.Marshal(piece)
			send(chunkHead + `{"index":0,"delta":{"content":` + string(s) + `},"finish_reason":null}]}`)
		}
	}
	send(chunkHead + `{"index":0,"delta":{},"finish_reason":"` + finish + `"}]}`)
	send(`{"id":"chatcmpl-bench","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[],"usage":{"prompt_tokens":100,"completion_tokens":5,"total_tokens":105}}`)
	send("[DONE]")
}

func writeWhole(w http.ResponseWriter, answer, tool string) {
	msg := map[string]any{"role": "assistant", "content": answer}
	finish := "stop"
	if tool != "" {
		msg = map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{
			"id": "call_1", "type": "function", "function": map[string]any{"name": tool, "arguments": "{}"}}}}
		finish = "tool_calls"
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-bench", "object": "chat.completion", "created": 1, "model": "gpt-4o",
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
		"usage":   map[string]any{"prompt_tokens": 100, "completion_tokens": 5, "total_tokens": 105},
	})
}
