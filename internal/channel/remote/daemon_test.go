package remote_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/hearth-agent/hearth/internal/app"
	"github.com/hearth-agent/hearth/internal/channel/remote"
	"github.com/hearth-agent/hearth/internal/channel/terminal"
	"github.com/hearth-agent/hearth/internal/kernel"
	"github.com/hearth-agent/hearth/internal/policy"
	"github.com/hearth-agent/hearth/internal/server"
	_ "github.com/hearth-agent/hearth/plugins/time" // the time__now tool approvals are asked for
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/llmtest"
)

const token = "remote-test-token-0123456789"

// daemon is a Hearth served on loopback, as `hearth serve` runs it.
type daemon struct {
	app *app.App
	hs  *httptest.Server
	llm *llmtest.Server
}

// newDaemon serves a Hearth whose model is llm's scripted replies; tools
// listed in ask need approval.
func newDaemon(t *testing.T, replies []llmtest.Reply, ask ...string) *daemon {
	t.Helper()
	srv := llmtest.NewServer(t, replies...)
	env := map[string]string{"OPENAI_BASE_URL": srv.URL, "OPENAI_API_KEY": "sk-test", "HEARTH_MODEL": "m"}
	a, err := app.Open(context.Background(), &app.Options{DataDir: t.TempDir(), Getenv: func(k string) string { return env[k] }})
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range ask {
		if err := a.Policy.SetOverride(context.Background(), tool, sdk.ModeAsk); err != nil {
			t.Fatal(err)
		}
	}
	s := server.New(a, &server.Options{Token: token})
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(func() {
		hs.CloseClientConnections()
		s.Close()
		hs.Close()
		a.Close()
	})
	return &daemon{app: a, hs: hs, llm: srv}
}

func (d *daemon) agent() *remote.Agent { return remote.New(d.hs.URL, token, d.hs.Client()) }

// events follows the daemon's GET /v1/events as another channel would,
// and returns the first event named name.
func (d *daemon) subscribe(t *testing.T) func(name string) map[string]any {
	t.Helper()
	req, _ := http.NewRequest("GET", d.hs.URL+"/v1/events", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := d.hs.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	br := bufio.NewReader(resp.Body)
	return func(name string) map[string]any {
		t.Helper()
		var ev string
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				t.Fatalf("waiting for %s: %v", name, err)
			}
			if v, ok := strings.CutPrefix(line, "event: "); ok {
				ev = strings.TrimSpace(v)
			}
			if v, ok := strings.CutPrefix(line, "data: "); ok && ev == name {
				var m map[string]any
				if err := json.Unmarshal([]byte(v), &m); err != nil {
					t.Fatal(err)
				}
				return m
			}
		}
	}
}

// post sends body to path as another channel (the web UI, curl) would.
func (d *daemon) post(t *testing.T, path, body string) int {
	t.Helper()
	req, _ := http.NewRequest("POST", d.hs.URL+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := d.hs.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// screen is a terminal's output that a test can wait on.
type screen struct {
	mu      sync.Mutex
	b       strings.Builder
	changed chan struct{}
}

func newScreen() *screen { return &screen{changed: make(chan struct{})} }

func (s *screen) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.b.Write(p)
	close(s.changed)
	s.changed = make(chan struct{})
	return len(p), nil
}

func (s *screen) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// waitFor returns once the output holds want (the test's -timeout bounds
// it).
func (s *screen) waitFor(t *testing.T, want string) {
	t.Helper()
	for {
		s.mu.Lock()
		got, ch := s.b.String(), s.changed
		s.mu.Unlock()
		if strings.Contains(got, want) {
			return
		}
		<-ch
	}
}

// pipe is piped input with a file descriptor, so the terminal can ask
// approvals on it.
func pipe(t *testing.T) (*os.File, *os.File) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	return r, w
}

