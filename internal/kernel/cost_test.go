package kernel

import (
	"time"

	"context"
	"math"
	"testing"

	"github.com/hearth-agent/hearth/internal/llm"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// TestOutcomeCost checks a turn's cost: the sum of its calls at the
// source's price, on the outcome and on EventFinal; none for a model
// whose price is not known.
func TestOutcomeCost(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Reply{ToolCalls: []llmtest.Call{{ID: "c1", Name: "w__echo", Arguments: `{}`}},
			Usage: &llmtest.Usage{Prompt: 1_000_000, Cached: 500_000, Completion: 100_000}},
		llmtest.Reply{Text: "done", Usage: &llmtest.Usage{Prompt: 1_000_000}},
		llmtest.Reply{Text: "again", Usage: &llmtest.Usage{Prompt: 10}},
	)
	for _, traced := range []bool{true, false} {
		price := &llm.Price{Input: 0.28, Output: 0.42, CachedInput: 0.028}
		if !traced {
			price = nil // and the model, "local", has no known price
		}
		src, err := llm.NewSources([]llm.Source{{Name: "s", BaseURL: srv.URL, Model: "local", Price: price}}, "")
		if err != nil {
			t.Fatal(err)
		}
		k := New(src, nil, &Options{NoTraces: !traced})
		load(t, k, "w", func(s *sdk.PluginSDK) error {
			return sdk.AddTool(s, sdk.ToolDef{Name: "echo", Description: "echo", Effect: sdk.EffectRead},
				func(context.Context, *sdk.ToolContext, struct{}) (string, error) { return "ok", nil })
		})
		var final *Cost
		in := Input{Injection: sdk.Injection{Channel: "test", Text: "hi"},
			OnEvent: func(ev Event) {
				if ev.Kind == EventFinal {
					final = ev.Cost
				}
			}}
		out := k.Ask(context.Background(), in)
		if traced {
			// 0.14 + 0.014 + 0.042, then 0.28.
			if out.Cost == nil || out.Cost.Currency != "USD" || math.Abs(out.Cost.Amount-0.476) > 1e-9 {
				t.Errorf("cost %+v, want 0.476 USD", out.Cost)
			}
			if final == nil || *final != *out.Cost {
				t.Errorf("EventFinal's cost %+v, outcome's %+v", final, out.Cost)
			}
		} else if out.Err != nil || out.Cost != nil || final != nil {
			t.Errorf("no price known: outcome %+v (cost %+v), EventFinal's %+v", out, out.Cost, final)
		}
		k.Close()
	}
}

func TestTurnCostCurrencies(t *testing.T) {
	var c turnCost
	if c.total() != nil {
		t.Fatal("a turn without calls has a cost")
	}
	usd := llm.Price{Input: 1}
	cny := llm.Price{Input: 1, Currency: "cny"}
	c.add(usd, true, llm.Usage{PromptTokens: 1_000_000}, time.Time{})
	c.add(usd, true, llm.Usage{PromptTokens: 1_000_000}, time.Time{})
	if got := c.total(); got == nil || *got != (Cost{Amount: 2, Currency: "USD"}) {
		t.Fatalf("total %+v", got)
	}
	c.add(cny, true, llm.Usage{PromptTokens: 1}, time.Time{})
	if got := c.total(); got != nil {
		t.Fatalf("two currencies added up: %+v", got)
	}
}
