package pluginhost

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/internal/settings"
)

// legacyPlugin writes, into parent/folder, a raw node child with id id
// whose manifest names legacy as its legacy.pluginIds and declares the
// text preferences prefs.
func legacyPlugin(t *testing.T, parent, folder, id string, legacy []string, prefs ...string) string {
	t.Helper()
	dir := filepath.Join(parent, folder)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	pm := map[string]any{}
	for _, p := range prefs {
		pm[p] = map[string]string{"title": p, "kind": "text"}
	}
	man, _ := json.Marshal(map[string]any{"id": id, "name": id, "version": "1.0.0", "scopes": []string{},
		"legacy": map[string]any{"pluginIds": legacy}, "preferences": pm})
	if err := os.WriteFile(filepath.Join(dir, ManifestFile), []byte(`{"id":"`+id+`","command":["node","main.mjs"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	main := `import { createInterface } from 'node:readline';
const send = (m) => process.stdout.write(JSON.stringify(m) + '\n');
for await (const line of createInterface({ input: process.stdin })) {
  const msg = JSON.parse(line);
  if (msg.method === 'initialize') {
    send({ jsonrpc: '2.0', id: msg.id, result: { protocolVersion: 1, sdkVersion: 'raw', name: '` + id + `', manifest: ` + string(man) + ` } });
  } else if (msg.id !== undefined && msg.method) {
    send({ jsonrpc: '2.0', id: msg.id, result: msg.method === '$/ping' ? 'pong' : {} });
  }
}
`
	if err := os.WriteFile(filepath.Join(dir, "main.mjs"), []byte(main), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// legacyEnv is a fixture whose settings and name bindings are a real
// store's, with the old id "victim" holding a preference-like value, an
// undeclared one and a secret.
func legacyEnv(t *testing.T) (*fixture, *settings.Service, func(context.Context, string, string) error) {
	t.Helper()
	needProgram(t, "node")
	f := newFixture(t)
	st := openStore(t, f.data)
	svc := settings.New(st, f.data)
	f.opts.Settings, f.opts.NameOwners = svc, st
	for key, v := range map[string]string{"color": `"blue"`, "webhook_url": `"https://hooks.example/T0/victim-credential"`, "api_token": `"s3cret"`} {
		if err := svc.SetJSON("victim", key, json.RawMessage(v)); err != nil {
			t.Fatal(err)
		}
	}
	bind := func(ctx context.Context, name, folder string) error {
		_, err := st.BindPluginName(ctx, name, folder)
		return err
	}
	return f, svc, bind
}

func startLegacy(t *testing.T, f *fixture, dir string) {
	t.Helper()
	p, err := Start(dir, &f.opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Stop)
	ready(t, p)
}

// A plugin that names another installed plugin's id (installed in a
// folder of another name, not running) as a legacy id takes none of its
// settings, not even one it declares.
func TestLegacyIDTakesNoInstalledPluginsSettings(t *testing.T) {
	f, svc, _ := legacyEnv(t)
	parent := t.TempDir()
	vdir := filepath.Join(parent, "victim-plugin")
	os.MkdirAll(vdir, 0o755)
	os.WriteFile(filepath.Join(vdir, ManifestFile), []byte(`{"id":"victim","command":["node","main.mjs"]}`), 0o644)
	startLegacy(t, f, legacyPlugin(t, parent, "thief", "thief", []string{"victim"}, "color", "webhook_url"))
	for _, key := range []string{"color", "webhook_url", "api_token"} {
		if raw, ok, _ := svc.Value("thief", key); ok {
			t.Errorf("thief holds victim's %s: %s", key, raw)
		}
	}
	if !strings.Contains(f.logs.String(), "legacy id not adopted") {
		t.Errorf("no log of the refusal:\n%s", f.logs.String())
	}
}

// An id bound in the database to another folder (a plugin moved away or
// uninstalled by hand, its name kept) is not adopted either; nor is any
// id when the host cannot read the bindings.
func TestLegacyIDBoundElsewhereNotAdopted(t *testing.T) {
	f, svc, bind := legacyEnv(t)
	if err := bind(context.Background(), "victim", "weather-plugin"); err != nil {
		t.Fatal(err)
	}
	startLegacy(t, f, legacyPlugin(t, t.TempDir(), "thief", "thief", []string{"victim"}, "color"))
	if raw, ok, _ := svc.Value("thief", "color"); ok {
		t.Errorf("thief took color %s from an id bound to another folder", raw)
	}

	f2, svc2, _ := legacyEnv(t)
	f2.opts.NameOwners = nil
	startLegacy(t, f2, legacyPlugin(t, t.TempDir(), "thief", "thief", []string{"victim"}, "color"))
	if raw, ok, _ := svc2.Value("thief", "color"); ok {
		t.Errorf("thief took color %s with no name bindings to check", raw)
	}
}

// The genuine case: the new version of a plugin, in the folder the old id
// was bound to (or with the old id bound nowhere), takes the old values
// of the keys it declares, never a secret or a key it does not declare,
// and the carrying is logged and recorded for `hearth plugin show`.
func TestLegacyIDCarriesDeclaredKeys(t *testing.T) {
	f, svc, bind := legacyEnv(t)
	if err := bind(context.Background(), "victim", "weather"); err != nil {
		t.Fatal(err)
	}
	startLegacy(t, f, legacyPlugin(t, t.TempDir(), "weather", "weather2", []string{"victim"}, "color"))
	if raw, ok, _ := svc.Value("weather2", "color"); !ok || string(raw) != `"blue"` {
		t.Errorf("color %s %v, want carried over", raw, ok)
	}
	for _, key := range []string{"webhook_url", "api_token"} {
		if raw, ok, _ := svc.Value("weather2", key); ok {
			t.Errorf("%s carried over: %s", key, raw)
		}
	}
	if logs := f.logs.String(); !strings.Contains(logs, "legacy settings carried over") || strings.Contains(logs, "blue") {
		t.Errorf("log:\n%s", logs)
	}
	lines := LegacyLines(f.data, "weather2")
	if len(lines) != 1 || !strings.HasPrefix(lines[0], "settings of victim carried over: color (") {
		t.Errorf("record %q", lines)
	}
}

func FuzzLegacyCarried(f *testing.F) {
	f.Add([]byte(`[{"from":"old","keys":["a"],"at":"2026-01-01T00:00:00Z"}]`))
	f.Add([]byte(`{"from":1}`))
	f.Add([]byte(`[{"from":"old","keys":[],"tools":[{"old":"old__a","new":"p1__b","mode":"off"}],"at":"2026-01-01T00:00:00Z"}]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		dir := t.TempDir()
		os.MkdirAll(filepath.Join(dir, LegacyDir), 0o700)
		os.WriteFile(filepath.Join(dir, LegacyDir, "p1.json"), b, 0o600)
		list, err := LegacyCarried(dir, "p1")
		for _, c := range list {
			if err == nil && c.From == "" {
				t.Fatal("an entry without an old id")
			}
		}
		_ = LegacyLines(dir, "p1")
	})
}
