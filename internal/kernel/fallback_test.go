package kernel

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/hearth-agent/hearth/internal/llm"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// When the current source fails with 429 forever and the fallback
// answers, the user gets the answer and an event naming the source that
// gave it; the trace and the usage ledger record it at that source's
// price.
func TestFallbackSourceInTraceAndEvents(t *testing.T) {
	bad := llmtest.NewRawServer(t, func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusTooManyRequests)
		w.Write([]byte(`{"error":{"message":"slow down"}}`))
	})
	good := llmtest.NewServer(t, llmtest.Reply{Text: "from qwen", Usage: &llmtest.Usage{Prompt: 1_000_000}})
	src, err := llm.NewSources([]llm.Source{
		{Name: "deepseek", BaseURL: bad.URL, Model: "deepseek-chat", MaxRetries: -1},
		{Name: "qwen", BaseURL: good.URL, Model: "qwen-plus", Price: &llm.Price{Input: 0.8, Output: 2, Currency: "CNY"}},
	}, "deepseek")
	if err != nil {
		t.Fatal(err)
	}
	if err := src.SetFallback([]string{"qwen"}); err != nil {
		t.Fatal(err)
	}
	st := openStore(t)
	k := New(src, st, nil)
	defer k.Close()
	var notices []string
	out := k.Ask(context.Background(), Input{Injection: sdk.Injection{Channel: "test", ChatID: "c", UserID: "u", Text: "hi"},
		OnEvent: func(ev Event) {
			if ev.Kind == EventRetry {
				notices = append(notices, ev.Text)
			}
		}})
	if out.Err != nil || out.Text != "from qwen" {
		t.Fatalf("outcome %+v", out)
	}
	if len(notices) != 1 || notices[0] != "deepseek: 429 rate limited; answering with qwen" {
		t.Fatalf("notices %q", notices)
	}
	tr := onlyTrace(t, st)
	if len(tr.ModelCalls) != 1 || tr.ModelCalls[0].Source != "qwen" || tr.ModelCalls[0].Fallback != "deepseek: 429 rate limited" ||
		tr.Cost == nil || tr.Cost.Currency != "CNY" || tr.Cost.Amount != 0.8 {
		t.Fatalf("trace %+v, cost %+v", tr.ModelCalls, tr.Cost)
	}
	totals, err := st.UsageTotals(context.Background(), "source", time.Time{}, time.Time{})
	if err != nil || len(totals) != 1 || totals[0].Key != "qwen" || totals[0].Cost != 0.8 || totals[0].Currency != "CNY" {
		t.Fatalf("usage by source %+v, %v", totals, err)
	}
}
