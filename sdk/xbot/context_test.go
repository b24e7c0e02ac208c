package xbot_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/sdktest"
	"github.com/hearth-agent/hearth/sdk/xbot"
)

// activator is an xbot plugin whose Activate is a function.
type activator func(xbot.PluginContext) error

func (activator) Manifest() xbot.PluginManifest         { return xbot.PluginManifest{ID: "x.test"} }
func (a activator) Activate(c xbot.PluginContext) error { return a(c) }
func (activator) Deactivate(xbot.PluginContext) error   { return nil }

func start(t *testing.T, fn func(xbot.PluginContext) error) (*sdktest.Harness, *xbot.Context) {
	t.Helper()
	h := sdktest.Start(t, "x", xbot.Adapt(activator(fn)), nil)
	return h, xbot.ContextOf(h.Plugin())
}

func TestStorage(t *testing.T) {
	_, c := start(t, func(xbot.PluginContext) error { return nil })
	st := c.Storage()
	if v, ok := st.Get("a"); ok || v != "" {
		t.Fatalf("unset key: %q %v", v, ok)
	}
	for _, kv := range [][2]string{{"b", "2"}, {"a", "1"}, {"b", "3"}} {
		if err := st.Set(kv[0], kv[1]); err != nil {
			t.Fatal(err)
		}
	}
	if v, _ := st.Get("b"); v != "3" || strings.Join(st.Keys(), ",") != "a,b" {
		t.Fatalf("b=%q keys %v", v, st.Keys())
	}
	if err := st.Delete("a"); err != nil || strings.Join(st.Keys(), ",") != "b" {
		t.Fatalf("after Delete: %v %v", st.Keys(), err)
	}
	if n, ok := c.StorageInt("b"); !ok || n != 3 {
		t.Fatalf("StorageInt %d %v", n, ok)
	}
	if _, ok := c.StorageBool("b"); ok {
		t.Fatal("StorageBool read 3 as a bool")
	}
	if err := c.StorageJSON("j", map[string]int{"n": 1}); err != nil {
		t.Fatal(err)
	}
	var m map[string]int
	if err := c.StorageGetJSON("j", &m); err != nil || m["n"] != 1 {
		t.Fatalf("StorageGetJSON %v %v", m, err)
	}
	if err := c.Storage().Clear(); err != nil || len(st.Keys()) != 0 {
		t.Fatalf("after Clear: %v %v", st.Keys(), err)
	}
	if _, ok := st.Get("b"); ok {
		t.Fatal("Clear left b")
	}
}

func TestLoggerFields(t *testing.T) {
	// sdktest hands the plugin the default logger.
	var buf bytes.Buffer
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&buf, nil)))
	defer slog.SetDefault(old)
	_, c := start(t, func(xbot.PluginContext) error { return nil })
	c.Logger().WithField("k", "bound").WithFields(xbot.Field{Key: "n", Value: 1}).Warn("hello", xbot.Field{Key: "k", Value: "call"})
	c.Logger().Errorf("n=%d", 7)
	logs := buf.String()
	if !strings.Contains(logs, "hello") || !strings.Contains(logs, "k=call") || strings.Contains(logs, "k=bound") || !strings.Contains(logs, "n=1") || !strings.Contains(logs, "n=7") {
		t.Fatalf("logs:\n%s", logs)
	}
}

func TestUnsupportedAreRefused(t *testing.T) {
	_, c := start(t, func(xbot.PluginContext) error { return nil })
	nop := func(context.Context, *xbot.HookPayload) (*xbot.HookResult, error) { return nil, nil }
	for _, ev := range []xbot.HookEvent{xbot.HookSessionStart, xbot.HookSessionEnd, xbot.HookSubAgentStart, xbot.HookSubAgentStop,
		xbot.HookPreCompact, xbot.HookPostCompact, xbot.HookCronFired, xbot.HookWebhookReceived, "Bogus"} {
		if err := c.OnEvent(ev, "", nop); !errors.Is(err, xbot.ErrNotSupported) {
			t.Errorf("%s: %v", ev, err)
		}
	}
	if _, err := c.ScheduleCron(xbot.CronContribution{}); !errors.Is(err, xbot.ErrNotSupported) {
		t.Error(err)
	}
	if err := c.UseMiddleware(nil); !errors.Is(err, xbot.ErrNotSupported) {
		t.Error(err)
	}
	if err := c.OnPostToolUse("", nil); err == nil {
		t.Error("nil handler accepted")
	}
}

