package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/hearth-agent/hearth/internal/app"
	"github.com/hearth-agent/hearth/internal/kernel"
	"github.com/hearth-agent/hearth/internal/scope"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// chat is a server over an app whose provider is a scripted fake.
type chat struct {
	a   *app.App
	llm *llmtest.Server
	s   *Server
	hs  *httptest.Server
}

// newChat opens a Hearth whose model is llmtest's server with replies, and
// serves it on loopback.
func newChat(t *testing.T, replies ...llmtest.Reply) *chat {
	t.Helper()
	srv := llmtest.NewServer(t, replies...)
	env := map[string]string{"OPENAI_BASE_URL": srv.URL, "HEARTH_MODEL": "test-model", "OPENAI_API_KEY": "sk-test-123456789"}
	a, err := app.Open(context.Background(), &app.Options{DataDir: t.TempDir(), Getenv: func(k string) string { return env[k] }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	s, hs := newTestServer(t, a)
	return &chat{a: a, llm: srv, s: s, hs: hs}
}

// do sends a request with the token and body (nil for none) and returns
// the status and the body.
func do(t *testing.T, hs *httptest.Server, method, path string, body any) (int, []byte) {
	t.Helper()
	var r io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		r = strings.NewReader(b)
	default:
		data, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		r = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, hs.URL+path, r)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+testToken)
	resp, err := hs.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, data
}

// call is do expecting status want, decoding the answer into T.
func call[T any](t *testing.T, hs *httptest.Server, method, path string, body any, want int) T {
	t.Helper()
	status, data := do(t, hs, method, path, body)
	if status != want {
		t.Fatalf("%s %s: status %d, want %d: %s", method, path, status, want, data)
	}
	var v T
	if len(data) > 0 {
		if err := json.Unmarshal(data, &v); err != nil {
			t.Fatalf("%s %s: %v: %s", method, path, err, data)
		}
	}
	return v
}

// errorCode returns an error answer's code.
func errorCode(t *testing.T, data []byte) string {
	t.Helper()
	var e apiError
	if err := json.Unmarshal(data, &e); err != nil {
		t.Fatalf("not an error answer: %s", data)
	}
	return e.Error.Code
}

// sse is a client of an event stream.
type sse struct {
	events chan sseEvent
	cancel context.CancelFunc
	done   chan struct{}
}

type sseEvent struct {
	id, name string
	data     Event
}

// openSSE connects to path's event stream; t's cleanup disconnects.
func openSSE(t *testing.T, hs *httptest.Server, path string) *sse {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", hs.URL+path, nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	resp, err := hs.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("stream %s: status %d, %s", path, resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	c := &sse{events: make(chan sseEvent, 1000), cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(c.done)
		defer close(c.events)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		var ev sseEvent
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if ev.name != "" {
					c.events <- ev
				}
				ev = sseEvent{}
			case strings.HasPrefix(line, "id: "):
				ev.id = line[4:]
			case strings.HasPrefix(line, "event: "):
				ev.name = line[7:]
			case strings.HasPrefix(line, "data: "):
				if err := json.Unmarshal([]byte(line[6:]), &ev.data); err != nil {
					ev.name = "bad data: " + line
				}
			}
		}
	}()
	t.Cleanup(c.close)
	return c
}

// close disconnects and waits for the reader.
func (c *sse) close() {
	c.cancel()
	<-c.done
}

// until reads events until one named name, returning all read.
func (c *sse) until(t *testing.T, name string) []sseEvent {
	t.Helper()
	var got []sseEvent
	for ev := range c.events {
		got = append(got, ev)
		if ev.name == name {
			return got
		}
	}
	t.Fatalf("stream ended before %s; got %v", name, got)
	return nil
}

func names(evs []sseEvent) []string {
	out := make([]string, len(evs))
	for i, ev := range evs {
		out[i] = ev.name
	}
	return out
}

func text(evs []sseEvent, name string) string {
	var b strings.Builder
	for _, ev := range evs {
		if ev.name == name {
			b.WriteString(ev.data.Text)
		}
	}
	return b.String()
}

