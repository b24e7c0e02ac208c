package server

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hearth-agent/hearth/internal/app"
	"github.com/hearth-agent/hearth/internal/approvals"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/llmtest"

	_ "github.com/hearth-agent/hearth/plugins/time" // time__now, a tool for the agent to call
)

// newProviderApp opens a Hearth on a fresh data directory whose model
// source is the fake provider at baseURL (as OPENAI_BASE_URL).
func newProviderApp(t *testing.T, baseURL string) *app.App {
	t.Helper()
	env := map[string]string{"OPENAI_BASE_URL": baseURL, "OPENAI_API_KEY": "sk-provider-key-0123456789", "HEARTH_MODEL": "test-model"}
	a, err := app.Open(context.Background(), &app.Options{DataDir: t.TempDir(), Getenv: func(k string) string { return env[k] }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	return a
}

// sendAPI sends an authorized request and returns the response.
func sendAPI(t *testing.T, method, url, body string, header ...string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// answerAs reads a JSON answer into a T, failing on another status.
func answerAs[T any](t *testing.T, resp *http.Response, status int) T {
	t.Helper()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != status {
		t.Fatalf("status %d, want %d: %s", resp.StatusCode, status, b)
	}
	var v T
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("decoding %s: %v", b, err)
	}
	return v
}

func TestModels(t *testing.T) {
	_, hs := newTestServer(t, newTestApp(t))
	list := answerAs[ModelList](t, sendAPI(t, "GET", hs.URL+"/v1/models", ""), http.StatusOK)
	if list.Object != "list" || len(list.Data) != 1 || list.Data[0].ID != "hearth" || list.Data[0].Object != "model" {
		t.Fatalf("models: %+v", list)
	}
	if m := answerAs[Model](t, sendAPI(t, "GET", hs.URL+"/v1/models/hearth", ""), http.StatusOK); m.ID != "hearth" {
		t.Fatalf("model: %+v", m)
	}
	e := answerAs[apiError](t, sendAPI(t, "GET", hs.URL+"/v1/models/gpt-4o", ""), http.StatusNotFound)
	if e.Error.Code != "model_not_found" {
		t.Fatalf("unknown model: %+v", e)
	}
}

func TestChatCompletionNotStreaming(t *testing.T) {
	llm := llmtest.NewServer(t, llmtest.Reply{Text: "Hello from the agent.", Usage: &llmtest.Usage{Prompt: 11, Completion: 4}})
	_, hs := newTestServer(t, newProviderApp(t, llm.URL))
	body := `{"model":"gpt-4o","temperature":0.2,"max_tokens":5,"top_p":1,"n":1,"user":"","some_new_field":{"x":1},
		"messages":[{"role":"system","content":"be brief"},{"role":"user","content":"hi"},
		{"role":"assistant","content":"hello"},{"role":"user","content":[{"type":"text","text":"how"},{"type":"text","text":"are you?"}]}]}`
	got := answerAs[ChatCompletion](t, sendAPI(t, "POST", hs.URL+"/v1/chat/completions", body), http.StatusOK)
	if !strings.HasPrefix(got.ID, "chatcmpl-") || got.Object != "chat.completion" || got.Model != "hearth" || got.Created == 0 {
		t.Errorf("envelope: %+v", got)
	}
	if len(got.Choices) != 1 || got.Choices[0].Message.Content != "Hello from the agent." ||
		got.Choices[0].Message.Role != "assistant" || got.Choices[0].FinishReason != "stop" {
		t.Errorf("choices: %+v", got.Choices)
	}
	if got.Usage == nil || got.Usage.PromptTokens != 11 || got.Usage.CompletionTokens != 4 || got.Usage.TotalTokens != 15 {
		t.Errorf("usage: %+v", got.Usage)
	}
	// A fresh chat: the request's earlier messages are the history.
	var seen []string
	for _, m := range conversation(llm.Requests()[0]) {
		seen = append(seen, m["role"].(string)+":"+m["content"].(string))
	}
	if want := "user:hi|assistant:hello|user:how\nare you?"; strings.Join(seen, "|") != want {
		t.Errorf("the model saw %q, want %q", strings.Join(seen, "|"), want)
	}
}

// conversation returns the user and assistant messages of a request the
// model got (without the system prompt and the plugins' context).
func conversation(r llmtest.Request) []map[string]any {
	var out []map[string]any
	for _, m := range r.Messages {
		if m["role"] == "user" || m["role"] == "assistant" {
			out = append(out, m)
		}
	}
	return out
}

// sseEvents reads a stream's data lines.
func sseEvents(t *testing.T, resp *http.Response) []string {
	t.Helper()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("status %d, %s: %s", resp.StatusCode, resp.Header.Get("Content-Type"), b)
	}
	var out []string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			out = append(out, data)
		}
	}
	return out
}

