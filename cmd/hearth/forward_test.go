//go:build unix

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// hearthIn is hearth run in the working directory dir.
func hearthIn(t *testing.T, dir string, env []string, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Dir = dir
	cmd.Env = append([]string{"HEARTH_TEST_MAIN=1", childRace, "PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}, env...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

// While hearth serve runs, plugin, tools, policy and settings are run by
// it: a plugin installed from a relative path starts in the daemon at
// once, its tools are listed (a CLI alone could not: the daemon runs the
// plugins), disabling it stops it there, a policy change is what the
// daemon enforces, and a value read from stdin is set without being
// logged.
func TestCommandsRunInTheDaemon(t *testing.T) {
	home := t.TempDir()
	s := startServe(t, home, nil)
	env := []string{"HEARTH_HOME=" + home}

	work := t.TempDir()
	src := filepath.Join(work, "weather-plugin")
	os.MkdirAll(src, 0o755)
	manifest := fmt.Sprintf(`{"id": "weather", "command": [%q], "env": {"HEARTH_TEST_SERVE_WEATHER": "1"}}`, os.Args[0])
	if err := os.WriteFile(filepath.Join(src, "plugin.json"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := hearthIn(t, work, env, "", "plugin", "install", "./weather-plugin")
	if code != 0 || !strings.Contains(out, "installed weather into "+filepath.Join(home, "plugins", "weather")) {
		t.Fatalf("install: %d %q %q", code, out, errOut)
	}
	if strings.Contains(out, "had the name before") {
		t.Fatalf("a fresh install warned about kept data: %q", out)
	}
	tools := func() (string, string) {
		out, errOut, code := hearth(t, env, "", "tools")
		if code != 0 {
			t.Fatalf("tools: %d %q", code, errOut)
		}
		return out, errOut
	}
	waitFor(t, "the plugin's tools in the daemon", func() bool {
		out, errOut := tools()
		if strings.Contains(errOut, "not listed") {
			t.Fatalf("tools ran alone: %q", errOut)
		}
		return strings.Contains(out, "weather__weather_query")
	})
	if out, _, _ := hearth(t, env, "", "plugin"); !strings.Contains(lineWith(out, "weather"), "running") {
		t.Fatalf("plugin list:\n%s", out)
	}

	if out, errOut, code := hearth(t, env, "", "policy", "set", "weather__weather_query", "ask"); code != 0 ||
		out != "weather__weather_query: ask\n" || errOut != "" {
		t.Fatalf("policy set: %d %q %q", code, out, errOut)
	}
	if out, _, _ := hearth(t, env, "", "policy"); !strings.Contains(lineWith(out, "weather__weather_query"), "ask (override)") {
		t.Fatalf("policy:\n%s", out)
	}

	if out, errOut, code := hearth(t, env, "", "plugin", "disable", "weather"); code != 0 || out != "weather: disabled\n" {
		t.Fatalf("disable: %d %q %q", code, out, errOut)
	}
	if out, _ := tools(); strings.Contains(out, "weather__weather_query") {
		t.Fatalf("the disabled plugin's tools are still offered:\n%s", out)
	}
	if out, _, _ := hearth(t, env, "", "plugin"); strings.Contains(lineWith(out, "weather"), "running") {
		t.Fatalf("plugin list after disable:\n%s", out)
	}

	const secret = "s3cret-value-0123456789"
	if out, errOut, code := hearth(t, env, secret+"\n", "settings", "set", "weather", "token"); code != 0 || out != "weather.token set\n" {
		t.Fatalf("settings set from stdin: %d %q %q", code, out, errOut)
	}
	if out, _, _ := hearth(t, env, "", "settings", "get", "weather", "token"); strings.Contains(out, secret) || !strings.Contains(out, "***") {
		t.Fatalf("settings get of a secret: %q", out)
	}
	if out, errOut, code := hearth(t, env, "早上好\n", "settings", "set", "weather", "greeting"); code != 0 || out != "weather.greeting set\n" {
		t.Fatalf("settings set from stdin: %d %q %q", code, out, errOut)
	}
	if out, _, _ := hearth(t, env, "", "settings", "get", "weather", "greeting"); out != `"早上好"`+"\n" {
		t.Fatalf("settings get: %q", out)
	}
	if out, errOut, code := hearth(t, env, "", "plugin", "forget", "weather"); code == 0 || !strings.Contains(errOut, "stop hearth serve") {
		t.Fatalf("forget while serving: %d %q %q", code, out, errOut)
	}
	if b, _ := os.ReadFile(filepath.Join(home, "hearth.log")); bytes.Contains(b, []byte(secret)) {
		t.Fatal("the value read from stdin is in hearth.log")
	}
	if strings.Contains(s.stderr.String(), secret) {
		t.Fatal("the value read from stdin is in the daemon's stderr")
	}
}
