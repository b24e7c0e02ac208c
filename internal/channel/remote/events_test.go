package remote

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/hearth-agent/hearth/internal/kernel"
	"github.com/hearth-agent/hearth/internal/llm"
	"github.com/hearth-agent/hearth/internal/policy"
	"github.com/hearth-agent/hearth/sdk"
)

func TestKernelEvent(t *testing.T) {
	for _, tc := range []struct {
		name, data string
		want       kernel.Event
		ok         bool
	}{
		{evReasoning, `{"session_id":1,"text":"想"}`, kernel.Event{Kind: kernel.EventReasoning, Text: "想"}, true},
		{evContent, `{"session_id":1,"text":"hi"}`, kernel.Event{Kind: kernel.EventText, Text: "hi"}, true},
		{evToolStarted, `{"session_id":1,"call_id":"c1","tool":"time__now","arguments":"{\"zone\":\"UTC\"}"}`,
			kernel.Event{Kind: kernel.EventToolStart, CallID: "c1", Tool: "time__now", Args: `{"zone":"UTC"}`}, true},
		{evToolStarted, `{"session_id":1,"tool":"t","arguments":{"a":1}}`,
			kernel.Event{Kind: kernel.EventToolStart, Tool: "t", Args: `{"a":1}`}, true},
		{evToolFinished, `{"session_id":1,"call_id":"c1","tool":"t","is_error":true,"result":"boom"}`,
			kernel.Event{Kind: kernel.EventToolEnd, CallID: "c1", Tool: "t", IsError: true, Text: "boom"}, true},
		{evToolProgress, `{"session_id":1,"call_id":"c1","tool":"mcp-x__long","progress":{"done":3,"total":10,"message":"Processing…"}}`,
			kernel.Event{Kind: kernel.EventToolProgress, CallID: "c1", Tool: "mcp-x__long", Done: 3, Total: 10, Text: "Processing…"}, true},
		{evToolProgress, `{"session_id":1,"call_id":"c1","tool":"t"}`, kernel.Event{}, false},
		{evTurnFinished, `{"session_id":1,"text":"done","usage":{"prompt_tokens":3,"completion_tokens":2,"cached_tokens":1},"trace_id":"x"}`,
			kernel.Event{Kind: kernel.EventFinal, Text: "done", Usage: llm.Usage{PromptTokens: 3, CompletionTokens: 2, CachedTokens: 1}}, true},
		{evTurnInterrupted, `{"session_id":1}`, kernel.Event{Kind: kernel.EventInterrupted, Err: kernel.ErrInterrupted}, true},
		{evError, `{"session_id":1,"message":"no"}`, kernel.Event{Kind: kernel.EventError, Text: "no", Err: &TurnError{"no"}}, true},
		{evTurnStarted, `{"session_id":1,"text":"hi"}`, kernel.Event{}, false},
		{evApprovalDecided, `{"session_id":1,"id":4,"answer":"once","by":"web"}`, kernel.Event{}, false},
		{"something.new", `{"session_id":1}`, kernel.Event{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, err := decodeEvent(sseEvent{Event: tc.name, Data: tc.data})
			if err != nil {
				t.Fatal(err)
			}
			if w.SessionID != "1" {
				t.Fatalf("session %q", w.SessionID)
			}
			got, ok := kernelEvent(tc.name, w)
			if ok != tc.ok || !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %+v %v, want %+v %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}

func TestApprovalRequest(t *testing.T) {
	expires := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	data := `{"session_id":3,"approval":{"id":9,"session_id":3,"channel":"terminal","tool":"bank__pay","title":"Pay",
		"effect":"money","target":"Mallory","arguments":{"amount":5},"reason":"spends money",
		"requested_by":"terminal:owner","expires_at":"2026-01-02T03:04:05Z","grant":false,"confirm_always":true}}`
	w, err := decodeEvent(sseEvent{Event: evApprovalAsked, Data: data})
	if err != nil {
		t.Fatal(err)
	}
	got := approvalRequest(w.Approval)
	want := &policy.ApprovalRequest{ID: 9, Tool: "bank__pay", Title: "Pay", Effect: sdk.EffectMoney,
		Target: &sdk.Target{Label: "Mallory"}, Args: json.RawMessage(`{"amount":5}`), Reason: "spends money",
		Expires: expires, Session: "3", Requests: policy.Requester{Channel: "terminal"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got  %+v\nwant %+v", got, want)
	}
	if w.Approval.ID != "9" {
		t.Fatalf("id %q", w.Approval.ID)
	}
	// Arguments as text, an object target, no title.
	w, err = decodeEvent(sseEvent{Event: evApprovalAsked, Data: `{"approval":{"id":"x","tool":"t",
		"target":{"label":"L","context":"C"},"arguments":"{\"a\":1}"}}`})
	if err != nil {
		t.Fatal(err)
	}
	got = approvalRequest(w.Approval)
	if got.Title != "t" || string(got.Args) != `{"a":1}` || *got.Target != (sdk.Target{Label: "L", Context: "C"}) {
		t.Fatalf("got %+v", got)
	}
	if _, err := decodeEvent(sseEvent{Event: evApprovalAsked, Data: `{"session_id":1}`}); err == nil {
		t.Fatal("an approval.requested without its approval was taken")
	}
}

// FuzzDecodeEvent feeds the decoder any data under every event name: it
// must not panic, and what it accepts must map to at most one event.
func FuzzDecodeEvent(f *testing.F) {
	f.Add(evApprovalAsked, `{"approval":{"id":1,"target":"x","arguments":"{}","expires_at":"2026-01-02T03:04:05Z"}}`)
	f.Add(evToolFinished, `{"session_id":"7","result":{"a":[1]}}`)
	f.Add(evTurnFinished, `{"session_id":1e3,"usage":null}`)
	f.Add(evToolProgress, `{"session_id":1,"progress":{"done":1e400}}`)
	f.Add(evModelRetry, `{"session_id":1,"text":"x","retry":{"attempt":1,"after_ms":9223372036854775807,"reason":"429"}}`)
	f.Fuzz(func(t *testing.T, name, data string) {
		w, err := decodeEvent(sseEvent{Event: name, Data: data})
		if err != nil {
			return
		}
		ev, ok := kernelEvent(name, w)
		if ok != (ev.Kind != 0) {
			t.Fatalf("%s %q: %+v %v", name, data, ev, ok)
		}
		if ev.Kind == kernel.EventRetry && (ev.Retry == nil || ev.Retry.After < 0 || ev.Retry.After > time.Hour) {
			t.Fatalf("retry %+v", ev.Retry)
		}
		if w.Approval != nil {
			if req := approvalRequest(w.Approval); req == nil || len(req.Args) == 0 {
				t.Fatalf("approval %+v", req)
			}
		}
	})
}

func TestDecodeModelRetry(t *testing.T) {
	w, err := decodeEvent(sseEvent{Event: evModelRetry, Data: `{"session_id":3,"text":"429 rate limited, retrying in 2 s",
		"retry":{"attempt":1,"after_ms":2000,"reason":"429 rate limited"}}`})
	if err != nil {
		t.Fatal(err)
	}
	ev, ok := kernelEvent(evModelRetry, w)
	want := llm.Retry{Attempt: 1, After: 2 * time.Second, Reason: "429 rate limited"}
	if !ok || ev.Kind != kernel.EventRetry || ev.Retry == nil || *ev.Retry != want || ev.Text != "429 rate limited, retrying in 2 s" {
		t.Fatalf("got %+v (%+v), %v", ev, ev.Retry, ok)
	}
	if _, ok := kernelEvent(evModelRetry, wireEvent{}); ok {
		t.Fatal("a model.retry without its retry was taken")
	}
	// A fallback to another source says which.
	w, err = decodeEvent(sseEvent{Event: evModelRetry, Data: `{"session_id":3,"text":"deepseek: 429 rate limited; answering with qwen",
		"retry":{"attempt":0,"after_ms":0,"reason":"deepseek: 429 rate limited","source":"qwen"}}`})
	if err != nil {
		t.Fatal(err)
	}
	if ev, ok := kernelEvent(evModelRetry, w); !ok || ev.Retry.Source != "qwen" || ev.Text != "deepseek: 429 rate limited; answering with qwen" {
		t.Fatalf("fallback: %+v (%+v), %v", ev, ev.Retry, ok)
	}
}
