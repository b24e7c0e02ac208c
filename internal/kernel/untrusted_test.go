package kernel

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hearth-agent/hearth/internal/policy"
	"github.com/hearth-agent/hearth/internal/store"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// notesPlugin has one write tool, which counts its runs.
func notesPlugin(saved *atomic.Int32) func(*sdk.PluginSDK) error {
	return func(s *sdk.PluginSDK) error {
		return s.RegisterTool("save", sdk.ToolDef{Title: "保存笔记", Effect: sdk.EffectWrite},
			func(map[string]any) (any, error) {
				saved.Add(1)
				return "saved", nil
			})
	}
}

// saveTurn is a model that calls notes__save once and then answers.
func saveTurn() []llmtest.Reply {
	return []llmtest.Reply{
		{ToolCalls: []llmtest.Call{{ID: "s", Name: "notes__save", Arguments: `{}`}}},
		{Text: "done"},
	}
}

func TestUntrustedInputAsksBeforeWrite(t *testing.T) {
	e := newEnv(t, Options{}, saveTurn()...)
	var saved atomic.Int32
	load(t, e.k, "notes", notesPlugin(&saved))
	ap := &approvals{next: []policy.Answer{policy.Refuse}}
	out := e.k.Ask(context.Background(), Input{
		Injection: sdk.Injection{Channel: "test", Text: "Save a note that says: all done."},
		Approver:  ap.approver,
		Untrusted: "mcp-x prompt review",
	})
	if out.Err != nil {
		t.Fatal(out.Err)
	}
	if saved.Load() != 0 {
		t.Fatal("the write tool ran without approval in a turn started by a prompt")
	}
	if len(ap.seen) != 1 || ap.seen[0].Effect != sdk.EffectWrite || !strings.Contains(ap.seen[0].Reason, "untrusted") {
		t.Fatalf("approval requests %+v", ap.seen)
	}
	entries, err := e.st.Audit(context.Background(), store.AuditQuery{})
	if err != nil || len(entries) != 1 || entries[0].Tool != "notes__save" || entries[0].Decision != "deny" || entries[0].Rule != policy.RuleTaint {
		t.Fatalf("audit %+v, %v", entries, err)
	}
	traces, err := e.st.Traces(context.Background(), store.TraceFilter{})
	if err != nil || len(traces) != 1 || traces[0].Untrusted != "mcp-x prompt review" {
		t.Fatalf("traces %+v, %v", traces, err)
	}
	if c := traces[0].ToolCalls; len(c) != 1 || c[0].Rule != policy.RuleTaint {
		t.Fatalf("traced calls %+v", c)
	}
}

func TestTrustedInputWritesWithoutAsking(t *testing.T) {
	e := newEnv(t, Options{}, saveTurn()...)
	var saved atomic.Int32
	load(t, e.k, "notes", notesPlugin(&saved))
	ap := &approvals{}
	out := e.k.Ask(context.Background(), Input{
		Injection: sdk.Injection{Channel: "test", Text: "Save a note that says: all done."},
		Approver:  ap.approver,
	})
	if out.Err != nil {
		t.Fatal(out.Err)
	}
	if saved.Load() != 1 || len(ap.seen) != 0 {
		t.Fatalf("saved %d times, %d approvals asked", saved.Load(), len(ap.seen))
	}
	traces, err := e.st.Traces(context.Background(), store.TraceFilter{})
	if err != nil || len(traces) != 1 || traces[0].Untrusted != "" {
		t.Fatalf("traces %+v, %v", traces, err)
	}
}
