package store

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"
)

func TestSettingsAndKVPersist(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "h.db")
	s, err := OpenFile(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(s.SetSetting(ctx, "weather", "城市", json.RawMessage(`"北京"`)))
	must(s.SetSetting(ctx, "weather", "城市.备用", json.RawMessage(`"上海"`)))
	must(s.SetSetting(ctx, "weather", "units", json.RawMessage(`"c"`)))
	must(s.SetSetting(ctx, "weather", "units", json.RawMessage(`"f"`)))
	must(s.SetSetting(ctx, "core", "x", json.RawMessage(`1`)))
	must(s.KVSet(ctx, "weather", "last", json.RawMessage(`{"t":1}`)))
	must(s.KVSet(ctx, "other", "last", json.RawMessage(`2`)))
	s.Close()

	s, err = OpenFile(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if v, ok, err := s.Setting(ctx, "weather", "units"); err != nil || !ok || string(v) != `"f"` {
		t.Fatalf("units = %s %v %v", v, ok, err)
	}
	if _, ok, err := s.Setting(ctx, "weather", "none"); err != nil || ok {
		t.Fatalf("missing setting: %v %v", ok, err)
	}
	if keys, err := s.SettingKeys(ctx, "weather", "城市"); err != nil || !slices.Equal(keys, []string{"城市", "城市.备用"}) {
		t.Fatalf("keys %q %v", keys, err)
	}
	all, err := s.AllSettings(ctx)
	if err != nil || len(all) != 2 || string(all["core"]["x"]) != "1" {
		t.Fatalf("all %v %v", all, err)
	}
	if v, ok, err := s.KVGet(ctx, "weather", "last"); err != nil || !ok || string(v) != `{"t":1}` {
		t.Fatalf("kv %s %v %v", v, ok, err)
	}
	must(s.KVDelete(ctx, "weather", "last"))
	must(s.KVDelete(ctx, "weather", "last"))
	if _, ok, _ := s.KVGet(ctx, "weather", "last"); ok {
		t.Fatal("deleted value still there")
	}
	if v, ok, _ := s.KVGet(ctx, "other", "last"); !ok || string(v) != "2" {
		t.Fatal("another plugin's value was touched")
	}
}