func TestChatCompletionStreaming(t *testing.T) {
	for _, includeUsage := range []bool{false, true} {
		llm := llmtest.NewServer(t, llmtest.Reply{Reasoning: "thinking", Text: "Streamed answer.", Usage: &llmtest.Usage{Prompt: 7, Completion: 3}})
		_, hs := newTestServer(t, newProviderApp(t, llm.URL))
		body := `{"model":"hearth","stream":true,"stream_options":{"include_usage":` + map[bool]string{true: "true", false: "false"}[includeUsage] +
			`},"messages":[{"role":"user","content":"hi"}]}`
		events := sseEvents(t, sendAPI(t, "POST", hs.URL+"/v1/chat/completions", body))
		if len(events) < 3 || events[len(events)-1] != "[DONE]" {
			t.Fatalf("events: %q", events)
		}
		var text, reasoning strings.Builder
		var finish []string
		var usage *ChatUsage
		for i, e := range events[:len(events)-1] {
			var raw map[string]json.RawMessage
			if err := json.Unmarshal([]byte(e), &raw); err != nil {
				t.Fatalf("event %d %q: %v", i, e, err)
			}
			if _, has := raw["usage"]; has != includeUsage {
				t.Errorf("event %d has usage %v, want %v: %s", i, has, includeUsage, e)
			}
			var c ChatCompletionChunk
			_ = json.Unmarshal([]byte(e), &c)
			if c.Object != "chat.completion.chunk" || c.Model != "hearth" || !strings.HasPrefix(c.ID, "chatcmpl-") {
				t.Errorf("event %d envelope: %s", i, e)
			}
			if i == 0 && (len(c.Choices) != 1 || c.Choices[0].Delta.Role != "assistant") {
				t.Errorf("first chunk has no role: %s", e)
			}
			for _, ch := range c.Choices {
				if ch.Delta.Content != nil {
					text.WriteString(*ch.Delta.Content)
				}
				reasoning.WriteString(ch.Delta.ReasoningContent)
				if ch.FinishReason != nil {
					finish = append(finish, *ch.FinishReason)
				}
			}
			if c.Usage != nil {
				if len(c.Choices) != 0 || i != len(events)-2 {
					t.Errorf("the usage chunk is not the last, or has choices: %s", e)
				}
				usage = c.Usage
			}
		}
		if text.String() != "Streamed answer." || reasoning.String() != "thinking" || strings.Join(finish, ",") != "stop" {
			t.Errorf("text %q, reasoning %q, finish %q", text.String(), reasoning.String(), finish)
		}
		if includeUsage && (usage == nil || usage.TotalTokens != 10) {
			t.Errorf("usage %+v", usage)
		}
	}
}

