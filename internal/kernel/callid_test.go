package kernel

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hearth-agent/hearth/internal/llm"
	"github.com/hearth-agent/hearth/internal/policy"
	"github.com/hearth-agent/hearth/internal/store"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// Two calls of one answer that carry one id (the second has none, and the
// stream would name it as the first is named; or the model repeats an
// id) are two calls: each is judged on its own arguments and its tool is
// sent exactly those. A decision hook refusing the call to mallory keeps
// mallory unpaid, whatever the ids; the audit log's hash of each call that
// ran is the hash of the bytes its tool received; and the assistant
// message sent back carries the ids the results answer, each once.
func TestCallsSharingAnIDAreJudgedOnTheirOwnArguments(t *testing.T) {
	call := func(index int, id, args string) map[string]any {
		c := map[string]any{"index": index, "type": "function",
			"function": map[string]any{"name": "bank__pay", "arguments": args}}
		if id != "" {
			c["id"] = id
		}
		return c
	}
	mallory, alice := `{"to":"mallory","amount":999}`, `{"to":"alice","amount":1}`
	for _, tc := range []struct {
		name   string
		stream bool
		calls  []map[string]any
	}{
		{"streamed, the second without id", true, []map[string]any{call(0, "call_1", mallory), call(1, "", alice)}},
		{"streamed, the denied one second", true, []map[string]any{call(0, "call_1", alice), call(1, "", mallory)}},
		{"not streamed, one id twice", false, []map[string]any{call(0, "x", mallory), call(1, "x", alice)}},
		{"not streamed, the denied one second", false, []map[string]any{call(0, "x", alice), call(1, "x", mallory)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			var requests []map[string]any
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				var req map[string]any
				b, _ := io.ReadAll(r.Body)
				json.Unmarshal(b, &req)
				mu.Lock()
				requests = append(requests, req)
				first := len(requests) == 1
				mu.Unlock()
				choice := map[string]any{"index": 0, "finish_reason": "stop", "message": map[string]any{"content": "done"}}
				if first {
					choice = map[string]any{"index": 0, "finish_reason": "tool_calls", "message": map[string]any{"tool_calls": tc.calls}}
				}
				if !tc.stream {
					json.NewEncoder(w).Encode(map[string]any{"choices": []any{choice}})
					return
				}
				w.Header().Set("Content-Type", "text/event-stream")
				ev := func(d any) {
					b, _ := json.Marshal(map[string]any{"choices": []any{d}})
					fmt.Fprintf(w, "data: %s\n\n", b)
				}
				if first {
					for _, c := range tc.calls {
						ev(map[string]any{"index": 0, "delta": map[string]any{"tool_calls": []any{c}}})
					}
				} else {
					ev(map[string]any{"index": 0, "delta": map[string]any{"content": "done"}})
				}
				ev(map[string]any{"index": 0, "delta": map[string]any{}, "finish_reason": choice["finish_reason"]})
				fmt.Fprint(w, "data: [DONE]\n\n")
			}))
			defer srv.Close()

			e := newEnv(t, Options{}, llmtest.Reply{Text: "unused"})
			e.k.provider = &llm.Client{BaseURL: srv.URL, Model: "test", Backoff: time.Millisecond}
			var paid, judged []string
			load(t, e.k, "bank", func(s *sdk.PluginSDK) error {
				return s.RegisterRawTool("pay", sdk.ToolDef{Effect: sdk.EffectRead,
					Parameters: map[string]any{"type": "object", "properties": map[string]any{
						"to": map[string]any{"type": "string"}, "amount": map[string]any{"type": "number"}}}},
					func(_ context.Context, _ *sdk.ToolContext, _ map[string]any, raw json.RawMessage) (any, error) {
						mu.Lock()
						paid = append(paid, string(raw))
						mu.Unlock()
						return "paid", nil
					})
			})
			load(t, e.k, "guard", func(s *sdk.PluginSDK) error {
				s.RegisterDecisionHook(func(_ context.Context, _ *sdk.ToolContext, _ string, args map[string]any) (sdk.HookDecision, error) {
					mu.Lock()
					judged = append(judged, fmt.Sprint(args["to"]))
					mu.Unlock()
					if args["to"] == "mallory" {
						return sdk.HookDecision{Verdict: sdk.VerdictDeny, Reason: "never mallory"}, nil
					}
					return sdk.HookDecision{Verdict: sdk.VerdictAllow}, nil
				})
				return nil
			})
			if out := e.ask(t, "pay"); out.Err != nil {
				t.Fatal(out.Err)
			}
			mu.Lock()
			defer mu.Unlock()
			if !slices.Equal(paid, []string{alice}) {
				t.Errorf("the tool was sent %q, want only %s", paid, alice)
			}
			if slices.Sort(judged); !slices.Equal(judged, []string{"alice", "mallory"}) {
				t.Errorf("the hook judged %q, want each call once", judged)
			}

			// The invariant: what the policy audits is what the tool got.
			entries, err := e.st.Audit(context.Background(), store.AuditQuery{})
			if err != nil {
				t.Fatal(err)
			}
			var ran []string
			for _, en := range entries {
				if en.Tool == "bank__pay" && en.Decision == "allow" && en.Outcome == "ok" {
					ran = append(ran, en.ArgsHash)
				}
			}
			if want := []string{policy.ArgsHash("bank__pay", json.RawMessage(alice))}; !slices.Equal(ran, want) {
				t.Errorf("the audit log has the calls that ran as %q, want the hash of what the tool got, %q", ran, want)
			}

			// The model is told which call each result answers.
			if len(requests) != 2 {
				t.Fatalf("%d requests", len(requests))
			}
			msgs, _ := requests[1]["messages"].([]any)
			var ids []string
			results := map[string]string{}
			for _, m := range msgs {
				m := m.(map[string]any)
				switch m["role"] {
				case "assistant":
					for _, c := range m["tool_calls"].([]any) {
						c := c.(map[string]any)
						id := c["id"].(string)
						if slices.Contains(ids, id) {
							t.Errorf("id %q twice in the assistant message %v", id, m)
						}
						ids = append(ids, id)
						results[id] = c["function"].(map[string]any)["arguments"].(string)
					}
				case "tool":
					id := m["tool_call_id"].(string)
					args, ok := results[id]
					if !ok {
						t.Errorf("a result answers %q, which no call has", id)
					}
					paidIt := strings.Contains(m["content"].(string), "paid")
					if paidIt != (args == alice) {
						t.Errorf("the result %q answers the call %s", m["content"], args)
					}
					delete(results, id)
				}
			}
			if len(ids) != 2 || len(results) != 0 {
				t.Errorf("calls %q, unanswered %v", ids, results)
			}
		})
	}
}
