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