func TestChatCompletionSession(t *testing.T) {
	llm := llmtest.NewServer(t, llmtest.Reply{Text: "one"}, llmtest.Reply{Text: "two"}, llmtest.Reply{Text: "three"})
	_, hs := newTestServer(t, newProviderApp(t, llm.URL))
	ask := func(body string, header ...string) string {
		return answerAs[ChatCompletion](t, sendAPI(t, "POST", hs.URL+"/v1/chat/completions", body, header...), http.StatusOK).Choices[0].Message.Content
	}
	ask(`{"model":"hearth","user":"alice","messages":[{"role":"user","content":"first"}]}`)
	// The request's own history is ignored: the session has its own.
	ask(`{"model":"hearth","user":"alice","messages":[{"role":"user","content":"IGNORED"},{"role":"user","content":"second"}]}`)
	ask(`{"model":"hearth","user":"alice","messages":[{"role":"user","content":"third"}]}`, SessionHeader, "work")
	var seen []string
	for _, m := range conversation(llm.Requests()[1]) {
		seen = append(seen, m["content"].(string))
	}
	if strings.Join(seen, "|") != "first|one|second" {
		t.Errorf("second turn saw %q", seen)
	}
	if n := len(conversation(llm.Requests()[2])); n != 1 {
		t.Errorf("the header's session is another chat, but the model saw %d messages", n)
	}
}

func TestChatCompletionRefusals(t *testing.T) {
	_, hs := newTestServer(t, newTestApp(t))
	user := `"messages":[{"role":"user","content":"hi"}]`
	for _, tc := range []struct {
		name, body string
		status     int
		code, says string
	}{
		{"n>1", `{"n":2,` + user + `}`, 400, "unsupported_parameter", "n must be 1"},
		{"tools", `{"tools":[{"type":"function","function":{"name":"f"}}],` + user + `}`, 400, "unsupported_parameter", "calls its own tools"},
		{"functions", `{"functions":[{"name":"f"}],` + user + `}`, 400, "unsupported_parameter", "functions"},
		{"tool_choice", `{"tool_choice":"required",` + user + `}`, 400, "unsupported_parameter", "tool_choice"},
		{"tool message", `{"messages":[{"role":"tool","tool_call_id":"x","content":"r"},{"role":"user","content":"hi"}]}`, 400, "unsupported_parameter", "tool messages"},
		{"json format", `{"response_format":{"type":"json_object"},` + user + `}`, 400, "unsupported_parameter", "json_object"},
		{"no messages", `{"model":"hearth"}`, 400, "invalid_messages", "empty"},
		{"last not user", `{"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"a"}]}`, 400, "invalid_messages", "last message"},
		{"image", `{"messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"x"}}]}]}`, 400, "invalid_messages", "only text"},
		{"bad role", `{"messages":[{"role":"robot","content":"x"},{"role":"user","content":"hi"}]}`, 400, "invalid_messages", "robot"},
		{"not json", `{"messages":`, 400, "invalid_json", "invalid request body"},
		{"two values", `{}{}`, 400, "invalid_json", "more than one"},
		{"wrong type", `{"temperature":"hot",` + user + `}`, 400, "invalid_json", "temperature"},
		{"body too large", `{"messages":[{"role":"user","content":"` + strings.Repeat("x", DefaultMaxBody) + `"}]}`, 413, "body_too_large", "bytes"},
		{"no provider", `{` + user + `}`, 503, "no_provider", "OPENAI_BASE_URL"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := answerAs[apiError](t, sendAPI(t, "POST", hs.URL+"/v1/chat/completions", tc.body), tc.status)
			if e.Error.Code != tc.code || !strings.Contains(e.Error.Message, tc.says) || e.Error.Type == "" {
				t.Errorf("error %+v, want code %s saying %q", e.Error, tc.code, tc.says)
			}
		})
	}
	e := answerAs[apiError](t, sendAPI(t, "POST", hs.URL+"/v1/chat/completions", `{`+user+`}`, SessionHeader, strings.Repeat("s", 200)), 400)
	if e.Error.Code != "invalid_session" {
		t.Errorf("bad session header: %+v", e)
	}
}

