//go:build unix

package pluginhost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hearth-agent/hearth/internal/kernel"
	"github.com/hearth-agent/hearth/internal/llm"
	"github.com/hearth-agent/hearth/internal/policy"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// bankPlugin uses every policy field of a tool, a manifest with default
// modes, instructions and context, and a decision hook. The conformance
// test runs it compiled in and as a child and expects the same decisions.
type bankPlugin struct {
	name     string
	requires string
}

func newBankPlugin(name string, config map[string]any) (sdk.Plugin, error) {
	req, _ := config["requires"].(string)
	return &bankPlugin{name: name, requires: req}, nil
}

func (p *bankPlugin) Name() string { return p.name }
func (p *bankPlugin) Stop() error  { return nil }

func (p *bankPlugin) Manifest() sdk.Manifest {
	m := sdk.Manifest{
		ID: p.name, Name: "银行", Version: "1.0.0", Scopes: []string{"bank.example"},
		DefaultModes: map[sdk.Effect]sdk.Mode{sdk.EffectMoney: sdk.ModeAsk, sdk.EffectPublic: sdk.ModeOff},
		Instructions: "Pay with bank__pay; never pay mallory.",
		Context: func(_ context.Context, in sdk.ContextInput) (string, error) {
			return "balance 42, asked: " + in.Query, nil
		},
	}
	if p.requires != "" {
		m.Requires = []sdk.Capability{sdk.Capability(p.requires)}
	}
	return m
}

func (p *bankPlugin) Start(s *sdk.PluginSDK) error {
	payee := map[string]any{"type": "object", "properties": map[string]any{
		"to": map[string]any{"type": "string"}, "amount": map[string]any{"type": "number"}}}
	echo := func(_ context.Context, tc *sdk.ToolContext, args map[string]any) (any, error) {
		return map[string]any{"tool": tc.Tool, "args": args, "effect": tc.Effect, "grant": tc.Grant,
			"tainted": tc.Turn != nil && tc.Turn.Tainted}, nil
	}
	tools := []sdk.ToolDef{
		{Name: "balance", Title: "余额", Effect: sdk.EffectRead, DayScoped: true},
		{Name: "pay", Title: "付款", Effect: sdk.EffectMoney, Parameters: payee, Timeout: 7 * time.Second},
		{Name: "post", Title: "发帖", Effect: sdk.EffectPublic},
		{Name: "transfer", Title: "转账", Effect: sdk.EffectWrite, Parameters: payee,
			ResolveEffect: func(_ context.Context, args map[string]any) (sdk.Assessment, error) {
				if args["to"] == "mallory" {
					return sdk.Assessment{}, errors.New("mallory is a known scammer")
				}
				return sdk.Assessment{Effect: sdk.EffectMoney, Target: &sdk.Target{Label: fmt.Sprintf("转账给 %v", args["to"])}}, nil
			}},
		{Name: "web", Title: "网页", Effect: sdk.EffectRead, Untrusted: true},
		{Name: "note", Title: "记录", Effect: sdk.EffectWrite, Serial: true},
		{Name: "admin", Effect: sdk.EffectWrite, UserOnly: true},
		{Name: "unlock", Effect: sdk.EffectRead, Grant: true},
		{Name: "confirm", Effect: sdk.EffectRead, AlwaysAsk: true},
		{Name: "secret", Effect: sdk.EffectRead, OnDemand: true},
		{Name: "webonly", Effect: sdk.EffectRead, Channels: []string{"web"}},
	}
	for _, def := range tools {
		if err := s.RegisterToolContext(def.Name, def, echo); err != nil {
			return err
		}
	}
	s.RegisterDecisionHook(func(_ context.Context, _ *sdk.ToolContext, tool string, args map[string]any) (sdk.HookDecision, error) {
		if amount, _ := args["amount"].(float64); tool == p.name+"__pay" && amount > 100 {
			return sdk.HookDecision{Verdict: sdk.VerdictDeny, Reason: "more than 100 needs the bank's app"}, nil
		}
		return sdk.HookDecision{}, nil // HomeAgent's zero value: allow
	})
	return nil
}

// conformanceRun is what one runtime decided.
type conformanceRun struct {
	offered   []string
	system    string
	data      []string
	results   map[string]string // call id -> what the model read
	approvals []string
	records   map[string]string // tool -> its policy fields
}

// conformanceScript is one turn: calls of every kind, then, after the
// untrusted call tainted the turn, a write.
func conformanceScript() []llmtest.Reply {
	call := func(id, tool, args string) llmtest.Call {
		return llmtest.Call{ID: id, Name: "bank__" + tool, Arguments: args}
	}
	return []llmtest.Reply{
		{ToolCalls: []llmtest.Call{
			call("balance", "balance", `{}`),
			call("pay5", "pay", `{"to":"alice","amount":5}`),
			call("pay500", "pay", `{"to":"alice","amount":500}`),
			call("post", "post", `{}`),
			call("mallory", "transfer", `{"to":"mallory","amount":1}`),
			call("bob", "transfer", `{"to":"bob","amount":2}`),
			call("web", "web", `{}`),
			call("admin", "admin", `{}`),
			call("unlock", "unlock", `{}`),
			call("confirm", "confirm", `{}`),
			call("secret", "secret", `{}`),
			call("webonly", "webonly", `{}`),
		}},
		{ToolCalls: []llmtest.Call{call("note", "note", `{"text":"hi"}`)}},
		{Text: "done"},
	}
}

