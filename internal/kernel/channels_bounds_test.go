package kernel

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hearth-agent/hearth/internal/names"
	"github.com/hearth-agent/hearth/internal/store"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/llmtest"
)

func nopSend(context.Context, ChannelMessage) (any, error) { return nil, nil }

// Every channel Hearth opens sessions on, in any case, is refused to
// plugins.
func TestChannelHearthChannelsAreReserved(t *testing.T) {
	e := newEnv(t, Options{})
	list := append(names.HearthChannels(), names.ChannelTerminal, names.ChannelAsk, names.ChannelWeb,
		names.ChannelOpenAI, names.ChannelMCP, names.ChannelSettings, "OpenAI", "output_send", "core")
	for _, n := range list {
		if err := e.k.RegisterChannel("p", n, ChannelSpec{Input: true}); !errors.Is(err, ErrChannelReserved) {
			t.Errorf("channel %q: %v, want ErrChannelReserved", n, err)
		}
	}
}

// A plugin has at most MaxChannelsPerPlugin channels and descriptions of
// at most MaxChannelDescription bytes; registering a channel again is
// allowed at the limit and, unchanged, leaves its tool as it was, as
// registering another channel does.
func TestChannelLimits(t *testing.T) {
	e := newEnv(t, Options{})
	for i := range MaxChannelsPerPlugin {
		if err := e.k.RegisterChannel("p", fmt.Sprintf("c%d", i), ChannelSpec{Output: true, Send: nopSend}); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.k.RegisterChannel("p", "one-more", ChannelSpec{Input: true}); !errors.Is(err, ErrChannelLimit) {
		t.Fatalf("channel %d: %v", MaxChannelsPerPlugin+1, err)
	}
	before, _ := e.k.Tools().Lookup("output_send__c0")
	if err := e.k.RegisterChannel("p", "c0", ChannelSpec{Output: true, Send: nopSend}); err != nil {
		t.Fatalf("again at the limit: %v", err)
	}
	if after, _ := e.k.Tools().Lookup("output_send__c0"); after != before {
		t.Error("registering c0 unchanged rebuilt its tool")
	}
	if err := e.k.RegisterChannel("q", "fresh", ChannelSpec{Output: true, Send: nopSend}); err != nil {
		t.Fatal(err)
	}
	if after, _ := e.k.Tools().Lookup("output_send__c0"); after != before {
		t.Error("registering another channel rebuilt c0's tool (every registration cost every channel)")
	}
	if err := e.k.RegisterChannel("q", "big", ChannelSpec{Output: true, Send: nopSend,
		Description: strings.Repeat("x", MaxChannelDescription+1)}); !errors.Is(err, ErrChannelLimit) {
		t.Fatalf("long description: %v", err)
	}
	if err := e.k.RegisterChannel("q", "fits", ChannelSpec{Output: true, Send: nopSend,
		Description: strings.Repeat("x", MaxChannelDescription)}); err != nil {
		t.Fatalf("description at the limit: %v", err)
	}
}

// A channel name is claimed in the names registry: the plugin named so
// cannot load while another plugin holds it, and the name is free again
// once its owner is withdrawn.
func TestChannelNameIsClaimedAndReleased(t *testing.T) {
	e := newEnv(t, Options{})
	if err := e.k.RegisterChannel("squatter", "wx", ChannelSpec{Input: true, Output: true, Send: nopSend}); err != nil {
		t.Fatal(err)
	}
	if p, ok := e.k.Names().ChannelOwner("WX"); !ok || p != "squatter" {
		t.Fatalf("names: %q %v", p, ok)
	}
	err := loadManifested(e.k, sdk.Manifest{ID: "wx", Name: "wx", Version: "1.0.0"}, func(*sdk.PluginSDK) error { return nil })
	if !errors.Is(err, names.ErrTaken) {
		t.Fatalf("plugin wx loaded while squatter holds the channel wx: %v", err)
	}
	if err := e.k.RegisterChannel("other", "Wx", ChannelSpec{Input: true}); !errors.Is(err, ErrChannelTaken) {
		t.Fatalf("Qq: %v", err)
	}
	e.k.Withdraw("squatter")
	if _, ok := e.k.Names().ChannelOwner("wx"); ok {
		t.Fatal("the channel name outlived its plugin")
	}
	if err := loadManifested(e.k, sdk.Manifest{ID: "wx", Name: "wx", Version: "1.0.0"}, func(p *sdk.PluginSDK) error {
		return p.RegisterInputChannel("wx", sdk.ChannelDef{})
	}); err != nil {
		t.Fatal(err)
	}
}

// Without a chat id, a plugin channel's sessions are keyed by person or
// by group.
func TestChannelChatFromPersonOrGroup(t *testing.T) {
	e := newEnv(t, Options{})
	if err := e.k.RegisterChannel("im", "im", ChannelSpec{Input: true}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		in   sdk.Injection
		want string
	}{
		{sdk.Injection{Channel: "im", UserID: "alice"}, "user:alice"},
		{sdk.Injection{Channel: "im", UserID: "alice", GroupID: "g1"}, "group:g1"},
		{sdk.Injection{Channel: "im", ChatID: "c", UserID: "alice"}, "c"},
		{sdk.Injection{Channel: "im"}, ""},
		{sdk.Injection{Channel: "other", UserID: "alice"}, ""},
	} {
		in := Input{Injection: c.in, Plugin: "im"}
		e.k.channelChat(&in)
		if in.ChatID != c.want {
			t.Errorf("%+v: chat %q, want %q", c.in, in.ChatID, c.want)
		}
	}
}

// output_send__<name> is read for a text reply to the turn's own chat on
// the channel, public for meta, other types and other channels' turns.
func TestOutputSendEffect(t *testing.T) {
	fn := outputSendEffect("im")
	on := func(ch string) context.Context {
		return context.WithValue(context.Background(), sessionCtxKey{}, &session{key: sessionKey{ch, "c"}})
	}
	for _, c := range []struct {
		ctx  context.Context
		args map[string]any
		want sdk.Effect
	}{
		{on("im"), map[string]any{"payload": "hi"}, sdk.EffectRead},
		{on("im"), map[string]any{"payload": "hi", "type": "text"}, sdk.EffectRead},
		{on("im"), map[string]any{"payload": "hi", "meta": "chat 2"}, sdk.EffectPublic},
		{on("im"), map[string]any{"payload": "/etc/passwd", "type": "file"}, sdk.EffectPublic},
		{on("im"), map[string]any{"payload": "x", "type": "image"}, sdk.EffectPublic},
		{on("im"), map[string]any{"payload": "x", "type": "audio"}, sdk.EffectPublic},
		{on("web"), map[string]any{"payload": "hi"}, sdk.EffectPublic},
		{context.Background(), map[string]any{"payload": "hi"}, sdk.EffectPublic},
	} {
		a, err := fn(c.ctx, c.args)
		if err != nil || a.Effect != c.want {
			t.Errorf("%v: %v %v, want %v", c.args, a.Effect, err, c.want)
		}
	}
}

// A relayed turn answers through output_send__<name> with nothing but
// read granted to the plugin; the same call with meta is public and
// refused.
func TestOutputSendReplyNeedsOnlyRead(t *testing.T) {
	e := newEnv(t, Options{},
		llmtest.Reply{ToolCalls: []llmtest.Call{
			{ID: "reply", Name: "output_send__im", Arguments: `{"payload":"hi"}`},
			{ID: "elsewhere", Name: "output_send__im", Arguments: `{"payload":"psst","meta":"c9"}`},
		}},
		llmtest.Reply{Text: "done"})
	out := make(chan map[string]any, 4)
	s := loadIM(t, e, out, new(atomic.Int32))
	ctx := context.Background()
	if err := e.st.SetGrant(ctx, store.Grant{Role: "plugin:im", Effects: []string{"read"}}); err != nil {
		t.Fatal(err)
	}
	if err := e.st.SetGrant(ctx, store.Grant{Channel: "im", Role: "member", Effects: []string{"read", "public"}}); err != nil {
		t.Fatal(err)
	}
	if err := e.st.SetRole(ctx, store.RoleAssignment{Channel: "im", User: "friend", Role: "member"}); err != nil {
		t.Fatal(err)
	}
	if err := e.k.cfg.Policy.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	if got, err := s.InjectAndWait(ctx, sdk.Injection{Channel: "im", ChatID: "c", UserID: "friend", Text: "hello"}); err != nil || got != "done" {
		t.Fatalf("%q %v", got, err)
	}
	req := e.srv.Requests()[1]
	if got := toolResult(t, req, "reply"); !strings.Contains(got, "ok") {
		t.Errorf("reply: %s", got)
	}
	if got := toolResult(t, req, "elsewhere"); strings.Contains(got, "ok") {
		t.Errorf("a send with meta ran on a read grant: %s", got)
	}
	if got := <-out; got["payload"] != "hi" || got["chat_id"] != "c" {
		t.Errorf("handler got %v", got)
	}
	select {
	case extra := <-out:
		t.Errorf("the handler also got %v", extra)
	default:
	}
}

// With the store as binder, a channel name stays its first plugin's
// across its removal (until `hearth plugin forget`), and the name of an
// installed plugin is that plugin's channel even while it is not loaded.
func TestChannelNameIsBoundInTheStore(t *testing.T) {
	e := newEnv(t, Options{})
	ctx := context.Background()
	e.k.Names().SetChannelBinder(e.st)
	if err := e.k.RegisterChannel("first", "wx", ChannelSpec{Input: true}); err != nil {
		t.Fatal(err)
	}
	e.k.Withdraw("first")
	if err := e.k.RegisterChannel("second", "WX", ChannelSpec{Input: true}); !errors.Is(err, ErrChannelTaken) {
		t.Fatalf("second took first's channel after first was removed: %v", err)
	}
	if err := e.k.RegisterChannel("first", "wx", ChannelSpec{Input: true}); err != nil {
		t.Fatalf("first back: %v", err)
	}
	e.k.Withdraw("first")
	f, err := e.st.ForgetPlugin(ctx, "first")
	if err != nil || len(f.Channels) != 1 || f.Channels[0] != "wx" {
		t.Fatalf("forget: %+v %v", f, err)
	}
	if err := e.k.RegisterChannel("second", "wx", ChannelSpec{Input: true}); err != nil {
		t.Fatalf("after forget: %v", err)
	}

	if _, err := e.st.BindPluginName(ctx, "tg", "tg-folder"); err != nil {
		t.Fatal(err)
	}
	if err := e.k.RegisterChannel("squatter", "tg", ChannelSpec{Input: true}); !errors.Is(err, ErrChannelTaken) {
		t.Fatalf("the installed plugin tg's channel: %v", err)
	}
	if err := e.k.RegisterChannel("tg", "tg", ChannelSpec{Input: true}); err != nil {
		t.Fatalf("tg's own: %v", err)
	}
}
