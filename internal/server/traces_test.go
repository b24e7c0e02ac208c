package server

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/hearth-agent/hearth/internal/app"
	"github.com/hearth-agent/hearth/internal/kernel"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// getJSON GETs path with the token and decodes the answer into out,
// returning the status.
func getJSON(t *testing.T, hs string, path string, out any) int {
	t.Helper()
	req, _ := http.NewRequest("GET", hs+path, nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if out != nil {
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
	}
	return resp.StatusCode
}

func TestTraces(t *testing.T) {
	llm := llmtest.NewServer(t, llmtest.Reply{Text: "hello", Usage: &llmtest.Usage{Prompt: 10, Completion: 2}})
	a, err := app.Open(context.Background(), &app.Options{DataDir: t.TempDir(), Getenv: func(k string) string {
		return map[string]string{"OPENAI_BASE_URL": llm.URL, "OPENAI_API_KEY": "sk-test", "HEARTH_MODEL": "m"}[k]
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	out := a.Kernel.Ask(context.Background(), kernel.Input{Injection: sdk.Injection{Channel: "web", ChatID: "c1", UserID: "owner", Text: "hi"}})
	if out.Err != nil || out.TraceID == "" {
		t.Fatalf("turn: %+v", out)
	}
	_, hs := newTestServer(t, a)

	var list TraceList
	if code := getJSON(t, hs.URL, "/v1/traces?channel=web&limit=10", &list); code != http.StatusOK {
		t.Fatalf("list: %d", code)
	}
	if len(list.Traces) != 1 || list.Traces[0].ID != out.TraceID || list.Traces[0].ModelCalls != 1 ||
		list.Traces[0].Usage.InputTokens != 10 || list.Traces[0].Outcome != "answered" {
		t.Fatalf("list: %+v", list)
	}
	var one map[string]any
	if code := getJSON(t, hs.URL, "/v1/traces/"+out.TraceID, &one); code != http.StatusOK {
		t.Fatalf("get: %d", code)
	}
	if calls, _ := one["model_calls"].([]any); len(calls) != 1 {
		t.Fatalf("trace: %v", one)
	}
	if code := getJSON(t, hs.URL, "/v1/traces/0000000000000000", nil); code != http.StatusNotFound {
		t.Fatalf("missing trace: %d", code)
	}
	var none TraceList
	if getJSON(t, hs.URL, "/v1/traces?channel=terminal", &none); len(none.Traces) != 0 {
		t.Fatalf("other channel: %+v", none)
	}
	for _, q := range []string{"limit=0", "limit=abc", "limit=1001", "session_id=x", "before=yesterday"} {
		var e apiError
		if code := getJSON(t, hs.URL, "/v1/traces?"+q, &e); code != http.StatusUnprocessableEntity || len(e.Error.Fields) != 1 {
			t.Errorf("?%s: %d %+v", q, code, e)
		}
	}
}
