package kernel

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hearth-agent/hearth/internal/llm"
	"github.com/hearth-agent/hearth/internal/policy"
	"github.com/hearth-agent/hearth/internal/redact"
	"github.com/hearth-agent/hearth/internal/store"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/llmtest"
	"github.com/hearth-agent/hearth/sdk/toolcall"
)

func TestCallToolRunsThroughPolicyAndAudit(t *testing.T) {
	e := newEnv(t, Options{})
	var bought atomic.Int32
	load(t, e.k, "shop", shopPlugin(&bought))
	owner := sdk.Injection{Channel: "test", UserID: "owner"}
	ctx := context.Background()
	var taint atomic.Bool

	// An untrusted read runs and taints the caller.
	res, err := e.k.CallTool(ctx, DirectCall{Requester: owner, Tool: "shop__read_page", Taint: &taint})
	if err != nil || res.IsError || !taint.Load() {
		t.Fatalf("read: %v %+v tainted %v", err, res, taint.Load())
	}
	// The money call of a tainted caller is asked; nobody to ask: refused.
	res, err = e.k.CallTool(ctx, DirectCall{Requester: owner, Tool: "shop__buy", Arguments: []byte(`{"item":"tea","count":1}`), Taint: &taint})
	if err != nil || !res.IsError || !strings.Contains(res.Content, "hearth policy set shop__buy auto") || bought.Load() != 0 {
		t.Fatalf("tainted buy: %v %q bought %d", err, res.Content, bought.Load())
	}
	// Asked and allowed, it runs.
	ap := &approvals{next: []policy.Answer{policy.AllowOnce}}
	res, err = e.k.CallTool(ctx, DirectCall{Requester: owner, Tool: "shop__buy", Arguments: []byte(`{"item":"tea","count":1}`),
		Taint: &taint, Approver: ap.approver})
	if err != nil || res.IsError || bought.Load() != 1 || len(ap.seen) != 1 {
		t.Fatalf("approved buy: %v %q bought %d asked %d", err, res.Content, bought.Load(), len(ap.seen))
	}
	// Malformed and invalid arguments are error results.
	for _, args := range []string{`{"item":`, `{"item":5}`} {
		res, err = e.k.CallTool(ctx, DirectCall{Requester: owner, Tool: "shop__buy", Arguments: []byte(args), Approver: ap.approver})
		if err != nil || !res.IsError {
			t.Fatalf("%s: %v %+v", args, err, res)
		}
	}
	// A guest is not offered the money tool: it is unknown to them.
	_, err = e.k.CallTool(ctx, DirectCall{Requester: sdk.Injection{Channel: "elsewhere", UserID: "u"}, Tool: "shop__buy"})
	if !errors.Is(err, ErrNotOffered) {
		t.Fatalf("guest: %v", err)
	}
	entries, _ := e.st.Audit(ctx, store.AuditQuery{})
	if len(entries) < 5 || entries[0].Tool != "shop__buy" || entries[0].Decision != "deny" {
		t.Fatalf("audit %+v", entries)
	}
}

func TestCallToolAfterClose(t *testing.T) {
	k := New(nil, nil, nil)
	k.Close()
	if _, err := k.CallTool(context.Background(), DirectCall{Tool: "x"}); !errors.Is(err, ErrClosed) {
		t.Fatalf("after close: %v", err)
	}
}

// FuzzCallToolArguments sends any bytes as a direct call's arguments (an
// MCP client's, from outside): the call never panics, runs only with
// arguments that are a JSON object matching the schema, and is otherwise
// an error result.
func FuzzCallToolArguments(f *testing.F) {
	for _, s := range []string{``, `{}`, `null`, `{"item":"tea","count":1}`, `{"item":5}`, `[1]`,
		`{"item":"a","item":"b"}`, "\xff", `{"item":"tea","count":1,"x":{}}`} {
		f.Add([]byte(s))
	}
	eng, err := policy.NewEngine(context.Background(), policy.DiscardStore{}, slog.New(slog.DiscardHandler))
	if err != nil {
		f.Fatal(err)
	}
	k := New(nil, nil, &Options{Policy: eng, Logger: slog.New(slog.DiscardHandler)})
	defer k.Close()
	var bought atomic.Int32
	if err := k.LoadPlugin("shop", func(n string, _ map[string]any) (sdk.Plugin, error) {
		return pluginFunc{n, shopPlugin(&bought)}, nil
	}, nil); err != nil {
		f.Fatal(err)
	}
	owner := sdk.Injection{Channel: "terminal", UserID: "owner"}
	f.Fuzz(func(t *testing.T, args []byte) {
		before := bought.Load()
		res, err := k.CallTool(context.Background(), DirectCall{Requester: owner, Tool: "shop__buy", Arguments: args,
			Approver: func(context.Context, *policy.ApprovalRequest) (policy.Answer, error) { return policy.AllowOnce, nil }})
		if err != nil {
			t.Fatal(err)
		}
		ran := bought.Load() != before
		m, _, derr := toolcall.DecodeArguments(args)
		valid := derr == nil && len(m) > 0
		if ran && !valid {
			t.Fatalf("ran with %q", args)
		}
		if !ran && !res.IsError {
			t.Fatalf("not run, yet no error: %q -> %q", args, res.Content)
		}
	})
}