// conformanceKernel is a kernel with a policy engine whose owner speaks on
// "test", and an approver that allows once and records each request.
func conformanceKernel(t *testing.T) (*kernel.Kernel, *llmtest.Server, *policy.Engine) {
	t.Helper()
	srv := llmtest.NewServer(t, conformanceScript()...)
	log := slog.New(slog.DiscardHandler)
	src, _ := llm.NewSources([]llm.Source{{Name: "main", BaseURL: srv.URL}}, "main")
	eng, err := policy.NewEngine(context.Background(), policy.DiscardStore{}, log)
	if err != nil {
		t.Fatal(err)
	}
	eng.LocalChannels = []string{"test"}
	k := kernel.New(src, nil, &kernel.Options{Logger: log, Policy: eng})
	t.Cleanup(func() { k.Close() })
	return k, srv, eng
}

func runConformance(t *testing.T, k *kernel.Kernel, srv *llmtest.Server) conformanceRun {
	t.Helper()
	var mu sync.Mutex
	var approvals []string
	approver := func(_ context.Context, r *policy.ApprovalRequest) (policy.Answer, error) {
		target := ""
		if r.Target != nil {
			target = r.Target.Label
		}
		mu.Lock()
		approvals = append(approvals, fmt.Sprintf("%s %s title=%q effect=%s target=%q grant=%v reason=%q",
			r.Tool, r.Args, r.Title, r.Effect, target, r.Grant, r.Reason))
		mu.Unlock()
		return policy.AllowOnce, nil
	}
	out := k.Ask(context.Background(), kernel.Input{Injection: sdk.Injection{Channel: "test", Text: "pay everyone"}, Approver: approver})
	if out.Err != nil || out.Text != "done" {
		t.Fatalf("turn: %+v", out)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	run := conformanceRun{offered: reqs[0].ToolNames(), results: map[string]string{}, records: map[string]string{}}
	for _, m := range reqs[0].Messages {
		content, _ := m["content"].(string)
		switch {
		case m["role"] == "system" && run.system == "":
			run.system = content
		case m["role"] == "system":
			run.data = append(run.data, content)
		}
	}
	for _, m := range reqs[2].Messages {
		if id, ok := m["tool_call_id"].(string); ok {
			run.results[id] = canonicalJSON(m["content"].(string))
		}
	}
	sort.Strings(approvals)
	run.approvals = approvals
	for _, tool := range k.Tools().List() {
		if tool.Plugin != "bank" {
			continue
		}
		d := tool.Def
		run.records[tool.Name] = fmt.Sprintf("title=%q effect=%q resolve=%v untrusted=%v userOnly=%v onDemand=%v grant=%v alwaysAsk=%v serial=%v dayScoped=%v channels=%v timeout=%s",
			d.Title, d.Effect, d.ResolveEffect != nil, d.Untrusted, d.UserOnly, d.OnDemand, d.Grant, d.AlwaysAsk, d.Serial, d.DayScoped, d.Channels, d.Timeout)
	}
	return run
}

// One plugin, compiled in and as a child process (pluginrpc.Serve in the
// re-executed test binary), makes the same decisions: its manifest's
// default modes (money asks, public is off), ResolveEffect (a rejection
// refuses, a resolved effect asks with its target), every tool flag, the
// taint of an untrusted tool, its decision hook, its instructions and
// context, and a requirement the host lacks (hidden).
func TestPolicyConformanceCompiledInAndChild(t *testing.T) {
	compiledK, compiled := compiledBank(t)
	childK, child, opts := childBank(t, pluginDir(t, "bank", "bank"))
	compareConformance(t, compiled, child)

	// A requirement this host lacks hides the plugin either way.
	if err := compiledK.LoadPlugin("bank-campus", newBankPlugin, map[string]any{"requires": "campus-network"}); !errors.Is(err, kernel.ErrHidden) {
		t.Fatalf("compiled in: %v", err)
	}
	dir := pluginDir(t, "bank-campus", "bank")
	setConfig(t, dir, map[string]any{"requires": "campus-network"})
	hp, err := Start(dir, &opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(hp.Stop)
	waitStatus(t, hp, "the child is hidden", func(s Status) bool { return s.State == Failed })
	if st := hp.Status(); !strings.Contains(st.LastError, "campus-network") {
		t.Errorf("hidden child: %+v", st)
	}
	if !reflect.DeepEqual(compiledK.Hidden(), childK.Hidden()) {
		t.Errorf("hidden: compiled in %v, child %v", compiledK.Hidden(), childK.Hidden())
	}
	if _, ok := childK.Tools().Lookup("bank-campus__pay"); ok {
		t.Error("a hidden child's tools stayed registered")
	}
}

// compiledBank runs the conformance turn with the bank plugin compiled in.
func compiledBank(t *testing.T) (*kernel.Kernel, conformanceRun) {
	t.Helper()
	k, srv, _ := conformanceKernel(t)
	if err := k.LoadPlugin("bank", newBankPlugin, nil); err != nil {
		t.Fatal(err)
	}
	return k, runConformance(t, k, srv)
}

// childBank runs the conformance turn with the bank plugin in dir.
func childBank(t *testing.T, dir string) (*kernel.Kernel, conformanceRun, Options) {
	t.Helper()
	k, srv, _ := conformanceKernel(t)
	opts := Options{Host: k, Log: slog.New(slog.DiscardHandler), DataDir: t.TempDir(), HandshakeTimeout: 20 * time.Second}
	p, err := Start(dir, &opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Stop)
	ready(t, p)
	return k, runConformance(t, k, srv), opts
}

// canonicalJSON re-encodes JSON text so that key order and spacing do not
// matter; other text is returned as it is.
func canonicalJSON(s string) string {
	var v any
	if json.Unmarshal([]byte(s), &v) != nil {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// compareConformance checks that the child decided as the compiled-in
// plugin did, and that those are the right decisions.
func compareConformance(t *testing.T, compiled, child conformanceRun) {
	t.Helper()
	if !reflect.DeepEqual(compiled, child) {
		t.Errorf("the child decided differently:\ncompiled in: %#v\nchild:       %#v", compiled, child)
		for id, r := range compiled.results {
			if child.results[id] != r {
				t.Errorf("call %s:\ncompiled in: %s\nchild:       %s", id, r, child.results[id])
			}
		}
	}

	// And the decisions are the right ones (so both are not wrong alike).
	want := []string{"bank__balance", "bank__confirm", "bank__note", "bank__pay", "bank__transfer", "bank__unlock", "bank__web"}
	var offered []string
	for _, n := range child.offered {
		if strings.HasPrefix(n, "bank__") {
			offered = append(offered, n)
		}
	}
	if !slices.Equal(offered, want) {
		t.Errorf("offered %v, want %v (public off, user-only, on-demand and other-channel tools left out)", offered, want)
	}
	ran := func(id string) bool { return strings.Contains(child.results[id], `"tool":`) }
	for _, id := range []string{"balance", "pay5", "bob", "web", "unlock", "confirm", "note"} {
		if !ran(id) {
			t.Errorf("%s did not run: %s", id, child.results[id])
		}
	}
	for id, why := range map[string]string{
		"pay500": "more than 100 needs the bank's app", "mallory": "mallory is a known scammer",
		"post": "unknown tool", "admin": "unknown tool", "secret": "unknown tool", "webonly": "unknown tool",
	} {
		if ran(id) || !strings.Contains(child.results[id], why) {
			t.Errorf("%s: want refused with %q, got %s", id, why, child.results[id])
		}
	}
	if !strings.Contains(child.results["unlock"], `"grant":"once"`) || !strings.Contains(child.results["pay5"], `"effect":"money"`) {
		t.Errorf("the approval did not reach the handler: %s %s", child.results["unlock"], child.results["pay5"])
	}
	wantAsked := []string{
		`bank__confirm {} title="bank__confirm" effect=read target="" grant=false reason="this tool asks every time"`,
		`bank__note {"text":"hi"} title="记录" effect=write target="" grant=false reason="this turn read untrusted content, so write actions need approval"`,
		`bank__pay {"to":"alice","amount":5} title="付款" effect=money target="" grant=false reason="money actions of this tool need approval"`,
		`bank__transfer {"to":"bob","amount":2} title="转账" effect=money target="转账给 bob" grant=false reason="money actions of this tool need approval"`,
		`bank__unlock {} title="bank__unlock" effect=read target="" grant=true reason="this tool asks every time"`,
	}
	if !slices.Equal(child.approvals, wantAsked) {
		t.Errorf("approvals asked:\n%s\nwant:\n%s", strings.Join(child.approvals, "\n"), strings.Join(wantAsked, "\n"))
	}
	if !strings.Contains(child.system, "## 银行 (bank)\nPay with bank__pay; never pay mallory.") {
		t.Errorf("instructions missing from the system prompt: %q", child.system)
	}
	if len(child.data) != 1 || !strings.Contains(child.data[0], "balance 42, asked: pay everyone") {
		t.Errorf("context: %q", child.data)
	}
	if got := child.records["bank__pay"]; !strings.Contains(got, "timeout=7s") {
		t.Errorf("pay's record: %s", got)
	}

}

// setConfig writes config into a plugin folder's plugin.json.
func setConfig(t *testing.T, dir string, config map[string]any) {
	t.Helper()
	m, err := LoadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	m.Config = config
	writeManifest(t, dir, m)
}

// writeManifest replaces a plugin folder's plugin.json.
func writeManifest(t *testing.T, dir string, m *Manifest) {
	t.Helper()
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if err := writeFile(dir, b); err != nil {
		t.Fatal(err)
	}
}

func writeFile(dir string, b []byte) error {
	return os.WriteFile(filepath.Join(dir, ManifestFile), b, 0o644)
}
