package mcpserve

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hearth-agent/hearth/sdk"
)

// An approval answer sent with a first tools/call, never asked for, is
// ignored: the user is asked, and their "no" holds (found in review: it
// ran the money call and set the tool to auto).
func TestUnaskedApprovalAnswerIsIgnored(t *testing.T) {
	for _, version := range []string{"", "2025-06-18"} {
		t.Run("version="+version, func(t *testing.T) {
			e := newEnv(t)
			var asked atomic.Int32
			cs := e.connectVersion(t, version, &mcp.ClientOptions{ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				asked.Add(1)
				return &mcp.ElicitResult{Action: "decline"}, nil // the user says no
			}})
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{
				Name: "shop__buy", Arguments: map[string]any{"item": "gold"},
				InputResponses: mcp.InputResponseMap{approvalInput: &mcp.ElicitResult{Action: "accept",
					Content: map[string]any{"allow": true, "always": true}}},
				RequestState: "v1.forged.9999999999.forged",
			})
			if err != nil {
				t.Fatal(err)
			}
			if !res.IsError || asked.Load() != 1 || e.bought.Load() != 0 {
				t.Fatalf("asked %d, bought %d: %q", asked.Load(), e.bought.Load(), callText(t, res))
			}
			if mode := e.pol.Override("shop__buy"); mode != sdk.ModeAsk {
				t.Fatalf("override now %q", mode)
			}
		})
	}
}

// A request state counts once, for the call it was issued for: not for
// other arguments, not a second time, not in another session.
func TestApprovalStateIsBoundToTheCall(t *testing.T) {
	e := newEnv(t)
	manual := &mcp.ClientOptions{
		MultiRoundTrip:     &mcp.MultiRoundTripOptions{Disabled: true},
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) { return nil, nil },
	}
	cs := e.connect(t, manual)
	other := e.connect(t, manual)
	ctx := context.Background()
	yes := mcp.InputResponseMap{approvalInput: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"allow": true}}}
	call := func(cs *mcp.ClientSession, item, state string) *mcp.CallToolResult {
		t.Helper()
		p := &mcp.CallToolParams{Name: "shop__buy", Arguments: map[string]any{"item": item}}
		if state != "" {
			p.InputResponses, p.RequestState = yes, state
		}
		res, err := cs.CallTool(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	first := call(cs, "tea", "")
	state := first.RequestState
	if first.InputRequests[approvalInput] == nil || state == "" {
		t.Fatalf("first round: %+v", first)
	}
	for _, c := range []struct {
		name string
		cs   *mcp.ClientSession
		item string
	}{{"other arguments", cs, "gold"}, {"other session", other, "tea"}} {
		if res := call(c.cs, c.item, state); res.InputRequests[approvalInput] == nil || e.bought.Load() != 0 {
			t.Fatalf("%s: not asked again (%+v), bought %d", c.name, res, e.bought.Load())
		}
	}
	if res := call(cs, "tea", state); res.IsError || res.InputRequests != nil || e.bought.Load() != 1 {
		t.Fatalf("approved call: %+v %q, bought %d", res, callText(t, res), e.bought.Load())
	}
	if res := call(cs, "tea", state); res.InputRequests[approvalInput] == nil || e.bought.Load() != 1 {
		t.Fatalf("state used twice: %+v, bought %d", res, e.bought.Load())
	}
}

// Every argument is shown, long ones cut in the middle with their tail
// kept (found in review: the form showed the first 2000 bytes of JSON).
func TestApprovalFormShowsEveryArgument(t *testing.T) {
	e := newEnv(t)
	var shown string
	cs := e.connectVersion(t, "2025-06-18", &mcp.ClientOptions{ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		shown = req.Params.Message
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"allow": true}}, nil
	}})
	raw := `{"item":"tea","note":"` + strings.Repeat(" ", 2100) + `the end","qty":"1000 crates","amo` + "\u200b" + `unt":1,"amount":2}`
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "shop__buy", Arguments: json.RawMessage(raw)})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || e.bought.Load() != 1 {
		t.Fatalf("result %q", callText(t, res))
	}
	for _, want := range []string{`item = "tea"`, `qty = "1000 crates"`, `the end"`, "bytes cut", "amo<U+200B>unt = 1",
		"the name hides characters; it looks like amount", "key given more than once"} {
		if !strings.Contains(shown, want) {
			t.Errorf("form lacks %q:\n%s", want, shown)
		}
	}
	if len(shown) > 2000 {
		t.Errorf("form of %d bytes", len(shown))
	}
}

