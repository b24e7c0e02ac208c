//go:build unix

package main

import (
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