// TestPreToolUseVerdicts runs the decision hook as the host does: Deny
// and Ask carry the message, Allow and Defer are no objection, a failing
// hook refuses (an error), and a matcher that does not match stays out.
func TestPreToolUseVerdicts(t *testing.T) {
	var decision xbot.HookDecision
	var fail bool
	var seen *xbot.HookPayload
	h, _ := start(t, func(c xbot.PluginContext) error {
		return c.OnPreToolUse("rm*|*_delete", func(_ context.Context, p *xbot.HookPayload) (*xbot.HookResult, error) {
			seen = p
			if fail {
				return nil, errors.New("broken")
			}
			return &xbot.HookResult{Decision: decision, Message: "because"}, nil
		})
	})
	hook := h.DecisionHooks()[0]
	tc := &sdk.ToolContext{PluginID: "fs", Tool: "rm_rf", Channel: "qq", ChatID: "g1", Turn: &sdk.TurnInfo{SessionID: "qq/g1"}}
	for d, want := range map[xbot.HookDecision]sdk.Verdict{xbot.DecisionDeny: sdk.VerdictDeny, xbot.DecisionAsk: sdk.VerdictAsk,
		xbot.DecisionAllow: sdk.VerdictAllow, xbot.DecisionDefer: sdk.VerdictAllow} {
		decision = d
		got, err := hook(context.Background(), tc, "fs__rm_rf", map[string]any{"path": "/"})
		if err != nil || got.Verdict != want {
			t.Errorf("%s: %+v %v", d, got, err)
		}
	}
	if seen.ToolName != "rm_rf" || seen.ToolInput != `{"path":"/"}` || seen.SessionID != "qq/g1" || seen.TenantID != xbot.TenantOf("qq", "g1") || seen.Extra["tool"] != "fs__rm_rf" {
		t.Errorf("payload %+v", seen)
	}
	fail = true
	if _, err := hook(context.Background(), tc, "fs__rm_rf", nil); err == nil {
		t.Error("a failing hook did not refuse")
	}
	seen = nil
	tc.Tool = "ls"
	if got, err := hook(context.Background(), tc, "fs__ls", nil); err != nil || got.Verdict != sdk.VerdictAllow || seen != nil {
		t.Errorf("unmatched tool: %+v %v %v", got, err, seen)
	}
}

func TestToolDefSchemaFromParameters(t *testing.T) {
	def := xbot.ToolDef{Name: "t", Parameters: []xbot.ToolParam{
		{Name: "tags", Type: "array", Required: true},
		{Name: "rows", Type: "array", Items: &xbot.ToolParamItems{Type: "object", Properties: map[string]any{"id": map[string]any{"type": "integer"}}}},
	}}
	s := def.Schema()
	props := s["properties"].(map[string]any)
	if props["tags"].(map[string]any)["items"].(map[string]any)["type"] != "string" || s["required"].([]string)[0] != "tags" {
		t.Fatalf("schema %v", s)
	}
	if props["rows"].(map[string]any)["items"].(map[string]any)["type"] != "object" {
		t.Fatalf("schema %v", s)
	}
	fn := def.ToJSONSchema()["function"].(map[string]any)
	if fn["name"] != "t" {
		t.Fatalf("ToJSONSchema %v", fn)
	}
	b := xbot.BuildToolDef("b", "d", xbot.ToolParamDef{Name: "q", Type: "string", Required: true})
	if len(b.Parameters) != 1 || !b.Parameters[0].Required || b.InputSchema == nil {
		t.Fatalf("BuildToolDef %+v", b)
	}
}