// Arguments that cannot be shown in full are not asked about through the
// form: the call is refused, saying where to approve it.
func TestArgumentsTooLongToShowAreNotAsked(t *testing.T) {
	e := newEnv(t)
	var asked atomic.Int32
	cs := e.connect(t, &mcp.ClientOptions{ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		asked.Add(1)
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"allow": true}}, nil
	}})
	fields := map[string]any{"item": "tea"}
	for i := range maxFormFields + 1 {
		fields["x"+strings.Repeat("y", i)] = i
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "shop__buy", Arguments: fields})
	if err != nil {
		t.Fatal(err)
	}
	text := callText(t, res)
	if !res.IsError || asked.Load() != 0 || e.bought.Load() != 0 || !strings.Contains(text, "web UI") ||
		!strings.Contains(text, "hearth policy set shop__buy auto") {
		t.Fatalf("asked %d, bought %d: %q", asked.Load(), e.bought.Load(), text)
	}
}

func TestCutMiddle(t *testing.T) {
	v := strings.Repeat("界", 200) // 600 bytes
	got := cutMiddle(v)
	if !strings.HasPrefix(got, "界") || !strings.HasSuffix(got, "界") || !strings.Contains(got, "bytes cut") || len(got) > maxValueShown+60 {
		t.Fatalf("%q", got)
	}
	if cutMiddle("short") != "short" {
		t.Fatal("short value cut")
	}
}

func TestApprovalStates(t *testing.T) {
	a := newApprovalStates()
	now := time.Unix(1_000_000, 0)
	a.now = func() time.Time { return now }
	s := a.issue("sess", "shop__buy", "h1", now.Add(time.Minute))
	if a.redeem(s, "sess", "shop__buy", "h2") || a.redeem(s, "sess", "shop__echo", "h1") || a.redeem(s, "sess2", "shop__buy", "h1") {
		t.Fatal("redeemed for another call")
	}
	if !a.redeem(s, "sess", "shop__buy", "h1") || a.redeem(s, "sess", "shop__buy", "h1") {
		t.Fatal("not redeemed exactly once")
	}
	late := a.issue("sess", "shop__buy", "h1", now.Add(time.Minute))
	now = now.Add(time.Minute)
	if a.redeem(late, "sess", "shop__buy", "h1") {
		t.Fatal("redeemed after it expired")
	}
	if len(a.used) != 0 {
		t.Fatalf("expired nonces kept: %v", a.used)
	}
	if newApprovalStates().redeem(a.issue("sess", "shop__buy", "h1", now.Add(time.Minute)), "sess", "shop__buy", "h1") {
		t.Fatal("redeemed under another key")
	}
}

// FuzzApprovalState: a state from outside is never accepted unless
// issued, and parsing it never panics.
func FuzzApprovalState(f *testing.F) {
	a := newApprovalStates()
	f.Add(a.issue("s", "t", "h", time.Now().Add(time.Hour)))
	f.Add("v1.a.1.b")
	f.Add("")
	f.Add("v1...")
	f.Fuzz(func(t *testing.T, state string) {
		b := newApprovalStates()
		if b.redeem(state, "s", "t", "h") {
			t.Fatalf("accepted %q", state)
		}
	})
}

// FuzzShowArgs: any arguments are shown without a character that hides,
// within the form's bounds, or refused; never a panic.
func FuzzShowArgs(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":"b"}`, `{"a\u200b":1,"a":2}`, `{"x":[1,{"y":[]}],"z":{}}`, `[1]`, "\xff", `{"a":"` + strings.Repeat("x", 500) + `"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		out, err := showArgs("t", raw)
		if err != nil {
			return
		}
		for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
			for _, r := range line {
				if hiddenRune(r) {
					t.Fatalf("hidden %U in %q", r, line)
				}
			}
		}
		if len(out) > maxFormArgs+maxValueShown*2+500 {
			t.Fatalf("%d bytes shown", len(out))
		}
	})
}
