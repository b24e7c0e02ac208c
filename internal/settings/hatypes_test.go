package settings

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/sdk"
)

// HomeAgent's ConfigDef types are checked on every write path: a
// plugin's Set, SetJSON (the CLI and the wire) and Apply (the HTTP API and
// the web UI).
func TestHomeAgentTypesChecked(t *testing.T) {
	s, _ := newService(t)
	p := s.For("ha")
	p.RegisterDef(sdk.ConfigDef{Key: "max_items", Type: "int", Max: 50, Default: 10})
	p.RegisterDef(sdk.ConfigDef{Key: "ratio", Type: "float", Min: 0.5, Max: 2})
	p.RegisterDef(sdk.ConfigDef{Key: "enabled", Type: "bool"})
	p.RegisterDef(sdk.ConfigDef{Key: "style", Type: "select", Options: []string{"vivid", "natural"}})
	p.RegisterDef(sdk.ConfigDef{Key: "pass", Type: "password"})
	p.RegisterDef(sdk.ConfigDef{Key: "port", Type: "int", Min: 1}) // no upper bound

	for _, c := range []struct {
		key, raw string
		ok       bool
		msg      string
	}{
		{"max_items", `50`, true, ""},
		{"max_items", `0`, true, ""},
		{"max_items", `51`, false, "above the maximum 50"},
		{"max_items", `-1`, false, "below the minimum"},
		{"max_items", `"abc"`, false, "want a whole number, got a string"},
		{"max_items", `2.5`, false, "not a whole number"},
		{"ratio", `1.25`, true, ""},
		{"ratio", `3`, false, "above the maximum"},
		{"enabled", `true`, true, ""},
		{"enabled", `"yes"`, false, "want true or false"},
		{"style", `"vivid"`, true, ""},
		{"style", `"loud"`, false, "is not one of"},
		{"style", `1`, false, "want a string"},
		{"pass", `"hunter2"`, true, ""},
		{"pass", `12`, false, "does not fit its declaration"},
		{"port", `65535`, true, ""},
		{"port", `0`, false, "below the minimum 1"},
	} {
		t.Run(c.key+"="+c.raw, func(t *testing.T) {
			var v any
			if err := json.Unmarshal([]byte(c.raw), &v); err != nil {
				t.Fatal(err)
			}
			errs := map[string]error{
				"Set":     p.Set(c.key, v),
				"SetJSON": s.SetJSON("ha", c.key, json.RawMessage(c.raw)),
				"Apply":   s.Apply(context.Background(), "owner", "ha", map[string]json.RawMessage{c.key: json.RawMessage(c.raw)}),
			}
			for path, err := range errs {
				if c.ok && err != nil {
					t.Errorf("%s refused %s: %v", path, c.raw, err)
				}
				if !c.ok && (!errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.msg)) {
					t.Errorf("%s: err %v, want ErrInvalid with %q", path, err, c.msg)
				}
				if err != nil && c.key == "pass" && strings.Contains(err.Error(), "12") {
					t.Errorf("%s: a password's refusal quotes the value: %v", path, err)
				}
			}
		})
	}
}

// A password is a secret without Secret: masked for other plugins and
// Dump, marked secret in its declaration (the CLI, the HTTP API and the
// web UI read that), readable by its own plugin.
func TestPasswordIsSecret(t *testing.T) {
	s, _ := newService(t)
	p := s.For("ha")
	p.RegisterDef(sdk.ConfigDef{Key: "login", Type: "password"})
	if err := p.Set("login", "hunter2"); err != nil {
		t.Fatal(err)
	}
	if !s.Secret("ha", "login") {
		t.Fatal("a password is not secret")
	}
	if d := p.Defs("login"); len(d) != 1 || !d[0].Secret {
		t.Fatalf("declaration %+v, want Secret set", d)
	}
	if v, err := p.Get("login"); err != nil || v != "hunter2" {
		t.Fatalf("own read: %v %v", v, err)
	}
	if v, err := s.For("other").GetPlugin("ha", "login"); err != nil || v != Mask {
		t.Fatalf("other plugin read %v %v, want the mask", v, err)
	}
	if d, _ := s.Dump(); d["ha"].(map[string]any)["login"] != Mask {
		t.Fatalf("dump shows %v", d["ha"])
	}
	// The declaration read back from the store (a CLI process that never
	// starts the plugin) is secret too.
	again := New(s.st, t.TempDir())
	if !again.Secret("ha", "login") {
		t.Fatal("the stored declaration of a password is not secret")
	}
}

// core.daemon.data_dir and daemon.data_dir answer the data directory,
// and neither can be written.
func TestCoreDataDir(t *testing.T) {
	s, dir := newService(t)
	p := s.For("ha")
	for _, key := range []string{CoreDataDir, CoreDataDirShort} {
		if v, err := p.GetCore(key); err != nil || v != dir {
			t.Errorf("GetCore(%s) = %v %v, want %s", key, v, err, dir)
		}
		if err := p.SetCore(key, "/tmp"); !errors.Is(err, ErrInvalid) {
			t.Errorf("SetCore(%s) = %v, want ErrInvalid", key, err)
		}
	}
}
