//go:build unix

package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// proseErrorPlugin fails at its handshake as a plugin refusing a
// preference named api_key does, after printing a real key.
const proseErrorPlugin = `{"id": "prose", "command": ["sh", "-c", "echo 'api_key: abcdEFGH01234567 loaded' >&2; echo 'Error: preference api_key: preferences are not secret, use a secret setting' >&2; exit 1"]}`

// `hearth plugin show` keeps an error sentence that names a key field
// readable while it masks the key value the plugin printed, and the last
// error carries the plugin's last stderr line, so the user sees why it
// exited during the handshake.
func TestPluginShowKeepsProseAfterAKeyName(t *testing.T) {
	home := t.TempDir()
	writeManifest(t, filepath.Join(home, "plugins", "prose"), proseErrorPlugin)
	env := []string{"HEARTH_HOME=" + home}
	out, errOut, code := hearth(t, env, "", "plugin", "show", "prose")
	const sentence = "Error: preference api_key: preferences are not secret, use a secret setting"
	if code != 0 || !strings.Contains(out, "  "+sentence) {
		t.Fatalf("plugin show: want the sentence: %d %q\n%s", code, errOut, out)
	}
	if !strings.Contains(lineWith(out, "last error:"), "exited during the handshake: exit status 1; its last stderr line: "+sentence) {
		t.Fatalf("plugin show: last error without the stderr line:\n%s", out)
	}
	if strings.Contains(out, "abcdEFGH01234567") || !strings.Contains(out, "api_key: ****4567 loaded") {
		t.Fatalf("plugin show printed the key:\n%s", out)
	}
}

// `hearth plugin` names an xbot plugin as its tools, settings and the
// forget hint do (com-example-echo-channel), with plugin.json's id beside
// it; --json says both; disable takes the name Hearth uses.
func TestPluginListShowsTheNameHearthUses(t *testing.T) {
	home := t.TempDir()
	writeManifest(t, filepath.Join(home, "plugins", "echo"), `{"id": "com.example.echo-channel", "runtime": "stdio", "command": ["sh", "-c", "exit 3"]}`)
	env := []string{"HEARTH_HOME=" + home}
	out, errOut, code := hearth(t, env, "", "plugin")
	if code != 0 || !strings.HasPrefix(lineWith(out, "echo"), "com-example-echo-channel (plugin.json: com.example.echo-channel)  ") {
		t.Fatalf("plugin list: %d %q\n%s", code, errOut, out)
	}
	out, errOut, code = hearth(t, env, "", "plugin", "--json")
	var list []struct {
		ID         string `json:"id"`
		ManifestID string `json:"manifest_id"`
		Enabled    bool   `json:"enabled"`
	}
	if err := json.Unmarshal([]byte(out), &list); code != 0 || err != nil {
		t.Fatalf("plugin --json: %d %v %q\n%s", code, err, errOut, out)
	}
	found := false
	for _, p := range list {
		if p.ID == "com-example-echo-channel" && p.ManifestID == "com.example.echo-channel" {
			found = true
		}
	}
	if !found {
		t.Fatalf("plugin --json: no entry with both ids:\n%s", out)
	}
	if out, errOut, code := hearth(t, env, "", "plugin", "disable", "com-example-echo-channel"); code != 0 {
		t.Fatalf("disable: %d %q %q", code, out, errOut)
	}
	out, _, _ = hearth(t, env, "", "plugin")
	if f := strings.Fields(lineWith(out, "echo")); len(f) < 4 || f[3] != "false" {
		t.Fatalf("plugin list after disable:\n%s", out)
	}
}
