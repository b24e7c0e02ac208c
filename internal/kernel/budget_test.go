package kernel

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/hearth-agent/hearth/internal/llm"
	"github.com/hearth-agent/hearth/internal/store"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// budgetKernel is a kernel with budgets b calling a scripted provider on
// loopback that answers every request with usage u, through a source
// priced in CNY.
func budgetKernel(t *testing.T, st History, b *llm.Budgets, u llmtest.Usage) (*Kernel, *countingServer) {
	t.Helper()
	srv := &countingServer{Server: llmtest.NewServer(t)}
	srv.SetFallback(llmtest.Reply{Func: func(llmtest.Request) llmtest.Reply {
		srv.n.Add(1)
		return llmtest.Reply{Text: "fine", Usage: &u}
	}})
	src, err := llm.NewSources([]llm.Source{{Name: "ds", BaseURL: srv.URL, Model: "m",
		Price: &llm.Price{Input: 2, Output: 8, Currency: "CNY"}}}, "")
	if err != nil {
		t.Fatal(err)
	}
	k := New(src, st, &Options{Budgets: b})
	t.Cleanup(func() { k.Close() })
	return k, srv
}

// countingServer counts the requests it answered.
type countingServer struct {
	*llmtest.Server
	n atomic.Int64
}

func (s *countingServer) Calls() int { return int(s.n.Load()) }

func ask(k *Kernel, chat, text string) Outcome {
	return k.Ask(context.Background(), Input{Injection: sdk.Injection{Channel: "test", ChatID: chat, UserID: "u", Text: text}})
}

// askUntilStopped asks in chat until a call is refused, returning the
// tokens the provider reported for the calls made and the refusal.
func askUntilStopped(t *testing.T, k *Kernel, srv *countingServer, chat string, perCall int) (int, *llm.BudgetError) {
	t.Helper()
	reported := 0
	for i := range 50 {
		before := srv.Calls()
		out := ask(k, chat, "hello again")
		reported += (srv.Calls() - before) * perCall
		var be *llm.BudgetError
		if errors.As(out.Err, &be) {
			if srv.Calls() != before {
				t.Fatalf("turn %d was refused after its call was made", i)
			}
			return reported, be
		}
		if out.Err != nil {
			t.Fatalf("turn %d: %v", i, out.Err)
		}
	}
	t.Fatal("the budget never stopped the session")
	return 0, nil
}

// A session with a budget of N tokens stops at N. What is guaranteed:
// a call is made only when the tokens the provider reported for the
// session's earlier calls, plus the call's estimate (llm.EstimateCall),
// are at most N. So a session never goes past N while each call's usage
// stays within its estimate, and past it by at most the last call's
// usage beyond its estimate otherwise.
func TestSessionTokenBudget(t *testing.T) {
	const n = 5000
	per := llmtest.Usage{Prompt: 300, Completion: 50}
	k, srv := budgetKernel(t, openStore(t), &llm.Budgets{Session: &llm.Limit{Tokens: n}}, per)
	reported, be := askUntilStopped(t, k, srv, "a", per.Prompt+per.Completion)
	if reported > n {
		t.Fatalf("the session used %d tokens, over its budget of %d", reported, n)
	}
	// It stopped only when the next call might not fit, and says so.
	if be.Scope != "session" || !be.Tokens || be.Spent != float64(reported) || be.Spent+be.Estimate <= n || be.Limit != n {
		t.Fatalf("refusal %+v after %d tokens", be, reported)
	}
	if want := "model call stopped: the session budget of 5000 tokens would be exceeded"; be.Error()[:len(want)] != want {
		t.Fatalf("message %q", be.Error())
	}
	// Another session has a budget of its own.
	if out := ask(k, "b", "hello"); out.Err != nil || out.Text != "fine" {
		t.Fatalf("another session: %+v", out)
	}
}