func TestDirectToolsLoadOnDemandTools(t *testing.T) {
	e := newEnv(t, Options{})
	load(t, e.k, "rare", func(s *sdk.PluginSDK) error {
		return s.RegisterTool("thing", sdk.ToolDef{Effect: sdk.EffectRead, OnDemand: true},
			func(map[string]any) (any, error) { return "rare thing", nil })
	})
	owner := sdk.Injection{Channel: "test", UserID: "owner"}
	names := map[string]bool{}
	for _, tool := range e.k.DirectTools(owner) {
		names[tool.Name] = true
	}
	if !names["rare__thing"] || names[useToolName] {
		t.Fatalf("direct tools %v", names)
	}
	res, err := e.k.CallTool(context.Background(), DirectCall{Requester: owner, Tool: "rare__thing"})
	if err != nil || res.IsError || !strings.Contains(res.Content, "rare thing") {
		t.Fatalf("on-demand call: %v %+v", err, res)
	}
	if _, err := e.k.CallTool(context.Background(), DirectCall{Requester: owner, Tool: useToolName}); !errors.Is(err, ErrNotOffered) {
		t.Fatalf("plugins__use: %v", err)
	}
}

// A call of a tool the requester is not offered is audited as a turn
// audits it (denied, not offered) before it is refused.
func TestCallToolNotOfferedIsAudited(t *testing.T) {
	e := newEnv(t, Options{})
	var bought atomic.Int32
	load(t, e.k, "shop", shopPlugin(&bought))
	guest := sdk.Injection{Channel: "elsewhere", ChatID: "c", UserID: "u"}
	ctx := context.Background()
	for _, tool := range []string{"shop__buy", "shop__nothing"} {
		if _, err := e.k.CallTool(ctx, DirectCall{Requester: guest, Tool: tool, Arguments: []byte(`{"item":"tea"}`)}); !errors.Is(err, ErrNotOffered) {
			t.Fatalf("%s: %v", tool, err)
		}
	}
	entries, err := e.st.Audit(ctx, store.AuditQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2 || bought.Load() != 0 {
		t.Fatalf("audit %+v, bought %d", entries, bought.Load())
	}
	for i, tool := range []string{"shop__nothing", "shop__buy"} {
		en := entries[i]
		if en.Tool != tool || en.Decision != "deny" || en.Rule != "not-offered" || en.Outcome != "denied" ||
			en.Channel != "elsewhere" || en.User != "u" || en.ArgsHash == "" {
			t.Errorf("entry %d: %+v", i, en)
		}
	}
}

// A direct call's progress reaches the caller as a turn's reaches its
// channel: masked, throttled, the latest report before the result.
func TestCallToolProgressIsMaskedAndThrottled(t *testing.T) {
	const key = "sk-live-0123456789abcdefXYZ"
	srv := llmtest.NewServer(t)
	src, err := llm.NewSources([]llm.Source{{Name: "fake", BaseURL: srv.URL, APIKey: key, Model: "m"}}, "fake")
	if err != nil {
		t.Fatal(err)
	}
	k := New(src, nil, nil)
	defer k.Close()
	const reports = 1000
	load(t, k, "slow", func(s *sdk.PluginSDK) error {
		return sdk.AddTool(s, sdk.ToolDef{Name: "work", Effect: sdk.EffectRead},
			func(_ context.Context, tc *sdk.ToolContext, _ struct{}) (string, error) {
				for i := 1; i <= reports; i++ {
					tc.Progress(float64(i), reports, "using "+key)
				}
				return "done", nil
			})
	})
	type report struct {
		done    float64
		message string
	}
	var got []report
	res, err := k.CallTool(context.Background(), DirectCall{Requester: sdk.Injection{Channel: "test", UserID: "owner"}, Tool: "slow__work",
		Progress: func(done, _ float64, message string) { got = append(got, report{done, message}) }})
	if err != nil || res.IsError {
		t.Fatalf("call: %v %+v", err, res)
	}
	if len(got) == 0 || len(got) >= reports || got[len(got)-1].done != reports {
		t.Fatalf("%d reports, last %+v", len(got), got[len(got)-1:])
	}
	for _, r := range got {
		if strings.Contains(r.message, key) || !strings.Contains(r.message, redact.Mask(key)) {
			t.Fatalf("report %q", r.message)
		}
	}
}
