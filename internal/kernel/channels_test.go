package kernel

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hearth-agent/hearth/internal/policy"
	"github.com/hearth-agent/hearth/internal/store"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// imPlugin is a chat app's channel plugin: it registers the channel "im"
// both ways, a write tool, and hands what its output handler gets to out.
func imPlugin(out chan<- map[string]any, sdkOut **sdk.PluginSDK, wrote *atomic.Int32) func(*sdk.PluginSDK) error {
	return func(s *sdk.PluginSDK) error {
		*sdkOut = s
		if err := s.RegisterInputChannel("im", sdk.ChannelDef{}); err != nil {
			return err
		}
		if err := s.RegisterOutputChannel("im", sdk.CapText|sdk.CapFile, "meta: the chat to send to", sdk.ChannelDef{},
			func(args map[string]any) (any, error) {
				out <- args
				return map[string]any{"ok": true}, nil
			}); err != nil {
			return err
		}
		return s.RegisterTool("note", sdk.ToolDef{Title: "write a note", Effect: sdk.EffectWrite},
			func(map[string]any) (any, error) { wrote.Add(1); return "noted", nil })
	}
}

func loadIM(t *testing.T, e *env, out chan<- map[string]any, wrote *atomic.Int32) *sdk.PluginSDK {
	t.Helper()
	var s *sdk.PluginSDK
	if err := loadManifested(e.k, sdk.Manifest{ID: "im", Name: "im", Version: "1.0.0",
		Capabilities: []string{sdk.CapabilityInjectUser}}, imPlugin(out, &s, wrote)); err != nil {
		t.Fatal(err)
	}
	return s
}

// A person's message the plugin relays on its channel is answered in the
// session (im, chat), and the answer goes back through the plugin's output
// handler with the chat and the person.
func TestChannelInputIsAnsweredThroughTheOutputHandler(t *testing.T) {
	e := newEnv(t, Options{}, llmtest.Reply{Text: "你好"})
	out := make(chan map[string]any, 4)
	s := loadIM(t, e, out, new(atomic.Int32))
	if err := s.InjectInput(sdk.Injection{Channel: "im", ChatID: "c1", UserID: "u1", Text: "hi"}); err != nil {
		t.Fatal(err)
	}
	got := <-out
	if got["payload"] != "你好" || got["type"] != "text" || got["chat_id"] != "c1" || got["user_id"] != "u1" || got["final"] != true {
		t.Fatalf("output handler got %v", got)
	}
	sess, err := e.st.Session(context.Background(), "im", "c1")
	if err != nil || sess.ID == 0 {
		t.Fatalf("session (im, c1): %+v %v", sess, err)
	}
	if owner, ok := e.k.ChannelOwner("im"); !ok || owner != "im" {
		t.Fatalf("owner %q %v", owner, ok)
	}
}

// InjectInputSync returns the answer and leaves the sending to the plugin
// (HomeAgent's contract): the output handler is not called.
func TestChannelSyncAnswerIsReturnedNotSent(t *testing.T) {
	e := newEnv(t, Options{}, llmtest.Reply{Text: "sync answer"}, llmtest.Reply{Text: "async answer"})
	out := make(chan map[string]any, 4)
	s := loadIM(t, e, out, new(atomic.Int32))
	if got := s.InjectInputSync("im", "im", "q"); got != "sync answer" {
		t.Fatalf("InjectInputSync = %q", got)
	}
	s.InjectText("im", "im", "then")
	if got := <-out; got["payload"] != "async answer" {
		t.Fatalf("the first message sent was %v", got)
	}
}

// A channel never shadows Hearth's own channels nor another plugin's, and
// its name must fit output_send__<name> in a tool name.
func TestChannelNamesAreChecked(t *testing.T) {
	e := newEnv(t, Options{})
	out := make(chan map[string]any, 1)
	loadIM(t, e, out, new(atomic.Int32))
	h := func(map[string]any) (any, error) { return nil, nil }
	for _, c := range []struct {
		name string
		want error
	}{
		{"terminal", ErrChannelReserved}, {"web", ErrChannelReserved}, {"Ask", ErrChannelReserved},
		{"mcp", ErrChannelReserved}, {"output_send", ErrChannelReserved},
		{"im", ErrChannelTaken}, {"IM", ErrChannelTaken},
		{"bad name", ErrChannelName}, {"a:b", ErrChannelName}, {"", ErrChannelName},
		{strings.Repeat("x", sdk.MaxChannelName+1), ErrChannelName},
	} {
		err := loadManifested(e.k, sdk.Manifest{ID: "other" + string(rune('a'+len(c.name)%26)), Name: "other", Version: "1.0.0"},
			func(s *sdk.PluginSDK) error {
				return s.RegisterOutputChannel(c.name, sdk.CapText, "", sdk.ChannelDef{}, h)
			})
		if !errors.Is(err, c.want) {
			t.Errorf("%q: %v, want %v", c.name, err, c.want)
		}
	}
	if err := e.k.RegisterChannel("im", "im2", ChannelSpec{Def: sdk.ChannelDef{RecallPolicy: "sometimes"}}); err == nil {
		t.Error("an unknown recall policy was accepted")
	}
	if err := e.k.RegisterChannel("im", "im2", ChannelSpec{Output: true}); err == nil {
		t.Error("an output channel without a handler was accepted")
	}
}

