package server

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hearth-agent/hearth/internal/kernel"
	"github.com/hearth-agent/hearth/internal/policy"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/llmtest"
	"go.uber.org/goleak"
)

// shop is a plugin with a tool that spends money: it always asks.
func shop(bought *atomic.Int32) func(string, map[string]any) (sdk.Plugin, error) {
	return func(name string, _ map[string]any) (sdk.Plugin, error) {
		return plugin{name, func(s *sdk.PluginSDK) error {
			return s.RegisterTool("buy", sdk.ToolDef{Description: "buys", Title: "Buy", Effect: sdk.EffectMoney, AlwaysAsk: true},
				func(map[string]any) (any, error) {
					bought.Add(1)
					return "bought", nil
				})
		}}, nil
	}
}

var buyThenThank = []llmtest.Reply{
	{ToolCalls: []llmtest.Call{{ID: "c1", Name: "shop__buy", Arguments: `{"item":"tea"}`}}},
	{Text: "done"},
}

// An approval asked by an API turn shows on the stream and in the list,
// is answered with POST /v1/approvals/{id}, and the tool runs.
func TestApprovalDecidedOverAPI(t *testing.T) {
	c := newChat(t, buyThenThank...)
	var bought atomic.Int32
	if err := c.a.Kernel.LoadPlugin("shop", shop(&bought), nil); err != nil {
		t.Fatal(err)
	}
	s := call[Session](t, c.hs, "POST", "/v1/sessions", nil, 201)
	path := "/v1/sessions/" + itoa(s.ID)
	stream := openSSE(t, c.hs, path+"/events")
	call[Queued](t, c.hs, "POST", path+"/messages", SendMessage{Text: "buy tea"}, 202)
	evs := stream.until(t, EvApprovalRequest)
	a := evs[len(evs)-1].data.Approval
	if a == nil || a.Tool != "shop__buy" || a.SessionID != s.ID || a.Channel != "web" || !a.ConfirmAlways ||
		string(a.Arguments) != `{"item":"tea"}` || a.RequestedBy != "web:owner" || a.ExpiresAt.IsZero() {
		t.Fatalf("approval %+v", a)
	}
	list := call[ApprovalList](t, c.hs, "GET", "/v1/approvals", nil, 200)
	if len(list.Approvals) != 1 || list.Approvals[0].ID != a.ID {
		t.Fatalf("list %+v", list)
	}
	apath := "/v1/approvals/" + itoa(a.ID)
	for _, tc := range []struct {
		body   any
		status int
		code   string
	}{
		{Decision{Answer: "always"}, 400, "confirm_required"},
		{Decision{Answer: "yes"}, 400, "invalid_answer"},
		{`{"answer":"once","x":1}`, 400, "invalid_json"},
	} {
		if status, data := do(t, c.hs, "POST", apath, tc.body); status != tc.status || errorCode(t, data) != tc.code {
			t.Errorf("%v: %d %s", tc.body, status, data)
		}
	}
	if status, data := do(t, c.hs, "POST", "/v1/approvals/99999", Decision{Answer: "once"}); status != 404 || errorCode(t, data) != "no_approval" {
		t.Errorf("unknown id: %d %s", status, data)
	}
	if d := call[Decided](t, c.hs, "POST", apath, Decision{Answer: "once"}, 200); d.Answer != "once" {
		t.Fatalf("decided %+v", d)
	}
	evs = stream.until(t, EvTurnFinished)
	got := names(evs)
	if evs[0].name != EvApprovalDecided || evs[0].data.ID != a.ID || evs[0].data.Answer != "once" || evs[0].data.By != "api" {
		t.Fatalf("after deciding: %v %+v", got, evs[0])
	}
	if !strings.Contains(strings.Join(got, " "), EvToolStarted+" "+EvToolFinished) || bought.Load() != 1 {
		t.Fatalf("events %v, bought %d", got, bought.Load())
	}
	if evs[len(evs)-1].data.Text != "done" {
		t.Fatalf("final %+v", evs[len(evs)-1])
	}
	if status, data := do(t, c.hs, "POST", apath, Decision{Answer: "deny"}); status != 409 || errorCode(t, data) != "already_decided" {
		t.Errorf("second answer: %d %s", status, data)
	}
}

