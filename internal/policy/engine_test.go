package policy

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hearth-agent/hearth/internal/store"
	"github.com/hearth-agent/hearth/internal/tools"
	"github.com/hearth-agent/hearth/sdk"
)

func benchCall(b *testing.B) (*Engine, *Call) {
	eng, err := NewEngine(context.Background(), DiscardStore{}, nil)
	if err != nil {
		b.Fatal(err)
	}
	tool, err := tools.NewRegistry().Register("weather", sdk.ToolDef{Name: "query", Effect: sdk.EffectRead},
		func(context.Context, *sdk.ToolContext, map[string]any, json.RawMessage) (any, error) { return nil, nil })
	if err != nil {
		b.Fatal(err)
	}
	return eng, &Call{
		Tool: tool, Args: map[string]any{"city": "北京"}, Raw: json.RawMessage(`{"city":"北京"}`),
		TC:        &sdk.ToolContext{Actor: sdk.ActorAgent, Turn: &sdk.TurnInfo{SessionID: "qq/g1"}},
		Requester: Requester{Channel: "qq", Group: "g1", User: "u1"},
	}
}

// BenchmarkAuthorize is the policy's cost for one call that needs no
// approval: role, grants, modes, the decision and the argument hash.
func BenchmarkAuthorize(b *testing.B) {
	eng, c := benchCall(b)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if !eng.Authorize(ctx, c).Allowed {
			b.Fatal("denied")
		}
	}
}

// BenchmarkAuthorizeBareDispatch is the bare dispatch of the same call
// (Invoke of a handler that returns at once), to report beside it.
func BenchmarkAuthorizeBareDispatch(b *testing.B) {
	_, c := benchCall(b)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if r := c.Tool.Invoke(ctx, c.TC, c.Args, c.Raw); r.IsError {
			b.Fatal(r.Content)
		}
	}
}

func TestRolesAndGrantsPrecedence(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, r := range []store.RoleAssignment{
		{Channel: "qq", User: "alice", Role: "admin"},
		{Channel: "qq", Group: "g1", User: "alice", Role: "member"},
	} {
		if err := st.SetRole(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	for _, g := range []store.Grant{
		{Role: "member", Effects: []string{"read", "write"}},
		{Channel: "qq", Group: "g2", Role: "member", Effects: []string{"read"}},
	} {
		if err := st.SetGrant(ctx, g); err != nil {
			t.Fatal(err)
		}
	}
	eng, err := NewEngine(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		r    Requester
		role Role
		set  EffectSet
	}{
		{Requester{Channel: "terminal", User: "anyone"}, Owner, AllEffects},
		{Requester{Channel: "qq", Group: "g1", User: "alice"}, Member, SetOf(sdk.EffectRead, sdk.EffectWrite)},
		{Requester{Channel: "qq", Group: "g2", User: "alice"}, Admin, ReadOnly},
		{Requester{Channel: "qq", Group: "g2", User: "bob"}, Guest, ReadOnly},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%+v", tt.r), func(t *testing.T) {
			role := eng.RoleOf(tt.r)
			if role != tt.role || eng.Allowed(tt.r, role) != tt.set {
				t.Errorf("%+v: role %s set %b, want %s %b", tt.r, role, eng.Allowed(tt.r, role), tt.role, tt.set)
			}
		})
	}
	// Member in g2 has a group grant of read only, overriding the global one.
	if got := eng.Allowed(Requester{Channel: "qq", Group: "g2"}, Member); got != ReadOnly {
		t.Fatalf("group grant not preferred: %b", got)
	}
}

