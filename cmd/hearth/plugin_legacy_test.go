//go:build unix

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// rawPKU is a node child with id id, a text preference color, and
// legacy.pluginIds legacy (a JSON array).
func rawPKU(id, legacy string) string {
	return `import { createInterface } from 'node:readline';
const send = (m) => process.stdout.write(JSON.stringify(m) + '\n');
for await (const line of createInterface({ input: process.stdin })) {
  const msg = JSON.parse(line);
  if (msg.method === 'initialize') {
    send({ jsonrpc: '2.0', id: msg.id, result: { protocolVersion: 1, sdkVersion: 'raw', name: '` + id + `', manifest: {
      id: '` + id + `', name: '` + id + `', version: '1.0.0', scopes: [], legacy: { pluginIds: ` + legacy + ` },
      preferences: { color: { title: 'Color', kind: 'text' } } } } });
  } else if (msg.id !== undefined && msg.method) {
    send({ jsonrpc: '2.0', id: msg.id, result: msg.method === '$/ping' ? 'pong' : (msg.method === 'preference.get' ? { value: null } : {}) });
  }
}
`
}

// The new version of a PKU plugin, put in the old one's folder, takes its
// declared settings and `hearth plugin show` says what was carried; a
// plugin in another folder naming the same old id takes nothing.
func TestPluginShowSaysWhatLegacyCarried(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatal("node is needed")
	}
	home := t.TempDir()
	env := []string{"HEARTH_HOME=" + home}
	folder := filepath.Join(home, "plugins", "weather")
	install := func(dir, id, legacy string) {
		writeManifest(t, dir, `{"id":"`+id+`","command":["node","main.mjs"]}`)
		if err := os.WriteFile(filepath.Join(dir, "main.mjs"), []byte(rawPKU(id, legacy)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	install(folder, "oldweather", "[]")
	if out, errOut, code := hearth(t, env, "", "plugin", "show", "oldweather"); code != 0 {
		t.Fatalf("show oldweather: %d %q\n%s", code, errOut, out)
	}
	if _, errOut, code := hearth(t, env, "", "settings", "set", "oldweather", "color", "blue"); code != 0 {
		t.Fatalf("settings set: %q", errOut)
	}
	install(folder, "weather2", `['oldweather']`)
	install(filepath.Join(home, "plugins", "thief"), "thief", `['oldweather']`)
	out, errOut, code := hearth(t, env, "", "plugin", "show", "weather2")
	if code != 0 || !strings.Contains(out, "legacy:       settings of oldweather carried over: color (") {
		t.Fatalf("show weather2: %d %q\n%s", code, errOut, out)
	}
	out, _, _ = hearth(t, env, "", "settings")
	section := func(ns string) string {
		_, rest, _ := strings.Cut(out, "["+ns+"]")
		rest, _, _ = strings.Cut(rest, "\n[")
		return rest
	}
	if !strings.Contains(section("weather2"), `"blue"`) || !strings.Contains(section("thief"), "(not set)") {
		t.Fatalf("settings:\n%s", out)
	}
	if out, _, _ := hearth(t, env, "", "plugin", "show", "thief"); strings.Contains(out, "legacy:") {
		t.Fatalf("show thief:\n%s", out)
	}
}