func TestAskThroughTheDaemon(t *testing.T) {
	d := newDaemon(t, []llmtest.Reply{{Reasoning: "想一想", Text: "你好！"}})
	var out, errOut strings.Builder
	err := terminal.Ask(context.Background(), d.agent(), "hi", &terminal.Options{
		In: strings.NewReader(""), Out: &out, Err: &errOut, ShowReasoning: true})
	if err != nil {
		t.Fatalf("%v: %s", err, errOut.String())
	}
	if out.String() != "你好！\n" || !strings.Contains(errOut.String(), "想一想") {
		t.Fatalf("out %q, err %q", out.String(), errOut.String())
	}
}

func TestChatThroughTheDaemon(t *testing.T) {
	d := newDaemon(t, []llmtest.Reply{{Text: "one"}, {Text: "two"}})
	out := newScreen()
	in := strings.NewReader("first\n/new\nsecond\n")
	if err := terminal.Chat(context.Background(), d.agent(), &terminal.Options{In: in, Out: out, Err: out}); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{"one\n", "Started a new conversation", "two\n"} {
		if !strings.Contains(got, want) {
			t.Fatalf("%q not in %q", want, got)
		}
	}
	// /new forgot the first exchange.
	for _, m := range d.llm.Requests()[1].Messages {
		if m["content"] == "first" || m["content"] == "one" {
			t.Fatalf("the second request remembers the first: %v", d.llm.Requests()[1].Messages)
		}
	}
}

func TestApprovalAnsweredInTheTerminal(t *testing.T) {
	d := newDaemon(t, []llmtest.Reply{
		{ToolCalls: []llmtest.Call{{ID: "t1", Name: "time__now", Arguments: `{"zone":"UTC"}`}}},
		{Text: "it is noon"},
	}, "time__now")
	in, w := pipe(t)
	io.WriteString(w, "what time is it\ny\n")
	w.Close()
	out := newScreen()
	if err := terminal.Chat(context.Background(), d.agent(), &terminal.Options{In: in, Out: out, Err: out}); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{"[y] allow once", "→ time__now", "✓ time__now", "it is noon"} {
		if !strings.Contains(got, want) {
			t.Fatalf("%q not in %q", want, got)
		}
	}
	reqs := d.llm.Requests()
	if m := reqs[1].Messages[len(reqs[1].Messages)-1]; m["tool_call_id"] != "t1" || strings.Contains(m["content"].(string), "refused") {
		t.Fatalf("the approved call did not run: %v", m)
	}
}

func TestApprovalDecidedElsewhere(t *testing.T) {
	d := newDaemon(t, []llmtest.Reply{
		{ToolCalls: []llmtest.Call{{ID: "t1", Name: "time__now", Arguments: `{}`}}},
		{Text: "allowed from the web"},
		{Text: "a new message"},
	}, "time__now")
	next := d.subscribe(t)
	in, w := pipe(t)
	io.WriteString(w, "what time is it\n")
	out := newScreen()
	done := make(chan error, 1)
	go func() {
		done <- terminal.Chat(context.Background(), d.agent(), &terminal.Options{In: in, Out: out, Err: out})
	}()

	asked := next("approval.requested")["approval"].(map[string]any)
	out.waitFor(t, "[y] allow once") // the terminal's prompt is up
	id := fmt.Sprint(int64(asked["id"].(float64)))
	if code := d.post(t, "/v1/approvals/"+id, `{"answer":"once"}`); code != http.StatusOK {
		t.Fatalf("deciding from another channel: %d", code)
	}
	out.waitFor(t, "allowed from the web")
	w.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	reqs := d.llm.Requests()
	if m := reqs[1].Messages[len(reqs[1].Messages)-1]; m["tool_call_id"] != "t1" || strings.Contains(m["content"].(string), "refused") {
		t.Fatalf("the call allowed elsewhere did not run: %v", m)
	}
}