// output_send__<name> sends what the channel declared and refuses the
// rest with a clear error, before the plugin sees it.
func TestOutputSendRefusesUndeclaredCapability(t *testing.T) {
	e := newEnv(t, Options{},
		llmtest.Reply{ToolCalls: []llmtest.Call{
			{ID: "img", Name: "output_send__im", Arguments: `{"payload":"/tmp/cat.png","type":"image"}`},
			{ID: "txt", Name: "output_send__im", Arguments: `{"payload":"hello","meta":"c9"}`},
		}},
		llmtest.Reply{Text: "done"})
	out := make(chan map[string]any, 4)
	loadIM(t, e, out, new(atomic.Int32))
	ctx := context.Background()
	if err := e.k.cfg.Policy.SetOverride(ctx, "output_send__im", sdk.ModeAuto); err != nil {
		t.Fatal(err)
	}
	if o := e.ask(t, "tell them"); o.Err != nil || o.Text != "done" {
		t.Fatalf("%+v", o)
	}
	req := e.srv.Requests()[1]
	if got := toolResult(t, req, "img"); !strings.Contains(got, `cannot send \"image\": it declared text, file`) {
		t.Fatalf("image: %s", got)
	}
	if got := toolResult(t, req, "txt"); !strings.Contains(got, "ok") {
		t.Fatalf("text: %s", got)
	}
	got := <-out
	if got["payload"] != "hello" || got["meta"] != "c9" || got["final"] != nil {
		t.Fatalf("handler got %v", got)
	}
	select {
	case extra := <-out:
		t.Fatalf("the handler also got %v", extra)
	default:
	}
}

// On the plugin's channel a guest's write call is refused, and a member
// the owner let write still has the owner approve it through the
// approvals broker, never the channel's user.
func TestChannelUsersRightsAndApprovals(t *testing.T) {
	call := llmtest.Reply{ToolCalls: []llmtest.Call{{ID: "w", Name: "im__note", Arguments: `{}`}}}
	e := newEnv(t, Options{}, call, llmtest.Reply{Text: "guest done"}, call, llmtest.Reply{Text: "member done"})
	out := make(chan map[string]any, 4)
	var wrote atomic.Int32
	s := loadIM(t, e, out, &wrote)
	ctx := context.Background()
	for _, g := range []store.Grant{
		{Role: "plugin:im", Effects: []string{"read", "write"}},
		{Channel: "im", Role: "member", Effects: []string{"read", "write"}},
	} {
		if err := e.st.SetGrant(ctx, g); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.st.SetRole(ctx, store.RoleAssignment{Channel: "im", User: "friend", Role: "member"}); err != nil {
		t.Fatal(err)
	}
	if err := e.k.cfg.Policy.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	if err := e.k.cfg.Policy.SetOverride(ctx, "im__note", sdk.ModeAsk); err != nil {
		t.Fatal(err)
	}
	a := &approvals{next: []policy.Answer{policy.AllowOnce}}
	e.k.SetFallbackApprover(a.approver)

	if got, err := s.InjectAndWait(ctx, sdk.Injection{Channel: "im", ChatID: "c", UserID: "stranger", Text: "write"}); err != nil || got != "guest done" {
		t.Fatalf("guest: %q %v", got, err)
	}
	if got := toolResult(t, e.srv.Requests()[1], "w"); !strings.Contains(got, "unknown tool") && !strings.Contains(got, "may not") {
		t.Fatalf("guest's call answered %q", got)
	}
	if wrote.Load() != 0 || len(a.seen) != 0 {
		t.Fatalf("guest: wrote %d, asked %d", wrote.Load(), len(a.seen))
	}

	if got, err := s.InjectAndWait(ctx, sdk.Injection{Channel: "im", ChatID: "c", UserID: "friend", Text: "write"}); err != nil || got != "member done" {
		t.Fatalf("member: %q %v", got, err)
	}
	if wrote.Load() != 1 || len(a.seen) != 1 {
		t.Fatalf("member: wrote %d, asked %d", wrote.Load(), len(a.seen))
	}
	if r := a.seen[0].Requests; r.Plugin != "im" || r.User != "friend" || r.Channel != "im" {
		t.Fatalf("approval requested for %+v", r)
	}
}

// Withdrawing the plugin removes its channels and output_send tools.
func TestChannelsGoWithTheirPlugin(t *testing.T) {
	e := newEnv(t, Options{})
	send := func(context.Context, ChannelMessage) (any, error) { return nil, nil }
	if err := e.k.RegisterChannel("ext", "ext", ChannelSpec{Input: true, Output: true, Send: send}); err != nil {
		t.Fatal(err)
	}
	if _, ok := e.k.Tools().Lookup("output_send__ext"); !ok {
		t.Fatal("no output_send__ext")
	}
	if err := e.k.UnregisterChannel("other", "ext"); err == nil {
		t.Fatal("another plugin unregistered ext")
	}
	e.k.Withdraw("ext")
	if _, ok := e.k.Tools().Lookup("output_send__ext"); ok {
		t.Fatal("output_send__ext outlived its plugin")
	}
	if len(e.k.Channels()) != 0 {
		t.Fatalf("channels %+v", e.k.Channels())
	}
}
