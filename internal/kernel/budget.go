package kernel

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"sync"
	"time"

	"github.com/hearth-agent/hearth/internal/llm"
	"github.com/hearth-agent/hearth/internal/store"
)

// UsageLedger keeps every model call's usage, for totals and budgets. A
// History that implements it, as *store.Store does, gets every call;
// without one the kernel keeps a ledger in memory, lost at exit.
type UsageLedger interface {
	RecordUsage(ctx context.Context, u *store.Usage) error
	// UsageSpent sums the calls of day (when not empty) or of session.
	UsageSpent(ctx context.Context, day string, session int64) (int64, map[string]float64, error)
}

var _ UsageLedger = (*store.Store)(nil)

// budgetGate checks each model call against the budgets before it is
// made. What a scope has spent is read from the ledger at its first
// check and kept up to date from then on by the calls this kernel makes
// (one process owns the data directory); calls in flight are held as
// reservations of their estimate, so two calls made at once cannot both
// take the last of a budget.
type budgetGate struct {
	mu       sync.Mutex
	spent    map[string]*llm.Spent // "day:2026-12-01", "session:7": what the ledger holds
	reserved map[string]llm.Spent  // the estimates of calls in flight
	memIDs   map[sessionKey]int64  // ledger ids of sessions not in a store: -1, -2, ...
}

// maxSpentKeys bounds the scopes whose spending is kept in memory; past
// it they are forgotten and read again from the ledger when next needed.
const maxSpentKeys = 4096

// counted adds a call's usage to the scopes whose spending is kept.
func (g *budgetGate) counted(keys []string, u llm.Usage, cost *float64, currency string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, key := range keys {
		s := g.spent[key]
		if s == nil {
			continue
		}
		s.Tokens += int64(u.PromptTokens + u.CompletionTokens)
		if cost != nil {
			s.Money[currency] += *cost
		}
	}
}

// ledgerSession is the id the ledger knows t's session by: its store id,
// or for a session kept in memory only a negative id of its own.
func (k *Kernel) ledgerSession(t *turnState) int64 {
	if t.s.storeID != 0 {
		return t.s.storeID
	}
	g := &k.budget
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.memIDs == nil {
		g.memIDs = map[sessionKey]int64{}
	}
	id, ok := g.memIDs[t.s.key]
	if !ok {
		id = -int64(len(g.memIDs) + 1)
		g.memIDs[t.s.key] = id
	}
	return id
}

// reservation is a call's hold on its budgets; release drops it once the
// call's usage is in the ledger.
type reservation struct {
	g        *budgetGate
	keys     []string
	est      llm.CallEstimate
	released bool // under g.mu: release drops the hold once
}

func (r *reservation) release() {
	if r == nil {
		return
	}
	r.g.mu.Lock()
	defer r.g.mu.Unlock()
	if r.released {
		return
	}
	r.released = true
	for _, k := range r.keys {
		s := r.g.reserved[k]
		s.Tokens -= r.est.Tokens
		if r.est.Priced {
			s.Money[r.est.Currency] -= r.est.Cost
		}
		r.g.reserved[k] = s
	}
}

// Budgets returns the budgets calls are checked against now.
func (k *Kernel) Budgets() *llm.Budgets { return k.budgets.Load() }

// SetBudgets replaces the budgets, for the calls that start from now on
// (config.json edited while the daemon runs); nil lifts them. What was
// spent is kept: a raised day budget counts today's spending against
// the new limit.
func (k *Kernel) SetBudgets(b *llm.Budgets) { k.budgets.Store(b) }

