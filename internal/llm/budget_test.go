package llm

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestEstimateCall(t *testing.T) {
	req := &Request{Messages: []Message{{Role: "user", Content: strings.Repeat("x", 300)}}}
	// {"role":"user","content":"xxx..."} is 328 bytes: 110 tokens, rounded up.
	e := EstimateCall(req, Source{Price: &Price{Input: 2, Output: 8, Currency: "CNY"}}, "", time.Time{})
	if e.Tokens != 110+DefaultOutputEstimate || !e.Priced || e.Currency != "CNY" ||
		e.Cost != (110*2+float64(DefaultOutputEstimate)*8)/1e6 {
		t.Fatalf("estimate %+v", e)
	}
	if e := EstimateCall(req, Source{MaxTokens: 50, Model: "llama3"}, "", time.Time{}); e.Tokens != 160 || e.Priced {
		t.Fatalf("with max_tokens, no price: %+v", e)
	}
}

func TestLimitAllow(t *testing.T) {
	est := CallEstimate{Tokens: 100, Cost: 0.5, Currency: "CNY", Priced: true}
	cny := func(v float64) map[string]float64 { return map[string]float64{"CNY": v} }
	for _, c := range []struct {
		name  string
		l     *Limit
		spent Spent
		ok    bool
	}{
		{"no limit", nil, Spent{Tokens: 1 << 40}, true},
		{"exactly the limit", &Limit{Tokens: 1000}, Spent{Tokens: 900}, true},
		{"one over", &Limit{Tokens: 1000}, Spent{Tokens: 901}, false},
		{"money fits", &Limit{Money: &Money{Amount: 1, Currency: "cny"}}, Spent{Money: cny(0.5)}, true},
		{"money over", &Limit{Money: &Money{Amount: 1, Currency: "CNY"}}, Spent{Money: cny(0.51)}, false},
		{"other currency", &Limit{Money: &Money{Amount: 1, Currency: "USD"}}, Spent{}, false},
	} {
		err := c.l.Allow("day", c.spent, est)
		if (err == nil) != c.ok || (err != nil && !errors.Is(err, ErrBudget)) {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	err := (&Limit{Money: &Money{Amount: 1, Currency: "USD"}}).Allow("session", Spent{}, CallEstimate{Tokens: 1})
	if be := (*BudgetError)(nil); !errors.As(err, &be) || !be.Unpriced || !strings.Contains(err.Error(), "no price in USD") {
		t.Fatalf("unpriced: %v", err)
	}
}

// A day budget in yuan holds DeepSeek's calls, priced in yuan as its
// preset lists (it once priced them in dollars and refused them all).
func TestBudgetInYuanAllowsDeepSeek(t *testing.T) {
	req := &Request{Messages: []Message{{Role: "user", Content: "你好"}}}
	src := Source{Name: "deepseek", BaseURL: "https://api.deepseek.com/v1", Model: "deepseek-chat"}
	e := EstimateCall(req, src, "", time.Time{})
	if !e.Priced || e.Currency != "CNY" {
		t.Fatalf("estimate %+v", e)
	}
	day := &Limit{Money: &Money{Amount: 10, Currency: "CNY"}}
	if err := day.Allow("day", Spent{}, e); err != nil {
		t.Fatal(err)
	}
	err := day.Allow("day", Spent{Money: map[string]float64{"CNY": 10}}, e)
	for _, want := range []string{"the day budget of 10.00 CNY would be exceeded (10.00 CNY spent", " CNY); raise \"budgets\".\"day\" in config.json"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("over the budget: %v; want %q", err, want)
		}
	}
}
