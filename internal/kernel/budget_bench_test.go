package kernel

import (
	"context"
	"testing"

	"github.com/hearth-agent/hearth/internal/llm"
)

// meteredProvider reports usage with every answer, so each model call
// is written to the usage ledger.
type meteredProvider struct{ inner llm.Provider }

func (p meteredProvider) Chat(ctx context.Context, req *llm.Request, onDelta func(llm.Delta)) (*llm.Response, error) {
	resp, err := p.inner.Chat(ctx, req, onDelta)
	if resp != nil {
		resp.Usage = llm.Usage{PromptTokens: 1200, CompletionTokens: 80, CachedTokens: 1000}
	}
	return resp, err
}

// BenchmarkTurnMetered is BenchmarkTurnInProcess with usage reported,
// so each of the turn's two model calls is recorded in the ledger;
// with HEARTH_BENCH_BUDGET=1 a day and a session budget are set too, so
// each call is also checked against them (two ledger reads) and its
// request estimated. Compare host-p50-µs with BenchmarkTurnInProcess.
func BenchmarkTurnMetered(b *testing.B) {
	b.Run("ledger", func(b *testing.B) { benchTurns(b, meteredProvider{instantProvider{}}, 50) })
	b.Run("budgets", func(b *testing.B) {
		benchBudgets = &llm.Budgets{Day: &llm.Limit{Tokens: 1 << 50}, Session: &llm.Limit{Tokens: 1 << 50}}
		defer func() { benchBudgets = nil }()
		benchTurns(b, meteredProvider{instantProvider{}}, 50)
	})
}