// A provider that reports more than the estimate (an answer longer than
// the assumed output) can take the session past N, by at most that
// call's usage; the next call is refused.
func TestSessionBudgetOvershootBound(t *testing.T) {
	const n = 8000
	per := llmtest.Usage{Prompt: 100, Completion: 5000} // the estimate assumes 1024 output tokens
	k, srv := budgetKernel(t, openStore(t), &llm.Budgets{Session: &llm.Limit{Tokens: n}}, per)
	reported, be := askUntilStopped(t, k, srv, "a", per.Prompt+per.Completion)
	if reported > n+per.Prompt+per.Completion || be.Spent != float64(reported) {
		t.Fatalf("used %d tokens for a budget of %d; refusal %+v", reported, n, be)
	}
	if srv.Calls() != 2 {
		t.Fatalf("%d calls, want 2 (5100 used, then 5100 + estimate fits, then 10200 does not)", srv.Calls())
	}
}

// A day budget holds across sessions and across a restart (a real
// SQLite file).
func TestDayBudgetAcrossSessionsAndRestart(t *testing.T) {
	const n = 4000
	per := llmtest.Usage{Prompt: 400, Completion: 100}
	path := filepath.Join(t.TempDir(), "hearth.db")
	b := &llm.Budgets{Day: &llm.Limit{Tokens: n}, Zone: "Asia/Shanghai"}

	st, err := store.OpenFile(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	k, srv := budgetKernel(t, st, b, per)
	for range 3 {
		if out := ask(k, "a", "hi"); out.Err != nil {
			t.Fatal(out.Err)
		}
	}
	reported, be := askUntilStopped(t, k, srv, "b", per.Prompt+per.Completion)
	reported += 3 * (per.Prompt + per.Completion)
	if reported > n || be.Scope != "day" || be.Spent != float64(reported) {
		t.Fatalf("used %d of %d; refusal %+v", reported, n, be)
	}
	k.Close()
	st.Close()

	st, err = store.OpenFile(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	k2, srv2 := budgetKernel(t, st, b, per)
	out := ask(k2, "c", "hi")
	if !errors.As(out.Err, &be) || be.Scope != "day" || be.Spent != float64(reported) || srv2.Calls() != 0 {
		t.Fatalf("after a restart: %+v (%d calls)", out, srv2.Calls())
	}
}

// A money budget counts cost in its currency, and refuses a source
// without a price in it rather than spend unseen.
func TestMoneyBudget(t *testing.T) {
	per := llmtest.Usage{Prompt: 1000, Completion: 500} // 0.002 + 0.004 CNY
	k, srv := budgetKernel(t, openStore(t), &llm.Budgets{Day: &llm.Limit{Money: &llm.Money{Amount: 0.05, Currency: "CNY"}}}, per)
	_, be := askUntilStopped(t, k, srv, "a", 0)
	spent := float64(srv.Calls()) * 0.006
	if be.Tokens || be.Currency != "CNY" || math.Abs(be.Spent-spent) > 1e-9 || spent > 0.05 || spent+be.Estimate <= 0.05 {
		t.Fatalf("%d calls; refusal %+v", srv.Calls(), be)
	}
	k2, srv2 := budgetKernel(t, openStore(t), &llm.Budgets{Day: &llm.Limit{Money: &llm.Money{Amount: 1, Currency: "USD"}}}, per)
	out := ask(k2, "a", "hi")
	if !errors.As(out.Err, &be) || !be.Unpriced || srv2.Calls() != 0 {
		t.Fatalf("a CNY-priced source under a USD budget: %+v", out)
	}
}

// Without a store the ledger is in memory, and each session still has a
// budget of its own.
func TestSessionBudgetInMemory(t *testing.T) {
	const n = 3000
	per := llmtest.Usage{Prompt: 300, Completion: 50}
	k, srv := budgetKernel(t, nil, &llm.Budgets{Session: &llm.Limit{Tokens: n}}, per)
	a, _ := askUntilStopped(t, k, srv, "a", per.Prompt+per.Completion)
	b, be := askUntilStopped(t, k, srv, "b", per.Prompt+per.Completion)
	if a != b || a > n || be.Spent != float64(b) {
		t.Fatalf("session a used %d, b %d of %d; refusal %+v", a, b, n, be)
	}
}

// A call in flight holds its estimate: a second session cannot take the
// last of a day budget while the first one's call is being answered.
func TestBudgetHoldsCallsInFlight(t *testing.T) {
	arrived, release := make(chan struct{}), make(chan struct{})
	srv := llmtest.NewServer(t)
	srv.SetFallback(llmtest.Reply{Func: func(llmtest.Request) llmtest.Reply {
		arrived <- struct{}{}
		<-release
		return llmtest.Reply{Text: "fine", Usage: &llmtest.Usage{Prompt: 10, Completion: 10}}
	}})
	src, err := llm.NewSources([]llm.Source{{Name: "ds", BaseURL: srv.URL, Model: "m"}}, "")
	if err != nil {
		t.Fatal(err)
	}
	// One call's estimate is about 1040 tokens: one fits, two do not.
	k := New(src, openStore(t), &Options{Budgets: &llm.Budgets{Day: &llm.Limit{Tokens: 1600}}})
	defer k.Close()
	first := k.Submit(Input{Injection: sdk.Injection{Channel: "test", ChatID: "a", UserID: "u", Text: "hi"}})
	<-arrived
	var be *llm.BudgetError
	if out := ask(k, "b", "hi"); !errors.As(out.Err, &be) || be.Spent == 0 {
		t.Fatalf("second session while the first call is in flight: %+v", out)
	}
	close(release)
	if out := <-first; out.Err != nil {
		t.Fatal(out.Err)
	}
	// Once answered, the call counts what it used (20 tokens), not its
	// estimate: another fits.
	go func() { <-arrived }()
	if out := ask(k, "b", "hi"); out.Err != nil {
		t.Fatalf("after the first call: %+v", out)
	}
}

// A fallback source is held to the budgets at its own price before it
// is called: with a day budget in yuan, a fallback priced in dollars is
// not called (its spending could not be counted against it), and the
// turn ends with the budget's refusal; a fallback priced in yuan answers
// and its cost is counted. Over the budget, the current source is not
// called at all and a cheaper fallback still may be.
func TestBudgetHoldsFallbackSources(t *testing.T) {
	down := llmtest.NewServer(t)
	down.SetFallback(llmtest.Reply{Status: 503, ErrorMessage: "down"})
	dollars := &countingServer{Server: llmtest.NewServer(t)}
	dollars.SetFallback(llmtest.Reply{Func: func(llmtest.Request) llmtest.Reply {
		dollars.n.Add(1)
		return llmtest.Reply{Text: "paid in dollars", Usage: &llmtest.Usage{Prompt: 100_000, Completion: 100_000}}
	}})
	yuan := &countingServer{Server: llmtest.NewServer(t)}
	yuan.SetFallback(llmtest.Reply{Func: func(llmtest.Request) llmtest.Reply {
		yuan.n.Add(1)
		return llmtest.Reply{Text: "paid in yuan", Usage: &llmtest.Usage{Prompt: 1000, Completion: 100}}
	}})
	sources := func(fallback string) *llm.Sources {
		t.Helper()
		src, err := llm.NewSources([]llm.Source{
			{Name: "main", BaseURL: down.URL, Model: "m", MaxRetries: -1, Price: &llm.Price{Input: 2, Output: 8, Currency: "CNY"}},
			{Name: "usd", BaseURL: dollars.URL, Model: "m", Price: &llm.Price{Input: 100, Output: 100}},
			{Name: "cny", BaseURL: yuan.URL, Model: "m", Price: &llm.Price{Input: 1, Output: 1, Currency: "CNY"}},
		}, "main")
		if err != nil {
			t.Fatal(err)
		}
		if err := src.SetFallback([]string{fallback}); err != nil {
			t.Fatal(err)
		}
		return src
	}
	budgets := &llm.Budgets{Day: &llm.Limit{Money: &llm.Money{Amount: 0.05, Currency: "CNY"}}}

	k := New(sources("usd"), nil, &Options{Budgets: budgets})
	defer k.Close()
	for range 3 {
		out := ask(k, "c1", "hello")
		var be *llm.BudgetError
		if !errors.As(out.Err, &be) || !be.Unpriced || be.Currency != "CNY" {
			t.Fatalf("through a dollar fallback: %+v", out)
		}
	}
	if dollars.Calls() != 0 {
		t.Fatalf("the dollar fallback was called %d times", dollars.Calls())
	}

	k2 := New(sources("cny"), nil, &Options{Budgets: budgets})
	defer k2.Close()
	out := ask(k2, "c1", "hello")
	if out.Err != nil || out.Text != "paid in yuan" || out.Cost == nil || out.Cost.Currency != "CNY" || yuan.Calls() != 1 {
		t.Fatalf("through a yuan fallback: %+v (cost %+v)", out, out.Cost)
	}
}

// A call is priced by the model it was asked for when the provider names
// one no price list knows: a provider answering as "scripted" (as
// llmtest's does) does not make gpt-4o's calls free, and a money budget
// stops them.
func TestBudgetPricesTheModelAsked(t *testing.T) {
	srv := &countingServer{Server: llmtest.NewServer(t)}
	srv.SetFallback(llmtest.Reply{Func: func(llmtest.Request) llmtest.Reply {
		srv.n.Add(1)
		return llmtest.Reply{Text: "fine", Usage: &llmtest.Usage{Prompt: 400_000, Completion: 100_000}}
	}})
	src, err := llm.NewSources([]llm.Source{{Name: "oa", BaseURL: srv.URL, Model: "gpt-4o"}}, "")
	if err != nil {
		t.Fatal(err)
	}
	// gpt-4o: $2.50 in, $10 out per million: a call costs $2. The third
	// is let through (its estimate, a short answer, fits in what is left:
	// the documented overshoot), the fourth is not.
	k := New(src, nil, &Options{Budgets: &llm.Budgets{Day: &llm.Limit{Money: &llm.Money{Amount: 5, Currency: "USD"}}}})
	defer k.Close()
	var costs []float64
	for i := range 5 {
		out := ask(k, "c1", "hello")
		if out.Err != nil {
			if !errors.Is(out.Err, llm.ErrBudget) || i != 3 {
				t.Fatalf("call %d: %v", i+1, out.Err)
			}
			break
		}
		if out.Cost == nil {
			t.Fatalf("call %d has no cost", i+1)
		}
		costs = append(costs, out.Cost.Amount)
	}
	if len(costs) != 3 || math.Abs(costs[0]-2) > 1e-9 || srv.Calls() != 3 {
		t.Fatalf("costs %v, %d calls", costs, srv.Calls())
	}
}

// A source that failed with nothing to count gives its hold back before
// the fallback is checked: a budget with room for one call's estimate,
// not two, still lets the fallback answer when the first source is down.
func TestBudgetFailedSourceGivesItsHoldBack(t *testing.T) {
	down := llmtest.NewServer(t)
	down.SetFallback(llmtest.Reply{Status: 503, ErrorMessage: "down"})
	up := llmtest.NewServer(t)
	up.SetFallback(llmtest.Reply{Text: "from the fallback", Usage: &llmtest.Usage{Prompt: 10, Completion: 2}})
	// An answer's estimate is its max_tokens: 100,000 tokens each, so
	// 150,000 holds one call's estimate (and its prompt), not two.
	src, err := llm.NewSources([]llm.Source{{Name: "a", BaseURL: down.URL, Model: "m", MaxRetries: -1, MaxTokens: 100_000},
		{Name: "b", BaseURL: up.URL, Model: "m", MaxTokens: 100_000}}, "a")
	if err != nil {
		t.Fatal(err)
	}
	if err := src.SetFallback([]string{"b"}); err != nil {
		t.Fatal(err)
	}
	k := New(src, nil, &Options{Budgets: &llm.Budgets{Day: &llm.Limit{Tokens: 150_000}}})
	defer k.Close()
	out := ask(k, "c1", "hello")
	if out.Err != nil || out.Text != "from the fallback" {
		t.Fatalf("outcome %+v", out)
	}
}
