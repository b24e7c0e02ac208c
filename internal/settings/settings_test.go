package settings

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/internal/store"
	"github.com/hearth-agent/hearth/sdk"
)

func newService(t testing.TB) (*Service, string) {
	t.Helper()
	dir := t.TempDir()
	st, err := store.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return New(st, dir), dir
}

func TestOwnSettingsDefaultsAndChecks(t *testing.T) {
	s, _ := newService(t)
	w := s.For("weather")
	w.RegisterDef(sdk.ConfigDef{Key: "unit", Type: "string", Default: "c", Options: []string{"c", "f"}})
	w.RegisterDef(sdk.ConfigDef{Key: "days", Type: "number", Min: 1, Max: 7})
	w.RegisterDef(sdk.ConfigDef{Key: "on", Type: "boolean"})
	if v, err := w.Get("unit"); err != nil || v != "c" {
		t.Fatalf("default: %v %v", v, err)
	}
	if _, err := w.Get("city"); !errors.Is(err, sdk.ErrNotFound) {
		t.Fatalf("missing key: %v", err)
	}
	for key, bad := range map[string]any{"unit": "k", "days": 9.0, "on": "yes"} {
		if err := w.Set(key, bad); !errors.Is(err, ErrInvalid) {
			t.Errorf("Set(%s, %v) = %v, want ErrInvalid", key, bad, err)
		}
	}
	if err := w.Set("unit", "f"); err != nil {
		t.Fatal(err)
	}
	if err := w.Set("城市", map[string]any{"name": "北京", "lat": 39.9}); err != nil {
		t.Fatal(err)
	}
	if v, _ := w.Get("unit"); v != "f" {
		t.Fatalf("unit = %v", v)
	}
	if v, _ := w.Get("城市"); !reflect.DeepEqual(v, map[string]any{"name": "北京", "lat": 39.9}) {
		t.Fatalf("城市 = %v", v)
	}
	keys, err := w.List("")
	if err != nil || !slices.Equal(keys, []string{"days", "on", "unit", "城市"}) {
		t.Fatalf("keys %q %v", keys, err)
	}
	if defs := w.Defs("u"); len(defs) != 1 || defs[0].Key != "unit" {
		t.Fatalf("defs %v", defs)
	}
}

func TestSecretsStayWithTheirPlugin(t *testing.T) {
	s, dir := newService(t)
	qq, other := s.For("qq"), s.For("weather")
	qq.RegisterDef(sdk.ConfigDef{Key: "token", Type: "string", Secret: true})
	if err := qq.Set("token", "sk-秘密"); err != nil {
		t.Fatal(err)
	}
	if err := qq.Set("napcat_url", "ws://127.0.0.1:3001"); err != nil {
		t.Fatal(err)
	}
	qq.RegisterDef(sdk.ConfigDef{Key: "pin", Type: "string", Secret: true, Options: []string{"0000"}})
	if err := qq.Set("pin", "1234"); err == nil || strings.Contains(err.Error(), "1234") {
		t.Fatalf("a refused secret shows in the error: %v", err)
	}
	if v, _ := qq.Get("token"); v != "sk-秘密" {
		t.Fatalf("own secret = %v", v)
	}
	if v, _ := other.GetPlugin("qq", "token"); v != Mask {
		t.Fatalf("another plugin read the secret: %v", v)
	}
	if v, _ := other.GetPlugin("qq", "napcat_url"); v != "ws://127.0.0.1:3001" {
		t.Fatalf("plain value = %v", v)
	}
	dump := other.Dump()
	if got := dump["qq"].(map[string]any)["token"]; got != Mask {
		t.Fatalf("dump shows the secret: %v", got)
	}
	// Undeclared, but named like a secret.
	if err := qq.Set("api_key", "sk-未声明"); err != nil {
		t.Fatal(err)
	}
	if v, _ := other.GetPlugin("qq", "api_key"); v != Mask {
		t.Fatalf("an undeclared secret-named value leaked: %v", v)
	}
	if p := other.Plugins(); !slices.Equal(p, []string{"qq"}) {
		t.Fatalf("plugins %v", p)
	}
	if v, _ := other.GetCore(CoreDataDir); v != dir {
		t.Fatalf("data dir %v", v)
	}
	if err := other.SetCore(CoreDataDir, "/tmp"); !errors.Is(err, ErrInvalid) {
		t.Fatalf("data dir written: %v", err)
	}
	if err := other.SetCore("core.locale", "zh-CN"); err != nil {
		t.Fatal(err)
	}
	if v, _ := qq.GetCore("core.locale"); v != "zh-CN" {
		t.Fatalf("core.locale = %v", v)
	}
	if filepath.Base(other.DataDir()) != "weather" {
		t.Fatalf("data dir %s", other.DataDir())
	}
}

func TestKVIsPrivate(t *testing.T) {
	s, _ := newService(t)
	ctx := context.Background()
	a, b := s.KV("a"), s.KV("b")
	type note struct{ Text string }
	if err := a.Set(ctx, "n", note{"你好"}); err != nil {
		t.Fatal(err)
	}
	var got note
	if ok, err := a.Get(ctx, "n", &got); !ok || err != nil || got.Text != "你好" {
		t.Fatalf("get %v %v %v", got, ok, err)
	}
	if ok, _ := b.Get(ctx, "n", &got); ok {
		t.Fatal("another plugin read the value")
	}
	if err := a.Set(ctx, "bad", func() {}); err == nil {
		t.Fatal("a value that is not JSON was stored")
	}
	if err := a.Delete(ctx, "n"); err != nil {
		t.Fatal(err)
	}
	if ok, _ := a.Get(ctx, "n", &got); ok {
		t.Fatal("deleted value still there")
	}
}

func TestDeclarationsOutliveTheProcess(t *testing.T) {
	dir := t.TempDir()
	st, err := store.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	New(st, dir).For("qq").RegisterDef(sdk.ConfigDef{Key: "token", Type: "string", Secret: true})
	// Another process (the CLI) that never started the plugin.
	s := New(st, dir)
	if !s.Secret("qq", "token") {
		t.Fatal("the declaration was not kept")
	}
	if err := s.For("qq").Set("token", 5); !errors.Is(err, ErrInvalid) {
		t.Fatalf("a number went into a string setting: %v", err)
	}
}
