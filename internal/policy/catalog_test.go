package policy

import (
	"context"
	"fmt"
	"maps"
	"testing"
	"time"

	"github.com/hearth-agent/hearth/internal/store"
	"github.com/hearth-agent/hearth/internal/tools"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/toolcall"
)

func TestCatalogRemembersToolsAndDefaults(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st, err := store.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	eng, err := NewEngine(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	pay := &tools.Tool{Tool: toolcall.Tool{Name: "shop__pay"}, Plugin: "shop", Def: sdk.ToolDef{Effect: sdk.EffectMoney, Title: "付款", Untrusted: true}}
	eng.Known(pay)
	// Default modes that arrive after the tools (a child's manifest) are
	// recorded too.
	eng.SetDefaults("shop", map[sdk.Effect]sdk.Mode{sdk.EffectMoney: sdk.ModeAsk})
	st.Close()

	// Another process, where the plugin does not run.
	st, err = store.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	other, err := NewEngine(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	list, err := other.Catalog(ctx)
	if err != nil || len(list) != 1 {
		t.Fatalf("catalogue %v %v", list, err)
	}
	en := list[0]
	if en.Tool != "shop__pay" || en.Plugin != "shop" || en.Effect != "money" || en.Title != "付款" ||
		len(en.Flags) != 1 || en.Flags[0] != "untrusted" {
		t.Fatalf("entry %+v", en)
	}
	if m, src := other.ModeOfEntry(en); m != sdk.ModeAsk || src != "plugin default" {
		t.Fatalf("mode %s (%s)", m, src)
	}
	// An override set elsewhere is seen here.
	if err := st.SetOverride(ctx, "shop__pay", "off"); err != nil {
		t.Fatal(err)
	}
	other.refresh(ctx, 0)
	if m, src := other.ModeOfEntry(en); m != sdk.ModeOff || src != "override" {
		t.Fatalf("mode after override %s (%s)", m, src)
	}
}

// countingCatalog counts the catalogue's write transactions.
type countingCatalog struct {
	*store.Store
	saves, entries int
}

func (c *countingCatalog) SaveCatalogEntries(ctx context.Context, es []store.CatalogEntry) error {
	c.saves++
	c.entries += len(es)
	return c.Store.SaveCatalogEntries(ctx, es)
}

// TestCatalogDefaultsInOneWrite: new default modes for a plugin of many
// tools rewrite their records in one transaction, not one each; the
// records all say the new modes.
func TestCatalogDefaultsInOneWrite(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	cs := &countingCatalog{Store: st}
	eng, err := NewEngine(ctx, cs, nil)
	if err != nil {
		t.Fatal(err)
	}
	const n = 50
	for i := range n {
		eng.Known(&tools.Tool{Tool: toolcall.Tool{Name: fmt.Sprintf("many__t%02d", i)}, Plugin: "many"})
	}
	eng.Known(&tools.Tool{Tool: toolcall.Tool{Name: "other__t"}, Plugin: "other"})
	cs.saves, cs.entries = 0, 0
	eng.SetDefaults("many", map[sdk.Effect]sdk.Mode{sdk.EffectWrite: sdk.ModeAsk})
	if cs.saves != 1 || cs.entries != n {
		t.Fatalf("%d transactions for %d records, want 1 for %d", cs.saves, cs.entries, n)
	}
	list, err := st.Catalog(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, en := range list {
		if want := map[string]string{"write": "ask"}; en.Plugin == "many" && !maps.Equal(en.Defaults, want) {
			t.Fatalf("%s: defaults %v", en.Tool, en.Defaults)
		} else if en.Plugin == "other" && len(en.Defaults) != 0 {
			t.Fatalf("another plugin's tool changed: %+v", en)
		}
	}
	// The same modes again: nothing to write.
	eng.SetDefaults("many", map[sdk.Effect]sdk.Mode{sdk.EffectWrite: sdk.ModeAsk})
	if cs.saves != 1 {
		t.Fatalf("unchanged defaults were written again (%d transactions)", cs.saves)
	}
}

// blockingCatalog holds its catalogue read until release is closed.
type blockingCatalog struct {
	countingCatalog
	release chan struct{}
}

func (c *blockingCatalog) Catalog(ctx context.Context) ([]store.CatalogEntry, error) {
	<-c.release
	return c.Store.Catalog(ctx)
}

// TestWarmCatalog: the catalogue read WarmCatalog starts is the one the
// next registration uses; a registration made while it runs waits for it
// (so an unchanged record is not written again), and the returned
// function waits for the read to end.
func TestWarmCatalog(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	known := &tools.Tool{Tool: toolcall.Tool{Name: "many__t"}, Plugin: "many"}
	if err := st.SaveCatalogEntry(ctx, store.CatalogEntry{Tool: "many__t", Plugin: "many", Defaults: map[string]string{}}); err != nil {
		t.Fatal(err)
	}
	cs := &blockingCatalog{countingCatalog{Store: st}, make(chan struct{})}
	eng, err := NewEngine(ctx, cs, nil)
	if err != nil {
		t.Fatal(err)
	}
	wait := eng.WarmCatalog()
	registered := make(chan struct{})
	go func() {
		eng.Known(known)
		close(registered)
	}()
	select {
	case <-registered:
		t.Fatal("a registration went on before the catalogue was read")
	case <-time.After(50 * time.Millisecond):
	}
	close(cs.release)
	wait()
	<-registered
	if cs.saves != 0 {
		t.Fatalf("an unchanged record was written again (%d transactions)", cs.saves)
	}
	eng.Known(&tools.Tool{Tool: toolcall.Tool{Name: "many__new"}, Plugin: "many"})
	if cs.saves != 1 {
		t.Fatalf("a new tool's record: %d transactions, want 1", cs.saves)
	}
}