func TestChatCompletionProviderErrorInStream(t *testing.T) {
	llm := llmtest.NewServer(t, llmtest.Reply{Status: http.StatusUnauthorized, ErrorMessage: "bad key"})
	_, hs := newTestServer(t, newProviderApp(t, llm.URL))
	// Before anything was streamed the error is an HTTP error.
	e := answerAs[apiError](t, sendAPI(t, "POST", hs.URL+"/v1/chat/completions",
		`{"stream":true,"messages":[{"role":"user","content":"hi"}]}`), http.StatusBadGateway)
	if e.Error.Code != "provider_error" || !strings.Contains(e.Error.Message, "rejected the API key") ||
		strings.Contains(e.Error.Message, "sk-provider-key-0123456789") {
		t.Errorf("error %+v", e)
	}
}

func FuzzDecodeChatRequest(f *testing.F) {
	f.Add(`{"model":"hearth","messages":[{"role":"user","content":"hi"}]}`)
	f.Add(`{"messages":[{"role":"system","content":"s"},{"role":"user","content":[{"type":"text","text":"a"}]}],"stream":true,"stream_options":{"include_usage":true}}`)
	f.Add(`{"n":2,"tools":[],"tool_choice":"none","messages":[{"role":"assistant","content":null},{"role":"user","content":"x"}]}`)
	f.Add(`{"user":"` + "\xff" + `","messages":[]}`)
	f.Fuzz(func(t *testing.T, body string) {
		in, err := decodeChatRequest(strings.NewReader(body))
		if (in == nil) == (err == nil) {
			t.Fatalf("input %v and error %v", in, err)
		}
		if err != nil {
			return
		}
		if strings.TrimSpace(in.text) == "" {
			t.Fatal("accepted without a user message")
		}
		for i, m := range in.history {
			if m.role != "user" && m.role != "assistant" || i > 0 && in.history[i-1].role == m.role {
				t.Fatalf("history %+v does not alternate user and assistant", in.history)
			}
		}
	})
}

// TestChatCompletionErrorAfterStreamBegan: a provider whose answer is cut
// off after some text; the text has been streamed, so the error comes as an
// error event and there is no [DONE].
func TestChatCompletionErrorAfterStreamBegan(t *testing.T) {
	cut := func(w http.ResponseWriter, r *http.Request) {
		llmtest.SSE(w, `{"choices":[{"index":0,"delta":{"content":"Half an ans"}}]}`)
		// The connection closes without finish_reason or [DONE].
	}
	raw := llmtest.NewRawServer(t, cut)
	_, hs := newTestServer(t, newProviderApp(t, raw.URL))
	events := sseEvents(t, sendAPI(t, "POST", hs.URL+"/v1/chat/completions", `{"stream":true,"messages":[{"role":"user","content":"hi"}]}`))
	if len(events) < 2 || !strings.Contains(events[0], "Half an ans") {
		t.Fatalf("events %q", events)
	}
	var last apiError
	if err := json.Unmarshal([]byte(events[len(events)-1]), &last); err != nil || last.Error.Code != "provider_error" || last.Error.Message == "" {
		t.Errorf("last event %q is not an error (%v)", events[len(events)-1], err)
	}
}