func TestSessionsCRUD(t *testing.T) {
	c := newChat(t, llmtest.Reply{Text: "hello there"})
	hs := c.hs
	if l := call[SessionList](t, hs, "GET", "/v1/sessions", nil, 200); len(l.Sessions) != 0 {
		t.Fatalf("fresh: %+v", l)
	}
	s1 := call[Session](t, hs, "POST", "/v1/sessions", nil, 201)
	if s1.Channel != "web" || s1.ChatID == "" || s1.ID == 0 {
		t.Fatalf("opened %+v", s1)
	}
	s2 := call[Session](t, hs, "POST", "/v1/sessions", OpenSession{Channel: "terminal"}, 201)
	if s2.Channel != "terminal" || s2.ChatID != "" {
		t.Fatalf("opened %+v", s2)
	}
	// Opening an existing chat returns it.
	if again := call[Session](t, hs, "POST", "/v1/sessions", OpenSession{Channel: "terminal"}, 201); again.ID != s2.ID {
		t.Fatalf("reopened %+v, want id %d", again, s2.ID)
	}
	path := "/v1/sessions/" + itoa(s1.ID)
	if got := call[Session](t, hs, "GET", path, nil, 200); got.ID != s1.ID {
		t.Fatalf("got %+v", got)
	}
	ans := call[Answer](t, hs, "POST", path+"/messages", SendMessage{Text: "hi", Wait: true}, 200)
	if ans.Text != "hello there" {
		t.Fatalf("answer %+v", ans)
	}
	msgs := call[MessageList](t, hs, "GET", path+"/messages", nil, 200)
	if len(msgs.Messages) != 2 || msgs.Messages[0].Role != "user" || msgs.Messages[0].Content != "hi" ||
		msgs.Messages[1].Content != "hello there" || msgs.Messages[1].CreatedAt.IsZero() {
		t.Fatalf("messages %+v", msgs)
	}
	if m := call[MessageList](t, hs, "GET", path+"/messages?limit=1", nil, 200); len(m.Messages) != 1 {
		t.Fatalf("limit 1: %+v", m)
	}
	l := call[SessionList](t, hs, "GET", "/v1/sessions", nil, 200)
	if len(l.Sessions) != 2 || l.Sessions[0].ID != s1.ID || l.Sessions[0].Title != "hi" || l.Sessions[0].Busy {
		t.Fatalf("list %+v", l)
	}
	call[struct{}](t, hs, "DELETE", path, nil, 204)
	if m := call[MessageList](t, hs, "GET", path+"/messages", nil, 200); len(m.Messages) != 0 {
		t.Fatalf("after delete: %+v", m)
	}

	for _, tc := range []struct {
		method, path string
		body         any
		status       int
		code         string
	}{
		{"GET", "/v1/sessions/999", nil, 404, "no_session"},
		{"GET", "/v1/sessions/abc", nil, 404, "no_session"},
		{"DELETE", "/v1/sessions/999", nil, 404, "no_session"},
		{"GET", "/v1/sessions/999/messages", nil, 404, "no_session"},
		{"POST", "/v1/sessions/999/messages", SendMessage{Text: "x"}, 404, "no_session"},
		{"GET", "/v1/sessions/999/events", nil, 404, "no_session"},
		{"GET", path + "/messages?limit=-1", nil, 400, "invalid_limit"},
		{"POST", path + "/messages", SendMessage{}, 400, "empty_text"},
		{"POST", path + "/messages", `{"text":"x","bogus":1}`, 400, "invalid_json"},
		{"POST", path + "/messages", `{"text":"` + strings.Repeat("x", DefaultMaxBody) + `"}`, 413, "body_too_large"},
		{"POST", "/v1/sessions", `{"channel":`, 400, "invalid_json"},
	} {
		status, data := do(t, hs, tc.method, tc.path, tc.body)
		if status != tc.status || errorCode(t, data) != tc.code {
			t.Errorf("%s %s: %d %s, want %d %s", tc.method, tc.path, status, data, tc.status, tc.code)
		}
	}
}