func TestResolveEffectFailuresDeny(t *testing.T) {
	eng, err := NewEngine(context.Background(), DiscardStore{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	eng.HookTimeout = 20 * time.Millisecond
	reg := tools.NewRegistry()
	for name, fn := range map[string]sdk.ResolveEffectFunc{
		"errs": func(context.Context, map[string]any) (sdk.Assessment, error) {
			return sdk.Assessment{}, context.Canceled
		},
		"panic": func(context.Context, map[string]any) (sdk.Assessment, error) { panic("x") },
		"hangs": func(ctx context.Context, _ map[string]any) (sdk.Assessment, error) {
			<-ctx.Done()
			return sdk.Assessment{}, nil
		},
	} {
		t.Run(name, func(t *testing.T) {
			tool, err := reg.Register("p", sdk.ToolDef{Name: name, Effect: sdk.EffectRead, ResolveEffect: fn},
				func(context.Context, *sdk.ToolContext, map[string]any, json.RawMessage) (any, error) { return nil, nil })
			if err != nil {
				t.Fatal(err)
			}
			res := eng.Authorize(context.Background(), &Call{Tool: tool, TC: &sdk.ToolContext{Actor: sdk.ActorAgent}, Requester: Requester{Channel: "terminal"}})
			if res.Allowed || res.Reason == "" {
				t.Errorf("%s: %+v", name, res)
			}
		})
	}
}

// Authorize must not take the engine's read lock twice: a writer waiting
// in between would deadlock both.
func TestAuthorizeConcurrentWithWriters(t *testing.T) {
	eng, err := NewEngine(context.Background(), DiscardStore{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tool, _ := tools.NewRegistry().Register("p", sdk.ToolDef{Name: "t", Effect: sdk.EffectRead},
		func(context.Context, *sdk.ToolContext, map[string]any, json.RawMessage) (any, error) { return nil, nil })
	c := &Call{Tool: tool, TC: &sdk.ToolContext{Actor: sdk.ActorAgent}, Requester: Requester{Channel: "qq", User: "u"}}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < 2000; i++ {
			eng.SetOverride(context.Background(), "p__t", sdk.ModeAuto)
			eng.SetDefaults("p", map[sdk.Effect]sdk.Mode{sdk.EffectWrite: sdk.ModeAsk})
		}
	}()
	for i := 0; i < 2000; i++ {
		eng.Authorize(context.Background(), c)
	}
	<-done
}

// A suspended plugin's hooks refuse every call (after holding it, with
// hold) until it is resumed; hooks it adds meanwhile are asked only then;
// removing the plugin ends the refusals.
func TestSuspendedHooksRefuse(t *testing.T) {
	eng, err := NewEngine(context.Background(), DiscardStore{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	reg := tools.NewRegistry()
	tool, err := reg.Register("p", sdk.ToolDef{Name: "read", Effect: sdk.EffectRead},
		func(context.Context, *sdk.ToolContext, map[string]any, json.RawMessage) (any, error) { return nil, nil })
	if err != nil {
		t.Fatal(err)
	}
	authorize := func() Result {
		return eng.Authorize(context.Background(), &Call{Tool: tool, TC: &sdk.ToolContext{Actor: sdk.ActorAgent}, Requester: Requester{Channel: "terminal"}})
	}
	allow := func(context.Context, *sdk.ToolContext, string, map[string]any) (sdk.HookDecision, error) {
		return sdk.HookDecision{Verdict: sdk.VerdictAllow}, nil
	}
	for _, hold := range []bool{false, true} {
		t.Run(fmt.Sprint("hold=", hold), func(t *testing.T) {
			eng.HookTimeout = 20 * time.Millisecond // how long a held call waits for the plugin
			eng.SuspendHooks("guard", "it crashed", hold)
			eng.AddHook(Hook{Plugin: "guard", Fn: allow}) // during its handshake
			if r := authorize(); r.Allowed || r.DecidedBy != "hook:guard" || !strings.Contains(r.Reason, "it crashed") {
				t.Fatalf("hold %v: suspended: %+v", hold, r)
			}
			eng.ResumeHooks("guard")
			eng.HookTimeout = time.Minute // the hooks answer at once; a busy machine must not make them late
			if r := authorize(); !r.Allowed {
				t.Fatalf("hold %v: resumed: %+v", hold, r)
			}
		})
	}
	eng.HookTimeout = 20 * time.Millisecond
	eng.SuspendHooks("guard", "it crashed", true)
	eng.RemovePlugin("guard")
	if r := authorize(); !r.Allowed {
		t.Fatalf("removed: %+v", r)
	}
}

// A plugin's input is never the owner's: on a local channel, in the
// owner's name, its rights are its own grant (read only by default), and
// in a user's name no more than that user's.
func TestPluginRequesterIsNeverTheOwner(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	st.SetGrant(ctx, store.Grant{Role: "plugin:relay", Effects: []string{"read", "write", "money"}})
	st.SetGrant(ctx, store.Grant{Channel: "qq", Role: "member", Effects: []string{"read", "write"}})
	st.SetRole(ctx, store.RoleAssignment{Channel: "qq", User: "bob", Role: "member"})
	st.SetRole(ctx, store.RoleAssignment{Channel: "qq", User: "eve", Role: "plugin:relay"})
	eng, err := NewEngine(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		r    Requester
		role Role
		want EffectSet
	}{
		{Requester{Channel: "terminal", User: "owner"}, Owner, AllEffects},
		{Requester{Channel: "terminal", Plugin: "memo"}, "plugin:memo", ReadOnly},
		{Requester{Channel: "terminal", User: "owner", Plugin: "memo"}, "plugin:memo", ReadOnly},
		{Requester{Channel: "memo", Plugin: "memo"}, "plugin:memo", ReadOnly},
		{Requester{Channel: "terminal", User: "owner", Plugin: "relay"}, "plugin:relay", SetOf("read", "write", "money")},
		{Requester{Channel: "qq", User: "bob", Plugin: "relay"}, "plugin:relay", SetOf("read", "write")},
		{Requester{Channel: "qq", User: "eve"}, Guest, ReadOnly}, // a plugin's role given to a person is ignored
	} {
		t.Run(fmt.Sprintf("%+v", tc.r), func(t *testing.T) {
			role := eng.RoleOf(tc.r)
			if role != tc.role {
				t.Errorf("%v: role %s, want %s", tc.r, role, tc.role)
			}
			if got := eng.Allowed(tc.r, role); got != tc.want {
				t.Errorf("%v: allowed %b, want %b", tc.r, got, tc.want)
			}
		})
	}
	if !ValidRole("plugin:memo") || ValidRole("plugin:") || !IsPluginRole("plugin:memo") {
		t.Error("plugin roles")
	}
}
