//go:build unix

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// brokenPlugin is a plugin that writes to stderr and exits before its
// handshake, as a plugin whose SDK import fails does; the provider key
// it prints must never be shown.
const brokenPlugin = `{"id": "broken", "command": ["sh", "-c", "echo 'starting with key sk-test-secret-0123456789' >&2; echo 'token tok-plugin-secret-98765' >&2; echo 'Error: Cannot find module ../../../sdk' >&2; exit 3"]}`

// A plugin that fails at its handshake is visible outside chat: `hearth
// plugin` shows why in its STATE column, `plugin show` its state, last
// error, restarts and stderr tail, `plugin logs -n` the tail, and `hearth
// tools` says it contributes nothing and why. The provider's key is
// masked in what the plugin printed.
func TestBrokenPluginIsVisible(t *testing.T) {
	home := t.TempDir()
	writeManifest(t, filepath.Join(home, "plugins", "broken"), brokenPlugin)
	env := []string{"HEARTH_HOME=" + home, "OPENAI_API_KEY=sk-test-secret-0123456789"}
	const key, token = "sk-test-secret-0123456789", "tok-plugin-secret-98765"
	if _, errOut, code := hearth(t, env, token+"\n", "settings", "set", "broken", "api_token"); code != 0 {
		t.Fatalf("settings set: %q", errOut)
	}

	out, errOut, code := hearth(t, env, "", "plugin")
	if code != 0 || !strings.Contains(lineWith(out, "broken"), "exited during the handshake") {
		t.Fatalf("plugin list: %d %q\n%s", code, errOut, out)
	}
	out, errOut, code = hearth(t, env, "", "plugin", "show", "broken")
	for _, want := range []string{"kind:         process", "last error:   exited during the handshake", "restarts:",
		"tools:        (none)", "Error: Cannot find module ../../../sdk", filepath.Join(home, "plugins", "broken")} {
		if code != 0 || !strings.Contains(out, want) {
			t.Fatalf("plugin show: want %q: %d %q\n%s", want, code, errOut, out)
		}
	}
	if strings.Contains(out, key) || strings.Contains(out, token) || !strings.Contains(out, "starting with key") {
		t.Fatalf("plugin show printed a secret:\n%s", out)
	}
	out, errOut, code = hearth(t, env, "", "plugin", "logs", "broken", "-n", "1")
	if code != 0 || out != "Error: Cannot find module ../../../sdk\n" {
		t.Fatalf("plugin logs -n 1: %d %q %q", code, out, errOut)
	}
	if out, _, _ := hearth(t, env, "", "plugin", "logs", "broken"); strings.Contains(out, key) || strings.Contains(out, token) || !strings.Contains(out, "starting with key") {
		t.Fatalf("plugin logs: %q", out)
	}
	out, errOut, code = hearth(t, env, "", "tools")
	if code != 0 || !strings.Contains("\n"+out, "\ntime__now\t") ||
		!strings.Contains(out, "Plugins that contribute no tools") || !strings.Contains(lineWith(out, "broken:"), "failed") {
		t.Fatalf("tools: %d %q\n%s", code, errOut, out)
	}
	if out, _, _ := hearth(t, env, "", "plugin", "disable", "broken"); out != "broken: disabled (a running Hearth applies it within seconds)\n" {
		t.Fatalf("disable: %q", out)
	}
	if out, _, _ := hearth(t, env, "", "tools"); !strings.Contains(lineWith(out, "broken:"), "disabled") {
		t.Fatalf("tools after disable:\n%s", out)
	}
	if _, errOut, code := hearth(t, env, "", "plugin", "show", "time"); code != 1 || !strings.Contains(errOut, "built in") {
		t.Fatalf("show of a built-in: %d %q", code, errOut)
	}
}