// A channel's own prompt answering first wins; the API's later answer is
// refused with 409 already_decided, and every stream sees who decided.
func TestLocalApproverWins(t *testing.T) {
	c := newChat(t, buyThenThank...)
	var bought atomic.Int32
	if err := c.a.Kernel.LoadPlugin("shop", shop(&bought), nil); err != nil {
		t.Fatal(err)
	}
	all := openSSE(t, c.hs, "/v1/events")
	answer := make(chan policy.Answer)
	local := func(ctx context.Context, req *policy.ApprovalRequest) (policy.Answer, error) {
		select {
		case a := <-answer:
			return a, nil
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
	done := c.a.Kernel.Submit(kernel.Input{Injection: sdk.Injection{Channel: "terminal", Text: "buy tea"},
		Approver: c.s.Approvals().Approver(local)})
	evs := all.until(t, EvApprovalRequest)
	a := evs[len(evs)-1].data.Approval
	if a.Channel != "terminal" || a.SessionID == 0 {
		t.Fatalf("approval %+v", a)
	}
	answer <- policy.AllowOnce
	evs = all.until(t, EvApprovalDecided)
	if d := evs[len(evs)-1].data; d.By != "terminal" || d.Answer != "once" || d.SessionID != a.SessionID {
		t.Fatalf("decided %+v", d)
	}
	status, data := do(t, c.hs, "POST", "/v1/approvals/"+itoa(a.ID), Decision{Answer: "deny"})
	if status != http.StatusConflict || errorCode(t, data) != "already_decided" {
		t.Fatalf("late API answer: %d %s", status, data)
	}
	if out := <-done; out.Text != "done" || bought.Load() != 1 {
		t.Fatalf("outcome %+v, bought %d", out, bought.Load())
	}
}

// A client that disconnects from the stream mid-turn does not stop the
// turn: it finishes and is stored, and nothing is left running.
func TestStreamClientLeavesMidTurn(t *testing.T) {
	c := newChat(t,
		llmtest.Reply{ToolCalls: []llmtest.Call{{ID: "w1", Name: "gate__wait", Arguments: `{}`}}},
		llmtest.Reply{Text: "finished anyway"})
	started, release := make(chan struct{}, 1), make(chan struct{})
	if err := c.a.Kernel.LoadPlugin("gate", gatePlugin(started, release), nil); err != nil {
		t.Fatal(err)
	}
	s := call[Session](t, c.hs, "POST", "/v1/sessions", nil, 201)
	path := "/v1/sessions/" + itoa(s.ID)
	c.hs.Client().CloseIdleConnections()
	opt := goleak.IgnoreCurrent()

	watcher := openSSE(t, c.hs, "/v1/events") // stays, to see the end
	leaver := openSSE(t, c.hs, path+"/events")
	call[Queued](t, c.hs, "POST", path+"/messages", SendMessage{Text: "wait"}, 202)
	leaver.until(t, EvToolStarted)
	<-started
	leaver.close()
	if got := call[Session](t, c.hs, "GET", path, nil, 200); !got.Busy {
		t.Fatalf("session not busy mid-turn: %+v", got)
	}
	close(release)
	evs := watcher.until(t, EvTurnFinished)
	var result *Event
	for i := range evs {
		if evs[i].name == EvToolFinished {
			result = &evs[i].data
		}
	}
	if result == nil || !result.ResultTruncated || len(result.Result) != maxEventResult {
		t.Fatalf("tool.finished %+v", result)
	}
	msgs := call[MessageList](t, c.hs, "GET", path+"/messages", nil, 200)
	if n := len(msgs.Messages); n != 4 || msgs.Messages[n-1].Content != "finished anyway" ||
		len(msgs.Messages[1].ToolCalls) != 1 || msgs.Messages[1].ToolCalls[0].Name != "gate__wait" {
		t.Fatalf("stored %+v", msgs)
	}
	watcher.close()
	c.hs.Client().CloseIdleConnections()
	c.hs.CloseClientConnections()
	// The app's keep-alive connections to the fake provider may idle, both
	// ends (waiting for the next request); a turn or a stream left running
	// would not be one of them.
	goleak.VerifyNone(t, opt, goleak.IgnoreAnyFunction("net/http.(*persistConn).readLoop"),
		goleak.IgnoreAnyFunction("net/http.(*persistConn).writeLoop"), goleak.IgnoreAnyFunction("net/http.(*connReader).Read"))
}