func TestResultBuilderAndFormatters(t *testing.T) {
	r := xbot.NewResultBuilder().Content("x").Metadata("kind", "k").IsError(true).Build()
	if !r.IsError || r.Content != "x" || r.Metadata["kind"] != "k" {
		t.Fatalf("%+v", r)
	}
	if e := xbot.NewResultBuilder().Error("bad").Build(); !e.IsError || e.Content != "bad" {
		t.Fatalf("%+v", e)
	}
	if e := xbot.FormatErrorResult("deploy", errors.New("timeout")); !e.IsError || e.Content != "deploy failed: timeout" {
		t.Fatalf("%+v", e)
	}
	if got := xbot.FormatToolResult("Title", nil).String(); got != "Title" {
		t.Fatalf("%q", got)
	}
}

func TestTenantOf(t *testing.T) {
	if xbot.TenantOf("", "") != 0 || xbot.TenantOf("qq", "1") <= 0 || xbot.TenantOf("qq", "1") != xbot.TenantOf("qq", "1") ||
		xbot.TenantOf("qq1", "") == xbot.TenantOf("qq", "1") {
		t.Fatal("TenantOf")
	}
}

func FuzzParseToolInputString(f *testing.F) {
	for _, s := range []string{`{"name":"Ada"}`, `{"name":1}`, `[]`, `null`, ``, `{"name":"\u00e9"}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		v, err := xbot.ParseToolInputString(in, "name")
		if err != nil && v != "" {
			t.Fatalf("value %q with error %v", v, err)
		}
	})
}

func TestHelpers(t *testing.T) {
	m := xbot.QuickManifest("a.b", "AB", "1.0.0", "d", xbot.WithPermissions(xbot.PermHooksSubscribe),
		xbot.WithHooks(xbot.HookContribution{Event: "PostToolUse"}), xbot.WithTools(xbot.ToolContribution{Name: "t"}),
		xbot.WithEnrichers(xbot.EnricherContribution{Name: "e"}), xbot.WithRuntime(xbot.RuntimeStdio), xbot.WithActivationEvents("onTool:t"))
	if m.Runtime != xbot.RuntimeStdio || len(m.Contributes.Hooks) != 1 || len(m.Contributes.Tools) != 1 || len(m.Contributes.ContextEnrichers) != 1 ||
		m.ActivationEvents[0] != "onTool:t" || m.Permissions[0] != xbot.PermHooksSubscribe {
		t.Fatalf("%+v", m)
	}
	ps := xbot.NewSchemaBuilder().AddStringParam("s", "", true).AddNumberParam("n", "", false).AddBoolParam("b", "", false).AddArrayParam("a", "", false).Build()
	if len(ps) != 4 || ps[3].Type != "array" || !ps[0].Required {
		t.Fatalf("%+v", ps)
	}
	if r, _ := xbot.DenyHook("no")(context.Background(), &xbot.HookPayload{}); r.Decision != xbot.DecisionDeny || r.Message != "no" {
		t.Fatal("DenyHook")
	}
	if got := xbot.FormatJSON(map[string]int{"a": 1}); got != "{\n  \"a\": 1\n}" {
		t.Fatalf("%q", got)
	}
	err := sdktestStartErr(t, func(xbot.PluginContext) error { return errors.New("boom") })
	var af *xbot.ErrPluginActivationFailed
	if !errors.As(err, &af) || af.PluginID != "x.test" {
		t.Fatalf("activation error %v", err)
	}
}

// sdktestStartErr starts the plugin through Adapt as a host does and
// returns Start's error.
func sdktestStartErr(t *testing.T, fn func(xbot.PluginContext) error) error {
	t.Helper()
	p, err := xbot.Adapt(activator(fn))("x", nil)
	if err != nil {
		t.Fatal(err)
	}
	var startErr error
	sdktest.Start(t, "x", func(string, map[string]any) (sdk.Plugin, error) {
		return startProbe{p, &startErr}, nil
	}, nil)
	return startErr
}

// startProbe records the wrapped plugin's Start error and starts cleanly.
type startProbe struct {
	sdk.Plugin
	err *error
}

func (s startProbe) Start(k *sdk.PluginSDK) error { *s.err = s.Plugin.Start(k); return nil }