// reserve checks req, about to be sent through src for model at at,
// against the day and session budgets and holds its estimate, or returns
// the *llm.BudgetError of the first budget it would go over. With no
// budget it estimates nothing and holds nothing.
func (k *Kernel) reserve(ctx context.Context, t *turnState, req *llm.Request, src llm.Source, model string, at time.Time) (*reservation, error) {
	b := k.budgets.Load()
	if b == nil || (b.Day == nil && b.Session == nil) {
		return nil, nil
	}
	est := llm.EstimateCall(req, src, model, at)
	session := k.ledgerSession(t)
	g := &k.budget
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.reserved == nil {
		g.reserved = map[string]llm.Spent{}
	}
	r := &reservation{g: g, est: est}
	check := func(scope, key string, l *llm.Limit, day string, session int64) error {
		if l == nil {
			return nil
		}
		known := g.spent[key]
		if known == nil {
			tokens, money, err := k.ledger.UsageSpent(ctx, day, session)
			if err != nil {
				// Without knowing what was spent, spending more is not safe.
				return fmt.Errorf("model call stopped: the %s budget cannot be checked: %w", scope, err)
			}
			if g.spent == nil || len(g.spent) >= maxSpentKeys {
				g.spent = map[string]*llm.Spent{}
			}
			if money == nil {
				money = map[string]float64{}
			}
			known = &llm.Spent{Tokens: tokens, Money: money}
			g.spent[key] = known
		}
		spent := llm.Spent{Tokens: known.Tokens, Money: maps.Clone(known.Money)}
		held := g.reserved[key]
		spent.Tokens += held.Tokens
		for cur, v := range held.Money {
			if spent.Money == nil {
				spent.Money = map[string]float64{}
			}
			spent.Money[cur] += v
		}
		if err := l.Allow(scope, spent, est); err != nil {
			var be *llm.BudgetError
			if errors.As(err, &be) {
				be.Source = src.Name
			}
			return err
		}
		r.keys = append(r.keys, key)
		return nil
	}
	day := b.DayOf(at)
	if err := check("day", "day:"+day, b.Day, day, 0); err != nil {
		return nil, err
	}
	if err := check("session", fmt.Sprint("session:", session), b.Session, "", session); err != nil {
		return nil, err
	}
	for _, key := range r.keys {
		s := g.reserved[key]
		if s.Money == nil {
			s.Money = map[string]float64{}
		}
		s.Add(est)
		g.reserved[key] = s
	}
	return r, nil
}

// recordUsage puts one call's usage in the ledger, at price (none when
// priced is false), logging a failure.
func (k *Kernel) recordUsage(ctx context.Context, t *turnState, source, model string, price llm.Price, priced bool, u llm.Usage, at time.Time) {
	if u == (llm.Usage{}) {
		return
	}
	rec := &store.Usage{At: at, Day: k.budgets.Load().DayOf(at), SessionID: k.ledgerSession(t), Source: source, Model: model,
		Plugin: t.in.Plugin, InputTokens: int64(u.PromptTokens), CachedTokens: int64(u.CachedTokens),
		CacheWriteTokens: int64(u.CacheWriteTokens), OutputTokens: int64(u.CompletionTokens)}
	if t.trace != nil {
		rec.TraceID = t.trace.tr.ID
	}
	if priced {
		c := price.CostAt(u, at)
		rec.Cost, rec.Currency = &c, price.CurrencyCode()
	}
	// Counted for the budgets even when the ledger fails to keep it: the
	// tokens were spent.
	k.budget.counted([]string{"day:" + rec.Day, fmt.Sprint("session:", rec.SessionID)}, u, rec.Cost, rec.Currency)
	if err := k.ledger.RecordUsage(context.WithoutCancel(ctx), rec); err != nil {
		k.log.Warn("recording model usage failed", "session", t.s.key, "err", err)
	}
}

// memLedger is the ledger of a kernel without a store.
type memLedger struct {
	mu    sync.Mutex
	calls []store.Usage
}

func (m *memLedger) RecordUsage(_ context.Context, u *store.Usage) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.calls = append(m.calls, *u)
	return nil
}

func (m *memLedger) UsageSpent(_ context.Context, day string, session int64) (int64, map[string]float64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var n int64
	money := map[string]float64{}
	for _, u := range m.calls {
		if (day != "" && u.Day == day) || (day == "" && u.SessionID == session) {
			n += u.InputTokens + u.OutputTokens
			if u.Cost != nil {
				money[u.Currency] += *u.Cost
			}
		}
	}
	return n, money, nil
}
