package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// On a clean HEARTH_HOME and HOME, `hearth plugin new` writes a plugin in
// each language whose own test passes, which installs, and whose tool the
// model calls through the real binary. The TypeScript and Python plugins
// import their SDK by name; Hearth provides it.
func TestPluginNewEachLanguage(t *testing.T) {
	for _, lang := range []string{"ts", "python", "go"} {
		t.Run(lang, func(t *testing.T) {
			id := "hi-" + lang
			home := t.TempDir()
			base := []string{"HEARTH_HOME=" + home}
			dir := filepath.Join(t.TempDir(), id)
			out, errOut, code := hearth(t, base, "", "plugin", "new", id, "--lang", lang, "--dir", dir)
			if code != 0 || !strings.Contains(out, "wrote plugin "+id) {
				t.Fatalf("new: %d %q %q", code, out, errOut)
			}
			// The scaffold's own instructions: its test, and for Go a build.
			switch lang {
			case "ts":
				runIn(t, dir, "node", "--test")
			case "python":
				runIn(t, dir, "python3", "-m", "unittest")
			case "go":
				runIn(t, dir, "go", "test", "./...")
				runIn(t, dir, "go", "build")
			}
			if out, errOut, code := hearth(t, base, "", "plugin", "install", dir); code != 0 || !strings.Contains(out, "installed "+id) {
				t.Fatalf("install: %d %q %q", code, out, errOut)
			}
			tool := id + "__hello"
			srv := llmtest.NewServer(t,
				llmtest.Reply{ToolCalls: []llmtest.Call{{ID: "h", Name: tool, Arguments: `{"name":"Ada"}`}}},
				llmtest.Reply{Text: "done"},
			)
			env := append([]string{"OPENAI_BASE_URL=" + srv.URL, "HEARTH_MODEL=test-model"}, base...)
			if out, errOut, code := hearth(t, env, "", "ask", "greet Ada"); code != 0 || out != "done\n" {
				t.Fatalf("ask: %d %q %q", code, out, errOut)
			}
			var result string
			for _, m := range srv.Requests()[1].Messages {
				if m["tool_call_id"] == "h" {
					result, _ = m["content"].(string)
				}
			}
			if !strings.Contains(result, "Hello, Ada!") {
				t.Fatalf("tool result %q", result)
			}
		})
	}
}

func TestPluginNewRefuses(t *testing.T) {
	base := []string{"HEARTH_HOME=" + t.TempDir()}
	if out, _, code := hearth(t, base, "", "plugin", "new", "--help"); code != 0 || !strings.Contains(out, "hearth plugin new greeter --lang python") {
		t.Fatalf("help: %d %q", code, out)
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "keep"), nil, 0o644)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"Bad_Name"}, 2, "must be"},
		{[]string{"ok-name", "--lang", "cobol"}, 2, "unknown language"},
		{[]string{"memory"}, 2, "reserved for Hearth itself"},
		{[]string{"hearth"}, 2, "reserved for Hearth itself"},
		{[]string{"time"}, 2, "built-in plugin time"},
		{[]string{"ok-name", "--dir", dir}, 1, "not empty"},
		{[]string{"ok-name", "--lang", "go", "--hearth-src", t.TempDir()}, 1, "not a Hearth checkout"},
		{[]string{}, 2, "name one plugin"},
	} {
		args := append([]string{"plugin", "new"}, c.args...)
		if _, errOut, code := hearth(t, base, "", args...); code != c.code || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: %d %q", c.args, code, errOut)
		}
	}
}

// runIn runs a program in dir with this process's environment (its Go
// caches), offline.
func runIn(t *testing.T, dir string, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOPROXY=off", "GOFLAGS=-mod=readonly")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
}

// The shipped TypeScript and Python examples import the SDK by name, so
// installing them from the repository works: Hearth provides the SDK.
func TestInstallSDKExamples(t *testing.T) {
	for _, c := range []struct{ dir, tool, city string }{
		{"../../examples/typescript/weather", "tsweather__query", "上海"},
		{"../../examples/python/weather", "pyweather__query", "北京"},
	} {
		t.Run(c.tool, func(t *testing.T) {
			base := []string{"HEARTH_HOME=" + t.TempDir()}
			if out, errOut, code := hearth(t, base, "", "plugin", "install", c.dir); code != 0 || !strings.Contains(out, "installed ") {
				t.Fatalf("install: %d %q %q", code, out, errOut)
			}
			srv := llmtest.NewServer(t,
				llmtest.Reply{ToolCalls: []llmtest.Call{{ID: "q", Name: c.tool, Arguments: `{"city":"` + c.city + `"}`}}},
				llmtest.Reply{Text: "ok"},
			)
			env := append([]string{"OPENAI_BASE_URL=" + srv.URL, "HEARTH_MODEL=test-model"}, base...)
			if out, errOut, code := hearth(t, env, "", "ask", "天气"); code != 0 || out != "ok\n" {
				t.Fatalf("ask: %d %q %q", code, out, errOut)
			}
			var result string
			for _, m := range srv.Requests()[1].Messages {
				if m["tool_call_id"] == "q" {
					result, _ = m["content"].(string)
				}
			}
			if !strings.Contains(result, `"city":"`+c.city+`"`) {
				t.Fatalf("tool result %q", result)
			}
		})
	}
}