// TestChatCompletionClientGoesAway: a client that leaves mid-stream ends
// its turn; the session answers the next request.
func TestChatCompletionClientGoesAway(t *testing.T) {
	hang := func(w http.ResponseWriter, r *http.Request) {
		llmtest.SSE(w, `{"choices":[{"index":0,"delta":{"content":"never fin"}}]}`)
		<-r.Context().Done() // until the turn is cancelled
	}
	after := func(w http.ResponseWriter, r *http.Request) {
		llmtest.SSE(w, `{"choices":[{"index":0,"delta":{"content":"after"},"finish_reason":"stop"}]}`, "[DONE]")
	}
	raw := llmtest.NewRawServer(t, hang, after)
	_, hs := newTestServer(t, newProviderApp(t, raw.URL))
	req, _ := http.NewRequest("POST", hs.URL+"/v1/chat/completions",
		strings.NewReader(`{"stream":true,"user":"s","messages":[{"role":"user","content":"hang"}]}`))
	req.Header.Set("Authorization", "Bearer "+testToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(resp.Body).ReadString('\n')
	if err != nil || !strings.Contains(line, "chat.completion.chunk") {
		t.Fatalf("first line %q, %v", line, err)
	}
	resp.Body.Close() // the client goes away mid-turn
	got := answerAs[ChatCompletion](t, sendAPI(t, "POST", hs.URL+"/v1/chat/completions",
		`{"user":"s","messages":[{"role":"user","content":"again"}]}`), http.StatusOK)
	if got.Choices[0].Message.Content != "after" {
		t.Errorf("next answer %+v", got.Choices)
	}
}

// TestChatCompletionWithToolCall: the agent calls its own tool (time__now)
// in the turn. A stream carries the words of both steps; the whole answer
// is the final step's.
func TestChatCompletionWithToolCall(t *testing.T) {
	script := func() []llmtest.Reply {
		return []llmtest.Reply{
			{Text: "Let me look. ", ToolCalls: []llmtest.Call{{Name: "time__now", Arguments: `{"zone":"UTC"}`}}},
			{Text: "It is noon."},
		}
	}
	llm := llmtest.NewServer(t, script()...)
	_, hs := newTestServer(t, newProviderApp(t, llm.URL))
	whole := answerAs[ChatCompletion](t, sendAPI(t, "POST", hs.URL+"/v1/chat/completions",
		`{"messages":[{"role":"user","content":"time?"}]}`), http.StatusOK)
	if c := whole.Choices[0].Message.Content; c != "It is noon." {
		t.Errorf("whole answer %q", c)
	}
	if msgs := llm.Requests()[1].Messages; msgs[len(msgs)-1]["role"] != "tool" {
		t.Errorf("the tool did not run: %v", msgs[len(msgs)-1])
	}
	llm.Push(script()...)
	var text strings.Builder
	for _, e := range sseEvents(t, sendAPI(t, "POST", hs.URL+"/v1/chat/completions",
		`{"stream":true,"messages":[{"role":"user","content":"time?"}]}`)) {
		var c ChatCompletionChunk
		if json.Unmarshal([]byte(e), &c) == nil && len(c.Choices) == 1 && c.Choices[0].Delta.Content != nil {
			text.WriteString(*c.Choices[0].Delta.Content)
		}
	}
	if text.String() != "Let me look. It is noon." {
		t.Errorf("streamed %q", text.String())
	}
}

// TestChatCompletionKeepAlive: a quiet stream starts at the first
// keep-alive and then gets comment lines; the provider answers once the
// client has seen one.
func TestChatCompletionKeepAlive(t *testing.T) {
	defer func(d time.Duration) { streamKeepAlive = d }(streamKeepAlive)
	streamKeepAlive = time.Millisecond
	seen := make(chan struct{})
	slow := func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-seen:
		case <-r.Context().Done():
			return
		}
		llmtest.SSE(w, `{"choices":[{"index":0,"delta":{"content":"late"},"finish_reason":"stop"}]}`, "[DONE]")
	}
	raw := llmtest.NewRawServer(t, slow)
	_, hs := newTestServer(t, newProviderApp(t, raw.URL))
	resp := sendAPI(t, "POST", hs.URL+"/v1/chat/completions", `{"stream":true,"messages":[{"role":"user","content":"hi"}]}`)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	sc := bufio.NewScanner(resp.Body)
	var lines []string
	var once sync.Once
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if sc.Text() == ": keep-alive" {
			once.Do(func() { close(seen) })
		}
	}
	all := strings.Join(lines, "\n")
	if !strings.Contains(lines[0], `"role":"assistant"`) || !strings.Contains(all, `"content":"late"`) || lines[len(lines)-2] != "data: [DONE]" {
		t.Errorf("stream:\n%s", all)
	}
}