func itoa(id int64) string { return strings.TrimSpace(string(mustJSON(id))) }

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// Without a provider, sending is refused with a pointer to onboarding.
func TestSendWithoutProvider(t *testing.T) {
	_, hs := newTestServer(t, newTestApp(t))
	s := call[Session](t, hs, "POST", "/v1/sessions", nil, 201)
	status, data := do(t, hs, "POST", "/v1/sessions/"+itoa(s.ID)+"/messages", SendMessage{Text: "hi"})
	if status != http.StatusConflict || errorCode(t, data) != "no_provider" || !strings.Contains(string(data), "onboarding") {
		t.Fatalf("%d %s", status, data)
	}
}

// A session's stream gets the turn's deltas and turn.finished; the global
// stream gets them too, each with its session id; the turn started
// without waiting answers 202.
func TestSessionEventsStream(t *testing.T) {
	c := newChat(t, llmtest.Reply{Reasoning: "thinking hard", Text: "a streamed answer", Usage: &llmtest.Usage{Prompt: 10, Completion: 4}})
	s := call[Session](t, c.hs, "POST", "/v1/sessions", nil, 201)
	path := "/v1/sessions/" + itoa(s.ID)
	own := openSSE(t, c.hs, path+"/events")
	all := openSSE(t, c.hs, "/v1/events")
	if q := call[Queued](t, c.hs, "POST", path+"/messages", SendMessage{Text: "tell me"}, 202); !q.Queued {
		t.Fatalf("answer %+v", q)
	}
	evs := own.until(t, EvTurnFinished)
	if evs[0].name != EvTurnStarted || evs[0].data.Text != "tell me" {
		t.Fatalf("events %v", names(evs))
	}
	if got := text(evs, EvContentDelta); got != "a streamed answer" {
		t.Fatalf("content deltas %q (events %v)", got, names(evs))
	}
	if got := text(evs, EvReasoningDelta); got != "thinking hard" {
		t.Fatalf("reasoning deltas %q", got)
	}
	last := evs[len(evs)-1]
	if last.data.Text != "a streamed answer" || last.data.Usage == nil || last.data.Usage.PromptTokens != 10 || last.id == "" || last.data.TraceID == "" {
		t.Fatalf("turn.finished %+v", last)
	}
	for _, ev := range all.until(t, EvTurnFinished) {
		if ev.data.SessionID != s.ID {
			t.Fatalf("global event %+v", ev)
		}
	}
}

// Two sessions stream at once; each stream sees only its own turn.
func TestTwoSessionsStreamConcurrently(t *testing.T) {
	c := newChat(t)
	c.llm.SetFallback(llmtest.Reply{Func: func(r llmtest.Request) llmtest.Reply {
		var last string
		for _, m := range r.Messages {
			if m["role"] == "user" {
				last, _ = m["content"].(string)
			}
		}
		return llmtest.Reply{Text: "echo " + last}
	}})
	var wg sync.WaitGroup
	for _, word := range []string{"alpha", "beta"} {
		s := call[Session](t, c.hs, "POST", "/v1/sessions", nil, 201)
		path := "/v1/sessions/" + itoa(s.ID)
		stream := openSSE(t, c.hs, path+"/events")
		wg.Add(1)
		go func() {
			defer wg.Done()
			status, data := do(t, c.hs, "POST", path+"/messages", SendMessage{Text: word})
			if status != 202 {
				t.Errorf("send: %d %s", status, data)
			}
		}()
		defer func() {
			evs := stream.until(t, EvTurnFinished)
			for _, ev := range evs {
				if ev.data.SessionID != s.ID {
					t.Errorf("%s's stream got %+v", word, ev)
				}
			}
			if got := text(evs, EvContentDelta); got != "echo "+word {
				t.Errorf("%s's stream: %q", word, got)
			}
		}()
	}
	wg.Wait()
}

// gate is a plugin whose tool waits until released.
func gatePlugin(started chan<- struct{}, release <-chan struct{}) func(string, map[string]any) (sdk.Plugin, error) {
	return func(name string, _ map[string]any) (sdk.Plugin, error) {
		return plugin{name, func(s *sdk.PluginSDK) error {
			return s.RegisterTool("wait", sdk.ToolDef{Description: "waits", Effect: sdk.EffectRead},
				func(map[string]any) (any, error) {
					started <- struct{}{}
					<-release
					return strings.Repeat("r", maxEventResult+100), nil
				})
		}}, nil
	}
}

