package server

import (
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// notes is a plugin with a tool that writes, which the owner's own turns
// may call without asking.
func notes(saved *atomic.Int32) func(string, map[string]any) (sdk.Plugin, error) {
	return func(name string, _ map[string]any) (sdk.Plugin, error) {
		return plugin{name, func(s *sdk.PluginSDK) error {
			return s.RegisterTool("save", sdk.ToolDef{Description: "saves a note", Title: "Save", Effect: sdk.EffectWrite},
				func(map[string]any) (any, error) {
					saved.Add(1)
					return "saved", nil
				})
		}}, nil
	}
}

// A message sent with "untrusted" (a prompt's text) starts a tainted
// turn: its write call is asked about, and its trace says where the text
// came from; the same message without it writes at once.
func TestUntrustedMessageAsksBeforeWriting(t *testing.T) {
	save := llmtest.Reply{ToolCalls: []llmtest.Call{{ID: "c1", Name: "notes__save", Arguments: `{}`}}}
	c := newChat(t, save, llmtest.Reply{Text: "not saved"}, save, llmtest.Reply{Text: "saved"})
	var saved atomic.Int32
	if err := c.a.Kernel.LoadPlugin("notes", notes(&saved), nil); err != nil {
		t.Fatal(err)
	}
	s := call[Session](t, c.hs, "POST", "/v1/sessions", nil, 201)
	path := "/v1/sessions/" + itoa(s.ID)

	if status, data := do(t, c.hs, "POST", path+"/messages", SendMessage{Text: "x", Untrusted: strings.Repeat("x", maxUntrusted+1)}); status != 422 ||
		errorCode(t, data) != "invalid_fields" {
		t.Fatalf("a long untrusted: %d %s", status, data)
	}

	stream := openSSE(t, c.hs, path+"/events")
	call[Queued](t, c.hs, "POST", path+"/messages", SendMessage{Text: "Save a note.", Untrusted: "mcp-x prompt review"}, 202)
	evs := stream.until(t, EvApprovalRequest)
	a := evs[len(evs)-1].data.Approval
	if a == nil || a.Tool != "notes__save" || !strings.Contains(a.Reason, "untrusted") {
		t.Fatalf("approval %+v", a)
	}
	call[Decided](t, c.hs, "POST", "/v1/approvals/"+itoa(a.ID), Decision{Answer: "deny"}, 200)
	stream.until(t, EvTurnFinished)
	if saved.Load() != 0 {
		t.Fatal("a turn started by a prompt wrote without approval")
	}
	traces := call[TraceList](t, c.hs, "GET", "/v1/traces?session_id="+itoa(s.ID), nil, 200)
	if len(traces.Traces) != 1 || traces.Traces[0].Untrusted != "mcp-x prompt review" {
		t.Fatalf("traces %+v", traces)
	}

	if ans := call[Answer](t, c.hs, "POST", path+"/messages", SendMessage{Text: "Save a note.", Wait: true}, 200); ans.Text != "saved" {
		t.Fatalf("answer %+v", ans)
	}
	if saved.Load() != 1 {
		t.Fatalf("the owner's own message saved %d times, want 1", saved.Load())
	}
}