// TestChatCompletionApprovedFromAnotherChannel: an OpenAI client, which
// holds the client token, cannot answer an approval, not even its own
// turn's; the turn waits in the broker until the owner (here the API with
// the owner's token, as the web UI does) answers it.
func TestChatCompletionApprovedFromAnotherChannel(t *testing.T) {
	llm := llmtest.NewServer(t,
		llmtest.Reply{ToolCalls: []llmtest.Call{{Name: "time__now", Arguments: `{"zone":"UTC"}`}}},
		llmtest.Reply{Text: "It is noon."})
	a := newProviderApp(t, llm.URL)
	if err := a.Policy.SetOverride(context.Background(), "time__now", sdk.ModeAsk); err != nil {
		t.Fatal(err)
	}
	s, hs := newTestServer(t, a)
	asked := make(chan int64, 1)
	defer s.Approvals().Subscribe(func(ev approvals.Event) {
		if ev.Kind == approvals.Requested {
			asked <- ev.Pending.Request.ID
		}
	})()
	done := make(chan ChatCompletion, 1)
	go func() {
		resp := sendAPI(t, "POST", hs.URL+"/v1/chat/completions", `{"messages":[{"role":"user","content":"time?"}]}`,
			"Authorization", "Bearer "+testClientToken)
		defer resp.Body.Close()
		var c ChatCompletion
		json.NewDecoder(resp.Body).Decode(&c)
		done <- c
	}()
	id := <-asked
	decide := fmt.Sprintf("%s/v1/approvals/%d", hs.URL, id)
	for _, r := range [][2]string{{"GET", hs.URL + "/v1/approvals"}, {"POST", decide}} {
		if resp := sendAPI(t, r[0], r[1], `{"answer":"always"}`, "Authorization", "Bearer "+testClientToken); resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("%s %s with the client token: %d, want 401", r[0], r[1], resp.StatusCode)
		}
	}
	if resp := sendAPI(t, "POST", decide, `{"answer":"once"}`); resp.StatusCode != http.StatusOK {
		t.Fatalf("deciding: %d", resp.StatusCode)
	}
	if c := <-done; len(c.Choices) != 1 || c.Choices[0].Message.Content != "It is noon." {
		t.Fatalf("answer %+v", c)
	}
	if msgs := llm.Requests()[1].Messages; msgs[len(msgs)-1]["role"] != "tool" {
		t.Errorf("the tool did not run: %v", msgs[len(msgs)-1])
	}
}

// An OpenAI client's turn is not the owner's: with the client token, a
// tool that writes is not even offered (guest, read-only), until the
// owner gives channel openai's user a role.
func TestOpenAIClientIsAGuest(t *testing.T) {
	c := newChat(t,
		llmtest.Reply{ToolCalls: []llmtest.Call{{ID: "c1", Name: "fs__delete", Arguments: `{"path":"/home/me"}`}}},
		llmtest.Reply{Text: "done"})
	var ran atomic.Int32
	err := c.a.Kernel.LoadPlugin("fs", func(name string, _ map[string]any) (sdk.Plugin, error) {
		return plugin{name, func(s *sdk.PluginSDK) error {
			return s.RegisterTool("delete", sdk.ToolDef{Description: "deletes", Effect: sdk.EffectWrite},
				func(map[string]any) (any, error) { ran.Add(1); return "deleted", nil })
		}}, nil
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp := sendAPI(t, "POST", c.hs.URL+"/v1/chat/completions", `{"messages":[{"role":"user","content":"x"}]}`,
		"Authorization", "Bearer "+testClientToken)
	resp.Body.Close()
	if ran.Load() != 0 {
		t.Fatalf("a client-token turn ran a write tool (status %d)", resp.StatusCode)
	}
	if names := c.llm.Requests()[0].ToolNames(); slices.Contains(names, "fs__delete") {
		t.Fatalf("a write tool was offered to the OpenAI client: %v", names)
	}
}