// The prompt's context ends as soon as another channel answers, and the
// terminal posts nothing.
func TestApprovalDecidedElsewhereCancelsThePrompt(t *testing.T) {
	d := newDaemon(t, []llmtest.Reply{
		{ToolCalls: []llmtest.Call{{ID: "t1", Name: "time__now", Arguments: `{}`}}},
		{Text: "allowed from the web"},
	}, "time__now")
	asked, gaveUp := make(chan *policy.ApprovalRequest, 1), make(chan error, 1)
	done := make(chan kernel.Outcome, 1)
	go func() {
		done <- d.agent().Ask(context.Background(), kernel.Input{
			Injection: sdk.Injection{Channel: terminal.Channel, Text: "what time is it"},
			Approver: func(ctx context.Context, req *policy.ApprovalRequest) (policy.Answer, error) {
				asked <- req
				<-ctx.Done()
				gaveUp <- ctx.Err()
				return "", ctx.Err()
			},
		})
	}()
	req := <-asked
	if req.Tool != "time__now" || req.ID == 0 {
		t.Fatalf("asked %+v", req)
	}
	if code := d.post(t, fmt.Sprintf("/v1/approvals/%d", req.ID), `{"answer":"once"}`); code != http.StatusOK {
		t.Fatalf("deciding from another channel: %d", code)
	}
	if err := <-gaveUp; !errors.Is(err, context.Canceled) {
		t.Fatalf("the prompt ended with %v", err)
	}
	if out := <-done; out.Err != nil || out.Text != "allowed from the web" {
		t.Fatalf("outcome %+v", out)
	}
}

func jsonText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func TestDaemonGoneMidTurn(t *testing.T) {
	d := newDaemon(t, []llmtest.Reply{{Text: "a long answer", Hang: true}})
	next := d.subscribe(t)
	var errOut strings.Builder
	done := make(chan error, 1)
	go func() {
		done <- terminal.Ask(context.Background(), d.agent(), "hi", &terminal.Options{
			In: strings.NewReader(""), Out: io.Discard, Err: &errOut})
	}()
	next("turn.started")
	d.hs.CloseClientConnections() // the daemon dies
	if err := <-done; !errors.Is(err, terminal.ErrFailed) {
		t.Fatalf("Ask: %v", err)
	}
	t.Logf("the terminal says: %s", errOut.String())
	if !strings.Contains(errOut.String(), "stopped answering") {
		t.Fatalf("no clear error: %q", errOut.String())
	}
}

func TestInterruptLeavesTheTurnAndTheNextMessageInterruptsIt(t *testing.T) {
	d := newDaemon(t, []llmtest.Reply{{Text: "a long answer", Hang: true}, {Text: "second"}})
	next := d.subscribe(t)
	ag := d.agent()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan kernel.Outcome, 1)
	in := kernel.Input{Injection: sdk.Injection{Channel: terminal.Channel, Text: "first"}}
	go func() { done <- ag.Ask(ctx, in) }()
	next("turn.started")
	cancel() // Ctrl-C
	if out := <-done; !out.Interrupted {
		t.Fatalf("outcome %+v", out)
	}
	in.Text = "second please"
	if out := ag.Ask(context.Background(), in); out.Err != nil || out.Text != "second" {
		t.Fatalf("outcome %+v", out)
	}
	next("turn.interrupted") // the first turn was interrupted by the second
}

func TestInjectedAnswersAreNotified(t *testing.T) {
	d := newDaemon(t, []llmtest.Reply{{Text: "mine"}, {Text: "the timer fired"}})
	in, w := pipe(t)
	io.WriteString(w, "hello\n")
	out := newScreen()
	done := make(chan error, 1)
	go func() {
		done <- terminal.Chat(context.Background(), d.agent(), &terminal.Options{In: in, Out: out, Err: out})
	}()
	out.waitFor(t, "mine\n")
	<-d.app.Kernel.Submit(kernel.Input{Injection: sdk.Injection{Source: "timer", Channel: terminal.Channel, Text: "ring"}})
	out.waitFor(t, "[terminal] the timer fired")
	w.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if strings.Count(out.String(), "mine") != 1 {
		t.Fatalf("the terminal's own answer was notified too:\n%s", out.String())
	}
}
