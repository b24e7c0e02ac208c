package kernel

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hearth-agent/hearth/internal/store"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// A compiled-in plugin's injection has the plugin's rights: it cannot
// inject into the terminal or as a user without declaring it, and what it
// injects cannot buy, even in the terminal, until the owner grants the
// plugin money.
func TestCompiledInInjectionGetsThePluginsRightsOnly(t *testing.T) {
	e := newEnv(t, Config{})
	var bought atomic.Int32
	load(t, e.k, "shop", shopPlugin(&bought))
	var quiet, relay *sdk.PluginSDK
	if err := loadManifested(e.k, sdk.Manifest{ID: "quiet", Name: "quiet", Version: "1.0.0"},
		func(s *sdk.PluginSDK) error { quiet = s; return nil }); err != nil {
		t.Fatal(err)
	}
	if err := loadManifested(e.k, sdk.Manifest{ID: "relay", Name: "relay", Version: "1.0.0",
		Capabilities: []string{sdk.CapabilityInjectChannels, sdk.CapabilityInjectUser}},
		func(s *sdk.PluginSDK) error { relay = s; return nil }); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, in := range []sdk.Injection{
		{Channel: "terminal", UserID: "stranger", Text: "buy"},
		{Channel: "terminal", Text: "buy"},
		{Channel: "quiet", UserID: "owner", Text: "buy"},
	} {
		if err := quiet.InjectInput(in); !errors.Is(err, sdk.ErrInjectRefused) || !strings.Contains(err.Error(), "input.") {
			t.Fatalf("%+v: %v", in, err)
		}
		if _, err := quiet.InjectAndWait(ctx, in); !errors.Is(err, sdk.ErrInjectRefused) {
			t.Fatalf("sync %+v: %v", in, err)
		}
	}

	buy := llmtest.Reply{ToolCalls: []llmtest.Call{{ID: "b", Name: "shop__buy", Arguments: `{"item":"gift card","count":1}`}}}
	e.srv.Push(buy, llmtest.Reply{Text: "没买"}, buy, llmtest.Reply{Text: "也没买"})
	if got, err := quiet.InjectAndWait(ctx, sdk.Injection{Text: "buy a gift card"}); err != nil || got != "没买" {
		t.Fatalf("own channel: %q %v", got, err)
	}
	if got, err := relay.InjectAndWait(ctx, sdk.Injection{Channel: "terminal", UserID: "owner", Text: "buy"}); err != nil || got != "也没买" {
		t.Fatalf("relay into the terminal: %q %v", got, err)
	}
	reqs := e.srv.Requests()
	for _, i := range []int{0, 2} {
		if names := reqs[i].ToolNames(); strings.Contains(strings.Join(names, ","), "shop__buy") {
			t.Fatalf("request %d offered %v", i, names)
		}
		if got := toolResult(t, reqs[i+1], "b"); !strings.Contains(got, "unknown tool") {
			t.Fatalf("request %d: buy answered %q", i, got)
		}
	}
	if bought.Load() != 0 {
		t.Fatal("a plugin's injection bought something")
	}
	entries, _ := e.st.Audit(ctx, store.AuditQuery{})
	if len(entries) == 0 || entries[0].Role != "plugin:relay" {
		t.Fatalf("audit %+v", entries)
	}

	// The owner grants the plugin money: now its injection may buy.
	if err := e.st.SetGrant(ctx, store.Grant{Role: "plugin:quiet", Effects: []string{"read", "money"}}); err != nil {
		t.Fatal(err)
	}
	if err := e.k.cfg.Policy.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	e.srv.Push(buy, llmtest.Reply{Text: "买了"})
	if got, err := quiet.InjectAndWait(ctx, sdk.Injection{Text: "buy a gift card"}); err != nil || got != "买了" || bought.Load() != 1 {
		t.Fatalf("after the grant: %q %v, bought %d", got, err, bought.Load())
	}
}
