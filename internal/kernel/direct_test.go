package kernel

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hearth-agent/hearth/internal/policy"
	"github.com/hearth-agent/hearth/internal/store"
	"github.com/hearth-agent/hearth/sdk"
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
