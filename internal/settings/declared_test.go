package settings

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/sdk"
)

// A setting declared with the type "secret" (which Check accepts as a
// string) is a secret like a password: masked for everyone but its
// plugin.
func TestTypeSecretIsMasked(t *testing.T) {
	s, _ := newService(t)
	p := s.For("ha")
	p.RegisterDef(sdk.ConfigDef{Key: "api_token", Type: "secret"})
	p.RegisterDef(sdk.ConfigDef{Key: "login", Type: "Secret"})
	if err := p.Set("api_token", "sk-live-123"); err != nil {
		t.Fatal(err)
	}
	if err := p.Set("login", "hunter2"); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"api_token", "login"} {
		if !s.Secret("ha", key) {
			t.Fatalf(`%s, declared with type "secret", is not a secret`, key)
		}
		if v, err := s.For("other").GetPlugin("ha", key); err != nil || v != Mask {
			t.Fatalf("another plugin reads %s as %v, %v", key, v, err)
		}
	}
	if d := p.Defs("login"); len(d) != 1 || !d[0].Secret {
		t.Fatalf("the declaration shown to the UI is not secret: %+v", d)
	}
}

// Declaring a key named like a secret as a plain string does not unmask
// it: it stays masked in Dump and for other plugins, and its declaration
// says secret, so the UI masks the field. A boolean named so is not a
// secret (true or false carries none).
func TestDeclaredSecretNameStaysMasked(t *testing.T) {
	s, _ := newService(t)
	p := s.For("ha")
	p.RegisterDef(sdk.ConfigDef{Key: "api_key", Type: "string"})
	p.RegisterDef(sdk.ConfigDef{Key: "bot_token", Type: "text"})
	p.RegisterDef(sdk.ConfigDef{Key: "use_token", Type: "bool"})
	for _, kv := range [][2]any{{"api_key", "sk-1"}, {"bot_token", "tk-2"}, {"use_token", true}} {
		if err := p.Set(kv[0].(string), kv[1]); err != nil {
			t.Fatal(err)
		}
	}
	for _, key := range []string{"api_key", "bot_token"} {
		if !s.Secret("ha", key) {
			t.Fatalf("%s is shown in clear", key)
		}
		if v, _ := s.For("other").GetPlugin("ha", key); v != Mask {
			t.Fatalf("another plugin reads %s as %v", key, v)
		}
		if d := p.Defs(key); len(d) != 1 || !d[0].Secret {
			t.Fatalf("%s's declaration is not secret: %+v", key, d)
		}
		if v, err := p.Get(key); err != nil || v == Mask {
			t.Fatalf("its own plugin reads %s as %v, %v", key, v, err)
		}
	}
	dump, err := s.Dump()
	if err != nil {
		t.Fatal(err)
	}
	ha := dump["ha"].(map[string]any)
	if ha["api_key"] != Mask || ha["bot_token"] != Mask || ha["use_token"] != true {
		t.Fatalf("dump: %v", ha)
	}
	if s.Secret("ha", "use_token") {
		t.Fatal("a boolean named like a secret is masked")
	}
	// The declarations are read back as such by a later process.
	s2 := New(s.st, t.TempDir())
	if d := s2.Defs("ha", "api_key"); !s2.Secret("ha", "api_key") || len(d) != 1 || !d[0].Secret {
		t.Fatal("a new process shows api_key in clear")
	}
}

// A value stored before its key was declared (or under an older
// declaration) is checked when read: the plugin reads the default, or
// nothing when there is none, and the log says so once, without the
// value.
func TestValueStoredBeforeDeclarationIsChecked(t *testing.T) {
	var logs bytes.Buffer
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&logs, nil)))
	t.Cleanup(func() { slog.SetDefault(old) })

	s, _ := newService(t)
	for key, raw := range map[string]string{"max_items": `"abc"`, "limit": `500`, "mode": `"z"`, "pin_secret": `"hunter2"`} {
		if err := s.SetJSON("ha", key, json.RawMessage(raw)); err != nil {
			t.Fatal(err)
		}
	}
	p := s.For("ha")
	p.RegisterDef(sdk.ConfigDef{Key: "max_items", Type: "int", Max: 50, Default: 10})
	p.RegisterDef(sdk.ConfigDef{Key: "limit", Type: "int", Min: 1, Max: 50})
	p.RegisterDef(sdk.ConfigDef{Key: "mode", Type: "select", Options: []string{"a", "b"}, Default: "a"})
	p.RegisterDef(sdk.ConfigDef{Key: "pin_secret", Type: "int", Default: 0})
	for i := 0; i < 2; i++ {
		if v, err := p.Get("max_items"); err != nil || v != float64(10) {
			t.Fatalf("max_items = %#v, %v; want the default 10", v, err)
		}
	}
	if v, err := p.Get("limit"); !errors.Is(err, sdk.ErrNotFound) {
		t.Fatalf("limit = %#v, %v; want not found (no default)", v, err)
	}
	if v, err := p.Get("mode"); err != nil || v != "a" {
		t.Fatalf("mode = %#v, %v", v, err)
	}
	if v, err := p.Get("pin_secret"); err != nil || v != float64(0) {
		t.Fatalf("pin_secret = %#v, %v", v, err)
	}
	dump, err := s.Dump()
	if err != nil {
		t.Fatal(err)
	}
	ha := dump["ha"].(map[string]any)
	if ha["max_items"] != float64(10) || ha["mode"] != "a" || ha["limit"] != nil {
		t.Fatalf("dump: %v", ha)
	}
	out := logs.String()
	if n := strings.Count(out, "key=max_items"); n != 1 {
		t.Fatalf("max_items warned %d times:\n%s", n, out)
	}
	if !strings.Contains(out, "using the default") || strings.Contains(out, "hunter2") {
		t.Fatalf("log:\n%s", out)
	}
	// A valid value is read as stored; a new one replaces the bad one.
	if err := p.Set("max_items", 20); err != nil {
		t.Fatal(err)
	}
	if v, _ := p.Get("max_items"); v != float64(20) {
		t.Fatalf("max_items = %#v", v)
	}
}

// Min == Max is a range of one value, not a missing maximum; both zero is
// no range; Max omitted (0) with a positive Min is no upper bound; a
// negative Min with Max 0 keeps 0 as the maximum.
func TestMinEqualsMaxEnforced(t *testing.T) {
	for _, c := range []struct {
		d    sdk.ConfigDef
		v    float64
		fits bool
	}{
		{sdk.ConfigDef{Type: "int", Min: 5, Max: 5}, 1000, false},
		{sdk.ConfigDef{Type: "int", Min: 5, Max: 5}, 5, true},
		{sdk.ConfigDef{Type: "int", Min: 5, Max: 5}, 4, false},
		{sdk.ConfigDef{Type: "number"}, -1e9, true},
		{sdk.ConfigDef{Type: "int", Min: 1}, 1e9, true},
		{sdk.ConfigDef{Type: "int", Min: 1}, 0, false},
		{sdk.ConfigDef{Type: "int", Max: 50}, 51, false},
		{sdk.ConfigDef{Type: "number", Min: -10}, 1, false},
		{sdk.ConfigDef{Type: "number", Min: -10}, -3, true},
		{sdk.ConfigDef{Type: "int", Min: 10, Max: 5}, 7, false},
	} {
		if err := c.d.Check(c.v); (err == nil) != c.fits {
			t.Errorf("Min %v Max %v, %v: %v", c.d.Min, c.d.Max, c.v, err)
		}
	}
}