// plugin adapts a start function to sdk.Plugin.
type plugin struct {
	name  string
	start func(*sdk.PluginSDK) error
}

func (p plugin) Name() string                 { return p.name }
func (p plugin) Start(s *sdk.PluginSDK) error { return p.start(s) }
func (p plugin) Stop() error                  { return nil }

// A message sent with interrupt cancels the turn in flight, whose stream
// says turn.interrupted; a failed model call ends in an error event.
func TestInterruptAndError(t *testing.T) {
	asked := make(chan struct{})
	c := newChat(t,
		llmtest.Reply{Func: func(llmtest.Request) llmtest.Reply { close(asked); return llmtest.Reply{Hang: true} }},
		llmtest.Reply{Text: "second"},
		llmtest.Reply{Status: 400, ErrorMessage: "the model refuses"},
	)
	s := call[Session](t, c.hs, "POST", "/v1/sessions", nil, 201)
	path := "/v1/sessions/" + itoa(s.ID)
	stream := openSSE(t, c.hs, path+"/events")
	call[Queued](t, c.hs, "POST", path+"/messages", SendMessage{Text: "first"}, 202)
	<-asked // the model is answering
	if ans := call[Answer](t, c.hs, "POST", path+"/messages", SendMessage{Text: "now", Interrupt: true, Wait: true}, 200); ans.Text != "second" {
		t.Fatalf("answer %+v", ans)
	}
	evs := stream.until(t, EvTurnFinished)
	if got := strings.Join(names(evs), " "); !strings.Contains(got, EvTurnInterrupted+" "+EvTurnStarted) {
		t.Fatalf("events %s", got)
	}
	status, data := do(t, c.hs, "POST", path+"/messages", SendMessage{Text: "fail", Wait: true})
	// The message says what to do, in English and Chinese, as the
	// terminal's does (terminal.Explain): here, a model name to check.
	if status != http.StatusBadGateway || errorCode(t, data) != "turn_failed" ||
		!strings.Contains(string(data), "the model refuses") || !strings.Contains(string(data), "模型名可能不对") {
		t.Fatalf("failed turn: %d %s", status, data)
	}
	evs = stream.until(t, EvError)
	if msg := evs[len(evs)-1].data.Message; !strings.Contains(msg, "the model refuses") || !strings.Contains(msg, "HEARTH_MODEL") ||
		!strings.Contains(msg, "模型名可能不对") {
		t.Fatalf("error event %+v", evs[len(evs)-1])
	}
}

// POST /v1/sessions/{id}/interrupt stops the running turn: the answer
// says so, the stream says turn.interrupted, a waiting sender gets 409
// interrupted; an idle session answers false, an unknown one 404.
func TestInterruptRoute(t *testing.T) {
	asked := make(chan struct{})
	c := newChat(t,
		llmtest.Reply{Func: func(llmtest.Request) llmtest.Reply { close(asked); return llmtest.Reply{Hang: true} }},
		llmtest.Reply{Text: "after the stop"},
	)
	s := call[Session](t, c.hs, "POST", "/v1/sessions", nil, 201)
	path := "/v1/sessions/" + itoa(s.ID)
	if got := call[Interrupted](t, c.hs, "POST", path+"/interrupt", nil, 200); got.Interrupted {
		t.Fatal("an idle session was interrupted")
	}
	stream := openSSE(t, c.hs, path+"/events")
	waited := make(chan int, 1)
	go func() {
		status, _ := do(t, c.hs, "POST", path+"/messages", SendMessage{Text: "a long question", Wait: true})
		waited <- status
	}()
	<-asked // the model is answering
	if got := call[Interrupted](t, c.hs, "POST", path+"/interrupt", nil, 200); !got.Interrupted {
		t.Fatal("the running turn was not interrupted")
	}
	if evs := stream.until(t, EvTurnInterrupted); names(evs)[0] != EvTurnStarted {
		t.Fatalf("events %v", names(evs))
	}
	if status := <-waited; status != http.StatusConflict {
		t.Fatalf("the waiting sender got %d, want 409", status)
	}
	if ans := call[Answer](t, c.hs, "POST", path+"/messages", SendMessage{Text: "again", Wait: true}, 200); ans.Text != "after the stop" {
		t.Fatalf("next answer %+v", ans)
	}
	if status, data := do(t, c.hs, "POST", "/v1/sessions/999999/interrupt", nil); status != http.StatusNotFound || errorCode(t, data) != "no_session" {
		t.Fatalf("unknown session: %d %s", status, data)
	}
}

