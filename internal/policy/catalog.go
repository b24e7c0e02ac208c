package policy

import (
	"context"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/hearth-agent/hearth/internal/store"
	"github.com/hearth-agent/hearth/internal/tools"
	"github.com/hearth-agent/hearth/sdk"
)

// CatalogStore is implemented by stores that keep the tool catalogue: the
// last known record of every tool that was ever registered, whatever its
// runtime, so that `hearth policy` can list and set the tools of plugins
// it does not start. *store.Store has it; with a store without it, Known
// does nothing and Catalog returns nothing.
type CatalogStore interface {
	Catalog(ctx context.Context) ([]store.CatalogEntry, error)
	// SaveCatalogEntries records entries in one transaction.
	SaveCatalogEntries(ctx context.Context, es []store.CatalogEntry) error
}

// catalogCache is what the catalogue holds, so that unchanged records
// (every compiled-in tool, at every start) are not written again.
type catalogCache struct {
	mu      sync.Mutex
	entries map[string]store.CatalogEntry // nil until loaded
}

// ToolFlags lists the policy flags a tool declares, by their PKU names.
func ToolFlags(def sdk.ToolDef) []string {
	var flags []string
	for _, f := range []struct {
		on   bool
		name string
	}{{def.Untrusted, "untrusted"}, {def.UserOnly, "userOnly"}, {def.OnDemand, "onDemand"},
		{def.Grant, "grant"}, {def.AlwaysAsk, "alwaysAsk"}, {def.ResolveEffect != nil, "resolveEffect"}} {
		if f.on {
			flags = append(flags, f.name)
		}
	}
	return flags
}

// Known records a registered tool in the catalogue. Registries call it
// for every tool of every runtime; failures are logged, the tool still
// works.
func (e *Engine) Known(t *tools.Tool) {
	cs, ok := e.st.(CatalogStore)
	if !ok {
		return
	}
	e.mu.RLock()
	defaults := modeStrings(e.defaults[t.Plugin])
	e.mu.RUnlock()
	e.cat.mu.Lock()
	defer e.cat.mu.Unlock()
	e.saveEntry(cs, store.CatalogEntry{Tool: t.Name, Plugin: t.Plugin, Effect: string(t.Def.Effect),
		Title: t.Def.Title, Flags: ToolFlags(t.Def), Defaults: defaults})
}

// recordDefaults brings the catalogued tools of plugin in line with its
// default modes.
func (e *Engine) recordDefaults(plugin string, modes map[sdk.Effect]sdk.Mode) {
	cs, ok := e.st.(CatalogStore)
	if !ok {
		return
	}
	defaults := modeStrings(modes)
	e.cat.mu.Lock()
	defer e.cat.mu.Unlock()
	if !e.loadCatalog(cs) {
		return
	}
	var changed []store.CatalogEntry
	for _, en := range e.cat.entries {
		if en.Plugin == plugin && !maps.Equal(en.Defaults, defaults) {
			en.Defaults = defaults
			changed = append(changed, en)
		}
	}
	e.saveEntries(cs, changed)
}

// WarmCatalog reads the catalogue into the cache on a goroutine of its
// own, so that a start's first registration (which needs it to tell an
// unchanged record from a changed one) does not wait for a thousand rows
// to be read: a start calls it when the engine is made and goes on
// opening the rest. Registrations meanwhile wait for it. The function it
// returns waits for the read to end; call it before closing the store.
func (e *Engine) WarmCatalog() (wait func()) {
	cs, ok := e.st.(CatalogStore)
	if !ok {
		return func() {}
	}
	done := make(chan struct{})
	e.cat.mu.Lock() // taken here, so nothing reads the cache before it is filled
	go func() {
		defer close(done)
		defer e.cat.mu.Unlock()
		e.loadCatalog(cs)
	}()
	return func() { <-done }
}

// loadCatalog fills the cache once; e.cat.mu is held.
func (e *Engine) loadCatalog(cs CatalogStore) bool {
	if e.cat.entries != nil {
		return true
	}
	list, err := cs.Catalog(context.Background())
	if err != nil {
		e.log.Warn("reading the tool catalogue failed", "err", err)
		return false
	}
	e.cat.entries = make(map[string]store.CatalogEntry, len(list))
	for _, en := range list {
		e.cat.entries[en.Tool] = en
	}
	return true
}

// saveEntry writes en unless the same record is stored; e.cat.mu is held.
func (e *Engine) saveEntry(cs CatalogStore, en store.CatalogEntry) {
	if !e.loadCatalog(cs) {
		return
	}
	if old, ok := e.cat.entries[en.Tool]; ok && old.Plugin == en.Plugin && old.Effect == en.Effect &&
		old.Title == en.Title && slices.Equal(old.Flags, en.Flags) && maps.Equal(old.Defaults, en.Defaults) {
		return
	}
	e.saveEntries(cs, []store.CatalogEntry{en})
}

// saveEntries writes entries in one transaction and keeps them in the
// cache; e.cat.mu is held and the cache loaded.
func (e *Engine) saveEntries(cs CatalogStore, entries []store.CatalogEntry) {
	if len(entries) == 0 {
		return
	}
	now := time.Now()
	for i := range entries {
		entries[i].Updated = now
	}
	if err := cs.SaveCatalogEntries(context.Background(), entries); err != nil {
		e.log.Warn("recording tools in the catalogue failed", "tools", len(entries), "first", entries[0].Tool, "err", err)
		return
	}
	for _, en := range entries {
		e.cat.entries[en.Tool] = en
	}
}

// Catalog returns the last known record of every tool ever registered
// with this data directory, read afresh.
func (e *Engine) Catalog(ctx context.Context) ([]store.CatalogEntry, error) {
	cs, ok := e.st.(CatalogStore)
	if !ok {
		return nil, nil
	}
	return cs.Catalog(ctx)
}

// ModeOfEntry is ModeOf for a catalogued tool that is not loaded now: the
// user's override, else the plugin's default as last known, else auto.
func (e *Engine) ModeOfEntry(en store.CatalogEntry) (sdk.Mode, string) {
	if m := e.Override(en.Tool); m != "" {
		return m, "override"
	}
	effect := sdk.Effect(en.Effect)
	if !effect.Valid() {
		effect = sdk.EffectWrite
	}
	if m, ok := en.Defaults[string(effect)]; ok {
		return ModeFor(&Input{Defaults: map[sdk.Effect]sdk.Mode{effect: sdk.Mode(m)}}, effect), "plugin default"
	}
	return sdk.ModeAuto, "default"
}

func modeStrings(modes map[sdk.Effect]sdk.Mode) map[string]string {
	out := make(map[string]string, len(modes))
	for ef, m := range modes {
		out[string(ef)] = string(m)
	}
	return out
}
