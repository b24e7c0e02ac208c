package policy

import (
	"context"
	"testing"

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
