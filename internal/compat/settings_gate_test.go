//go:build unix

package compat

import (
	"context"
	"encoding/json"
	"errors"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/hearth-agent/hearth/internal/app"
	"github.com/hearth-agent/hearth/internal/settings"
)

// settingsGateRows are what a person's change of a plugin's preferences
// (the HTTP API and the web UI: settings.Service.Apply) does to a real
// TypeScript child, testdata/settings/prefgate: the preference gate asks
// the plugin about every key before anything is stored.
var settingsGateRows = []struct{ pattern, plugin, checks string }{
	{"Apply, one key refused", "prefgate", "the plugin keeps none of the change and nothing is stored"},
	{"Apply, all keys taken", "prefgate", "the plugin's kv and Hearth's copy both hold the change"},
	{"reset the plugin refuses (null)", "prefgate", "nothing is reset, in Hearth or in the plugin"},
	{"reset the plugin takes (null)", "prefgate", "the plugin goes back to its default and the next start does not bring the old value back"},
}

// openGateHearth opens Hearth on dir with testdata/settings/prefgate in
// its plugins folder, waiting for the plugin's handshake.
func openGateHearth(t *testing.T, dir string) *app.App {
	t.Helper()
	a, err := app.Open(context.Background(), &app.Options{DataDir: dir, Plugins: app.PluginsWait,
		WatchInterval: time.Hour, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestSettingsGateWithAChild(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatalf("node is needed: %v", err)
	}
	t.Logf("%d rows", len(settingsGateRows))
	ctx := context.Background()
	dir := t.TempDir()
	copyTestPlugin(t, filepath.Join("testdata", "settings", "prefgate"), filepath.Join(dir, "plugins", "prefgate"))
	a := openGateHearth(t, dir)
	svc := a.Settings
	kv := func(key string) string { // what the plugin itself holds
		t.Helper()
		var v any
		ok, err := svc.KV("prefgate").Get(ctx, key, &v)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			return "<none>"
		}
		b, _ := json.Marshal(v)
		return string(b)
	}
	value := func(s *settings.Service, key string) string { // Hearth's copy
		t.Helper()
		raw, ok, err := s.Value("prefgate", key)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			return "<none>"
		}
		return string(raw)
	}
	apply := func(values map[string]string) error {
		m := map[string]json.RawMessage{}
		for k, v := range values {
			m[k] = json.RawMessage(v)
		}
		return svc.Apply(ctx, "owner", "prefgate", m)
	}
	if value(svc, "mode") != `"calm"` || value(svc, "label") != `"dflt"` {
		t.Fatalf("at start Hearth holds mode %s, label %s", value(svc, "mode"), value(svc, "label"))
	}

	t.Run(settingsGateRows[0].pattern, func(t *testing.T) {
		var fe settings.FieldErrors
		if err := apply(map[string]string{"mode": `"loud"`, "label": `"toolong"`}); !errors.As(err, &fe) || fe["label"] == "" || fe["mode"] != "" {
			t.Fatalf("Apply = %v", err)
		}
		// The plugin may have taken mode and been given "calm" back.
		if m := kv("pref.mode"); (m != "<none>" && m != `"calm"`) || value(svc, "mode") != `"calm"` {
			t.Fatalf("the plugin holds mode %s, Hearth %s", kv("pref.mode"), value(svc, "mode"))
		}
	})
	t.Run(settingsGateRows[1].pattern, func(t *testing.T) {
		if err := apply(map[string]string{"mode": `"loud"`, "label": `"hi"`}); err != nil {
			t.Fatal(err)
		}
		if kv("pref.mode") != `"loud"` || kv("pref.label") != `"hi"` || value(svc, "mode") != `"loud"` || value(svc, "label") != `"hi"` {
			t.Fatalf("plugin %s %s, Hearth %s %s", kv("pref.mode"), kv("pref.label"), value(svc, "mode"), value(svc, "label"))
		}
	})
	t.Run(settingsGateRows[2].pattern, func(t *testing.T) {
		var fe settings.FieldErrors
		if err := apply(map[string]string{"mode": `null`}); !errors.As(err, &fe) || fe["mode"] == "" {
			t.Fatalf("reset = %v", err)
		}
		if kv("pref.mode") != `"loud"` || value(svc, "mode") != `"loud"` {
			t.Fatalf("plugin %s, Hearth %s", kv("pref.mode"), value(svc, "mode"))
		}
	})
	t.Run(settingsGateRows[3].pattern, func(t *testing.T) {
		if err := apply(map[string]string{"label": `null`}); err != nil {
			t.Fatal(err)
		}
		if kv("pref.label") != "<none>" || value(svc, "label") != "null" {
			t.Fatalf("plugin %s, Hearth %s", kv("pref.label"), value(svc, "label"))
		}
		a.Close()
		a = openGateHearth(t, dir) // the plugin's next start
		svc = a.Settings
		if kv("pref.label") != "<none>" || value(svc, "label") != "null" || value(svc, "mode") != `"loud"` {
			t.Fatalf("after a restart: plugin %s, Hearth %s (mode %s)", kv("pref.label"), value(svc, "label"), value(svc, "mode"))
		}
	})
	a.Close()
}
