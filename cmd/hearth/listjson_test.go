package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// `hearth plugin --json` lists the built-ins and the plugins folder's
// plugins as `hearth plugin` does; --json with another subcommand is a
// usage error.
func TestPluginJSON(t *testing.T) {
	home := t.TempDir()
	env := []string{"HEARTH_HOME=" + home}
	bad := filepath.Join(home, "plugins", "broken")
	os.MkdirAll(bad, 0o700)
	os.WriteFile(filepath.Join(bad, "plugin.json"), []byte(`{"id": "broken"`), 0o600)
	os.WriteFile(filepath.Join(home, "config.json"), []byte(`{"plugins": {"time": {"enabled": false}}}`), 0o600)
	out, errOut, code := hearth(t, env, "", "plugin", "--json")
	var list []pluginEntry
	if err := json.Unmarshal([]byte(out), &list); code != 0 || err != nil {
		t.Fatalf("%d %v %q %q", code, err, out, errOut)
	}
	byID := map[string]pluginEntry{}
	for _, p := range list {
		byID[p.ID] = p
	}
	if p := byID["time"]; p.Kind != "builtin" || p.Enabled || p.State != "disabled" {
		t.Fatalf("time: %+v", p)
	}
	if p := byID["broken"]; p.Folder != bad || !strings.HasPrefix(p.State, "error: ") {
		t.Fatalf("broken: %+v", p)
	}
	if _, errOut, code := hearth(t, env, "", "plugin", "show", "time", "--json"); code != 2 || !strings.Contains(errOut, "--json goes with the list only") {
		t.Fatalf("show --json: %d %q", code, errOut)
	}
}

// `hearth settings --json` gives every plugin's settings with their
// values as JSON, a secret's masked.
func TestSettingsJSON(t *testing.T) {
	env := []string{"HEARTH_HOME=" + t.TempDir()}
	if _, errOut, code := hearth(t, env, "", "settings", "set", "core", "answer", "42"); code != 0 {
		t.Fatalf("set: %q", errOut)
	}
	if _, errOut, code := hearth(t, env, "sk-secret-value-123\n", "settings", "set", "mcp", "token"); code != 0 {
		t.Fatalf("set secret: %q", errOut)
	}
	out, errOut, code := hearth(t, env, "", "settings", "--json")
	var groups []settingsGroup
	if err := json.Unmarshal([]byte(out), &groups); code != 0 || err != nil {
		t.Fatalf("%d %v %q %q", code, err, out, errOut)
	}
	if strings.Contains(out, "sk-secret-value-123") {
		t.Fatalf("a secret was shown: %s", out)
	}
	found := false
	for _, g := range groups {
		for _, s := range g.Settings {
			if g.Plugin == "core" && s.Key == "answer" && string(s.Value) == "42" && s.Set {
				found = true
			}
		}
	}
	if !found {
		t.Fatalf("core.answer not listed: %s", out)
	}
	out, _, code = hearth(t, env, "", "settings", "core", "--json")
	if code != 0 || !json.Valid([]byte(out)) || !strings.Contains(out, `"plugin": "core"`) || strings.Contains(out, `"plugin": "mcp"`) {
		t.Fatalf("settings core --json: %d %q", code, out)
	}
	if _, errOut, code := hearth(t, env, "", "settings", "get", "core", "answer", "--json"); code != 2 || !strings.Contains(errOut, "--json goes with the lists only") {
		t.Fatalf("get --json: %d %q", code, errOut)
	}
}