// What the user names is checked: enable, disable, reload, remove, show
// and logs refuse an id no plugin has, saying which exist; settings set
// refuses a namespace of no plugin, while core, built-ins and installed
// plugins keep working; reload with no Hearth running says nothing runs
// the plugin now.
func TestPluginIDsAreChecked(t *testing.T) {
	home := t.TempDir()
	writeManifest(t, filepath.Join(home, "plugins", "broken"), brokenPlugin)
	env := []string{"HEARTH_HOME=" + home}
	for _, args := range [][]string{
		{"plugin", "disable", "nope"}, {"plugin", "enable", "nope"}, {"plugin", "reload", "nope"},
		{"plugin", "remove", "nope"}, {"plugin", "show", "nope"}, {"plugin", "logs", "nope"},
		{"settings", "set", "nope", "k", "v"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			out, errOut, code := hearth(t, env, "", args...)
			if code != 1 || out != "" || !strings.Contains(errOut, `no plugin "nope"`) ||
				!strings.Contains(errOut, "broken") || !strings.Contains(errOut, "built in: memories, time") {
				t.Fatalf("%d %q %q", code, out, errOut)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(home, "plugins", "broken")); err != nil {
		t.Fatalf("the plugin folder went: %v", err)
	}
	if _, errOut, code := hearth(t, env, "", "plugin", "disable", "time"); code != 1 || !strings.Contains(errOut, "disabled_plugins") {
		t.Fatalf("disable a built-in: %d %q", code, errOut)
	}
	for _, ns := range []string{"core", "time", "broken", "mcp"} {
		if out, errOut, code := hearth(t, env, "", "settings", "set", ns, "retries", "3"); code != 0 || out != ns+".retries = 3\n" {
			t.Fatalf("settings set %s: %d %q %q", ns, code, out, errOut)
		}
	}
	out, errOut, code := hearth(t, env, "", "plugin", "reload", "broken")
	if code != 0 || strings.Contains(out, "reload requested") || !strings.Contains(out, "no Hearth is running, so nothing runs broken now") ||
		!strings.Contains(out, "next time Hearth starts") {
		t.Fatalf("reload with no Hearth running: %d %q %q", code, out, errOut)
	}
}

// Run by hearth serve, show and logs say what the daemon's plugin does,
// and reload restarts it there.
func TestPluginShowInTheDaemon(t *testing.T) {
	home := t.TempDir()
	writeManifest(t, filepath.Join(home, "plugins", "weather"),
		fmt.Sprintf(`{"id": "weather", "command": [%q], "env": {"HEARTH_TEST_SERVE_WEATHER": "1"}}`, os.Args[0]))
	writeManifest(t, filepath.Join(home, "plugins", "broken"), brokenPlugin)
	startServe(t, home, nil)
	env := []string{"HEARTH_HOME=" + home}
	waitFor(t, "the weather plugin running in the daemon", func() bool {
		out, _, _ := hearth(t, env, "", "plugin", "show", "weather")
		return strings.Contains(out, "state:        running") && strings.Contains(out, "weather__weather_query")
	})
	waitFor(t, "the broken plugin's stderr in the daemon", func() bool {
		out, _, _ := hearth(t, env, "", "plugin", "logs", "broken", "-n", "1")
		return out == "Error: Cannot find module ../../../sdk\n"
	})
	if out, errOut, code := hearth(t, env, "", "plugin", "reload", "weather"); code != 0 || out != "weather: restarting\n" {
		t.Fatalf("reload in the daemon: %d %q %q", code, out, errOut)
	}
	if _, errOut, code := hearth(t, env, "", "plugin", "disable", "nope"); code != 1 || !strings.Contains(errOut, "broken, weather") {
		t.Fatalf("disable nope in the daemon: %d %q", code, errOut)
	}
}

// A plugin subcommand hearth does not know is named as unknown, with or
// without an argument; a known one without its argument says so.
func TestPluginUnknownSubcommand(t *testing.T) {
	home := t.TempDir()
	os.Chmod(home, 0o700) // no warning about its mode first
	env := []string{"HEARTH_HOME=" + home}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"plugin", "frob"}, `hearth plugin: unknown subcommand "frob"` + "\n\nUsage:"},
		{[]string{"plugin", "frob", "x"}, `hearth plugin: unknown subcommand "frob"` + "\n\nUsage:"},
		{[]string{"plugin", "show"}, "hearth plugin: show needs one argument\n\nUsage:"},
	} {
		out, errOut, code := hearth(t, env, "", c.args...)
		if code != 2 || out != "" || !strings.HasPrefix(errOut, c.want) {
			t.Errorf("%q: %d %q %q, want exit 2 and stderr starting %q", c.args, code, out, errOut, c.want)
		}
	}
}
