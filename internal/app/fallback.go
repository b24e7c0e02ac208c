package app

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"time"

	"github.com/hearth-agent/hearth/internal/config"
	"github.com/hearth-agent/hearth/internal/store"
)

// applyMoney applies cfg's budgets and fallback chain, read again from
// config.json while the daemon runs (watchConfig), logging what changed.
func (a *App) applyMoney(cfg *config.File) {
	if !reflect.DeepEqual(cfg.Budgets, a.Kernel.Budgets()) {
		a.Kernel.SetBudgets(cfg.Budgets)
		a.Logger.Info("applied config.json's budgets")
	}
	chain := a.fallbackChain(cfg.Fallback)
	if !slices.Equal(chain, a.Sources.Fallback()) {
		if err := a.Sources.SetFallback(chain); err == nil {
			a.Logger.Info("applied config.json's fallback chain", "fallback", chain)
		}
	}
}

// fallbackChain is names less those that are not sources.
func (a *App) fallbackChain(names []string) []string {
	var chain []string
	for _, n := range names {
		if _, ok := a.Sources.Source(n); ok {
			chain = append(chain, n)
		}
	}
	return chain
}

// fallback sets the sources' fallback chain from config.json and keeps
// the marks of rejected keys in the store, so a key the provider refused
// is not tried again after a restart (until it changes).
func (a *App) fallback(ctx context.Context) error {
	if err := a.Sources.SetFallback(a.fallbackChain(a.Config.Fallback)); err != nil {
		return fmt.Errorf("config.json: %w", err)
	}
	marks, err := a.Store.RejectedKeys(ctx)
	if err != nil {
		return err
	}
	for _, m := range marks {
		a.Sources.MarkRejected(m.Source, m.KeyHash, m.Reason)
	}
	st, log := a.Store, a.Logger
	a.Sources.OnReject = func(source, hash, reason string) {
		log.Warn("the provider rejected a source's API key; the source is skipped until its key changes", "source", source, "reason", reason)
		if err := st.MarkRejectedKey(context.Background(), store.RejectedKey{Source: source, KeyHash: hash, Reason: reason, At: time.Now()}); err != nil {
			log.Warn("keeping the mark of a rejected key failed", "source", source, "err", err)
		}
	}
	return nil
}
