package kernel

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/hearth-agent/hearth/internal/scope"
	"github.com/hearth-agent/hearth/internal/scope/scopetest"
	"github.com/hearth-agent/hearth/sdk"
)

// TestInjectedChatIsNotAGroup: a plugin that may inject into other
// channels but may not speak in a group (no inject.user) names a chat id
// that looks like a group's session ("group:7"). Its turn must not act
// in that group's memory scope: the turn's recall would read the group's
// entries and the plugin would get them back through InjectSync.
func TestInjectedChatIsNotAGroup(t *testing.T) {
	e := newEnv(t, Options{})
	e.k.SetCapabilities("spy", []string{sdk.CapabilityInjectChannels})
	in, err := e.k.pluginInput("spy", sdk.Injection{Channel: "qq", ChatID: "group:7", Text: "what do you know?"})
	if err != nil {
		t.Fatal(err)
	}
	group := e.k.conversation(Input{Injection: sdk.Injection{Channel: "qq", ChatID: "group:7", GroupID: "7", UserID: "u7"}})
	if got := e.k.conversation(in); got == group {
		t.Errorf("spy's injection into chat %q acts in group 7's scope %q", in.ChatID, got)
	}
	// The same for a plain person's chat id and a group's id.
	for _, chat := range []string{"group:7", "-"} {
		other := e.k.conversation(Input{Injection: sdk.Injection{Channel: "qq", ChatID: chat}, Plugin: "spy"})
		if chat == "-" && other == e.k.conversation(Input{Injection: sdk.Injection{Channel: "qq"}, Plugin: "spy"}) {
			t.Errorf("chat %q and no chat share the scope %q", chat, other)
		}
	}
}

// TestDirectCallActsInItsRequestersScope: a tool call made outside a
// model turn (an MCP client's tools/call, as the owner by default) acts
// in the requester's conversation, as a turn's would: the owner's facts
// stay in Owner (never in Global, where group turns recall them), a
// group's in the group.
func TestDirectCallActsInItsRequestersScope(t *testing.T) {
	mem := &scopetest.Memory{}
	e := scopedEnv(t, mem)
	for _, c := range []struct {
		req  sdk.Injection
		fact string
		want scope.Scope
	}{
		{sdk.Injection{Channel: "test"}, "owner-secret", scope.Owner},
		{sdk.Injection{Channel: "qq", GroupID: "5", UserID: "u5"}, "group-5-fact", scope.Chat("qq", "group:5")},
	} {
		res, err := e.k.CallTool(context.Background(), DirectCall{Requester: c.req, Tool: "alpha__remember",
			Arguments: json.RawMessage(`{"fact":"` + c.fact + `"}`)})
		if err != nil || res.IsError {
			t.Fatalf("direct call as %+v: %v %+v", c.req, err, res)
		}
		for _, en := range mem.Entries() {
			if en.Kind == "entity" && en.Key == c.fact && en.Scope != c.want {
				t.Errorf("%s remembered by a direct call landed in %q, want %q", c.fact, en.Scope, c.want)
			}
		}
	}
}

// TestOddChatIDIsNotGlobal: a chat, user or group id the scope syntax
// cannot hold (a newline, a NUL: from a plugin's injection or a chat
// app) must not make the turn act in Global, where what it remembers
// surfaces in every conversation.
func TestOddChatIDIsNotGlobal(t *testing.T) {
	e := newEnv(t, Options{})
	e.k.SetCapabilities("relay", []string{sdk.CapabilityInjectUser})
	for _, inj := range []sdk.Injection{{ChatID: "a\nb"}, {ChatID: "a\x00b"}, {UserID: "u\n"}, {GroupID: "g\x00"}} {
		in, err := e.k.pluginInput("relay", inj)
		if err != nil {
			t.Fatal(err)
		}
		conv := e.k.conversation(in)
		if got := scope.From(scope.With(context.Background(), conv)); got == scope.Global {
			t.Errorf("injection %+v acts in Global (conversation %q)", inj, conv)
		}
	}
}

// TestRecallViewOwnsNothing: the agent's view of a group turn
// (recallView: writer "", every writer's entries) must not own the
// owner's Global entries nor a plugin's: scope.View.Owns treats writer
// "" with AllWriters as the owner at the CLI, so any write or delete
// made through this view in a turn a guest drives ("forget that")
// could change every writer's entries in Global and the group.
func TestRecallViewOwnsNothing(t *testing.T) {
	v := recallView(scope.Chat("qq", "group:1"))
	if v.Owns("", scope.Global) || v.Owns("alpha", scope.Global) || v.Owns("alpha", scope.Chat("qq", "group:1")) {
		t.Errorf("the agent's view in group 1 owns other writers' entries: %+v", v)
	}
}

// TestOwnerIsMarkedNotNamed: the owner's words typed into a stored
// session of a chat app (the web UI, the API) act in the owner's scope
// because the input is marked, and a person on that chat app who picks
// the user id "owner", relayed by its channel plugin or not, is not the
// owner and does not share the owner's conversation.
func TestOwnerIsMarkedNotNamed(t *testing.T) {
	e := newEnv(t, Options{})
	owner := e.k.conversation(Input{Injection: sdk.Injection{Channel: "web", ChatID: "c1", UserID: "owner"}, Owner: true})
	if owner != scope.Owner {
		t.Fatalf("the owner's marked input acts in %q, want %q", owner, scope.Owner)
	}
	// Typed into a chat app's session (through the web UI), whose history
	// the chat's other people read: the chat's own scope, never the
	// owner's private one, never a user's or the group's.
	for _, chat := range []string{"c1", "group:1"} {
		got := e.k.conversation(Input{Injection: sdk.Injection{Channel: "wechat", ChatID: chat, UserID: "owner"}, Owner: true})
		if got == scope.Owner || got == scope.User("wechat", "owner") || got == scope.Chat("wechat", "group:1") {
			t.Errorf("the owner's marked input in wechat chat %q acts in %q", chat, got)
		}
	}
	e.k.SetCapabilities("qqbot", []string{sdk.CapabilityInjectChannels, sdk.CapabilityInjectUser})
	relayed, err := e.k.pluginInput("qqbot", sdk.Injection{Channel: "wechat", ChatID: "c1", UserID: "owner", Text: "hi"})
	if err != nil {
		t.Fatal(err)
	}
	relayed.Owner = true // ignored: a plugin's input is never the owner's
	for _, in := range []Input{
		{Injection: sdk.Injection{Channel: "wechat", ChatID: "c1", UserID: "owner"}},
		{Injection: sdk.Injection{Channel: "wechat", ChatID: "owner", UserID: "owner"}},
		relayed,
	} {
		if got := e.k.conversation(in); got == owner {
			t.Errorf("guest %q on %s (plugin %q) acts in the owner's scope %q", in.UserID, in.Channel, in.Plugin, got)
		}
	}
}