// The provider's key, repeated by the model, is masked in the session's
// events and in its stored messages as the API shows them.
func TestKeyMaskedInEventsAndMessages(t *testing.T) {
	const key = "sk-test-123456789" // newChat's provider key
	c := newChat(t, llmtest.Reply{Reasoning: "it is " + key, Text: "your key is " + key})
	s := call[Session](t, c.hs, "POST", "/v1/sessions", nil, 201)
	path := "/v1/sessions/" + itoa(s.ID)
	own := openSSE(t, c.hs, path+"/events")
	call[Queued](t, c.hs, "POST", path+"/messages", SendMessage{Text: "what is my key? " + key}, 202)
	for _, ev := range own.until(t, EvTurnFinished) {
		if strings.Contains(ev.data.Text, key) {
			t.Errorf("event %s shows the key: %q", ev.name, ev.data.Text)
		}
	}
	code, body := do(t, c.hs, "GET", path+"/messages", nil)
	if code != 200 || strings.Contains(string(body), key) || !strings.Contains(string(body), "your key is") {
		t.Fatalf("messages (%d): %s", code, body)
	}
}

// scopeProbe records the memory scope of each turn, from its on_input
// stage handler (scope.Current, which the kernel binds).
type scopeProbe struct{ seen chan scope.Scope }

func (p *scopeProbe) Name() string { return "probe" }
func (p *scopeProbe) Stop() error  { return nil }
func (p *scopeProbe) Start(s *sdk.PluginSDK) error {
	s.RegisterStage(sdk.StageOnInput, func(*sdk.StageContext) error {
		p.seen <- scope.Current()
		return nil
	})
	return nil
}

// TestOwnerTurnInAChatAppSession: what the owner types into a stored
// session of a chat app acts in the owner's memory scope, not in the
// scope of that app's user "owner", which a guest there could pick.
func TestOwnerTurnInAChatAppSession(t *testing.T) {
	c := newChat(t, llmtest.Reply{Text: "zero"}, llmtest.Reply{Text: "one"}, llmtest.Reply{Text: "two"})
	probe := &scopeProbe{seen: make(chan scope.Scope, 3)}
	if err := c.a.Kernel.LoadPlugin("probe", func(string, map[string]any) (sdk.Plugin, error) { return probe, nil }, nil); err != nil {
		t.Fatal(err)
	}
	// In a session of the owner's own channel (the web UI's), the
	// owner's words act in the owner's scope.
	web := call[Session](t, c.hs, "POST", "/v1/sessions", OpenSession{}, 201)
	call[Answer](t, c.hs, "POST", "/v1/sessions/"+itoa(web.ID)+"/messages", SendMessage{Text: "hello", Wait: true}, 200)
	if got := <-probe.seen; got != scope.Owner {
		t.Errorf("the owner's turn in a web session acts in %q, want %q", got, scope.Owner)
	}
	// In a chat app's session, whose history its other people's turns
	// read, they act in that chat's scope: not the owner's private one
	// (its memories would be recalled into that history), not a user's.
	s := call[Session](t, c.hs, "POST", "/v1/sessions", OpenSession{Channel: "wechat", ChatID: "friend"}, 201)
	call[Answer](t, c.hs, "POST", "/v1/sessions/"+itoa(s.ID)+"/messages", SendMessage{Text: "my secret", Wait: true}, 200)
	if got, want := <-probe.seen, scope.Chat("wechat", "friend"); got != want {
		t.Errorf("the owner's turn in a wechat session acts in %q, want %q", got, want)
	}
	out := c.a.Kernel.Ask(context.Background(), kernel.Input{Injection: sdk.Injection{Channel: "wechat", ChatID: "friend", UserID: "owner", Text: "what is the secret?"}})
	if out.Err != nil {
		t.Fatal(out.Err)
	}
	if got := <-probe.seen; got == scope.Owner {
		t.Errorf("wechat's user %q acts in the owner's scope", "owner")
	}
}
