package store

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"
)

// A name stays with the folder that bound it first, case aside, and
// forgetting it removes everything kept under it, and nothing else.
func TestPluginNameBindingAndForget(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, c := range []struct{ name, folder, want string }{
		{"victim", "victim", "victim"},
		{"Victim", "zz", "victim"},
		{"victim", "victim", "victim"},
		{"other", "zz", "zz"},
	} {
		if got, err := s.BindPluginName(ctx, c.name, c.folder); err != nil || got != c.want {
			t.Fatalf("bind %s to %s: %q %v; want %q", c.name, c.folder, got, err, c.want)
		}
	}
	if got, err := s.PluginOwners(ctx); err != nil || !reflect.DeepEqual(got, map[string]string{"victim": "victim", "other": "zz"}) {
		t.Fatalf("owners: %v %v", got, err)
	}

	raw := json.RawMessage(`"v"`)
	for _, ns := range []string{"victim", "Victim", "victim2", "other"} {
		must(t, s.SetSetting(ctx, ns, "token", raw))
		must(t, s.SetSettingDef(ctx, ns, "token", json.RawMessage(`{"key":"token","secret":true}`)))
		must(t, s.KVSet(ctx, ns, "k", raw))
		must(t, s.SetOverride(ctx, ns+"__pay", "auto"))
		must(t, s.SaveCatalogEntry(ctx, CatalogEntry{Tool: ns + "__pay", Plugin: ns}))
		must(t, s.SetGrant(ctx, Grant{Role: "plugin:" + ns, Effects: []string{"read", "write"}}))
	}
	must(t, s.SaveCatalogEntry(ctx, CatalogEntry{Tool: "other__refund", Plugin: "other"}))
	if got, err := s.CatalogPlugins(ctx); err != nil || !reflect.DeepEqual(got, []string{"Victim", "other", "victim", "victim2"}) {
		t.Fatalf("catalogue's plugins: %q %v", got, err)
	}
	f, err := s.ForgetPlugin(ctx, "VICTIM")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := s.CatalogPlugins(ctx); err != nil || !reflect.DeepEqual(got, []string{"other", "victim2"}) {
		t.Fatalf("catalogue's plugins after forgetting victim: %q %v", got, err)
	}
	both := map[string]map[string]json.RawMessage{"victim": {"token": raw}, "Victim": {"token": raw}}
	if f.Folder != "victim" || !reflect.DeepEqual(f.Settings, both) || !reflect.DeepEqual(f.KV, map[string]map[string]json.RawMessage{"victim": {"k": raw}, "Victim": {"k": raw}}) || len(f.Defs) != 2 ||
		!reflect.DeepEqual(f.Overrides, map[string]string{"victim__pay": "auto", "Victim__pay": "auto"}) ||
		!reflect.DeepEqual(f.Catalog, []string{"Victim__pay", "victim__pay"}) || len(f.Grants) != 2 {
		t.Fatalf("forgotten: %+v", f)
	}
	if _, ok, _ := s.Setting(ctx, "victim", "token"); ok {
		t.Fatal("the setting is still there")
	}
	if _, ok, _ := s.KVGet(ctx, "victim", "k"); ok {
		t.Fatal("the KV value is still there")
	}
	for _, ns := range []string{"victim2", "other"} {
		if _, ok, _ := s.Setting(ctx, ns, "token"); !ok {
			t.Fatalf("%s's setting went too", ns)
		}
		if _, ok, _ := s.KVGet(ctx, ns, "k"); !ok {
			t.Fatalf("%s's KV value went too", ns)
		}
	}
	if o, _ := s.Overrides(ctx); len(o) != 2 || o["victim2__pay"] != "auto" {
		t.Fatalf("overrides left: %v", o)
	}
	if g, _ := s.Grants(ctx); len(g) != 2 || g[0].Role != "plugin:other" || g[1].Role != "plugin:victim2" {
		t.Fatalf("grants left: %+v", g)
	}
	if got, _ := s.PluginOwners(ctx); !reflect.DeepEqual(got, map[string]string{"other": "zz"}) {
		t.Fatalf("owners after forget: %v", got)
	}
	if got, err := s.BindPluginName(ctx, "victim", "zz"); err != nil || got != "zz" {
		t.Fatalf("the freed name: %q %v", got, err)
	}
	f, err = s.ForgetPlugin(ctx, "nobody")
	if err != nil || !f.Empty() {
		t.Fatalf("forgetting an unknown name: %+v %v", f, err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
