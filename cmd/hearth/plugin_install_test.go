package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// goEnv is the toolchain's caches as this test sees them, for a hearth
// run under a fresh HOME (the user's Hearth sees the user's).
func goEnv(t *testing.T) []string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return []string{"GOCACHE=" + lines[0], "GOMODCACHE=" + lines[1]}
}

// askTool has the scripted model call tool with args and returns what
// the tool answered.
func askTool(t *testing.T, env []string, tool, args string) string {
	t.Helper()
	srv := llmtest.NewServer(t,
		llmtest.Reply{ToolCalls: []llmtest.Call{{ID: "c1", Name: tool, Arguments: args}}},
		llmtest.Reply{Text: "done"},
	)
	if out, errOut, code := hearth(t, append([]string{"OPENAI_BASE_URL=" + srv.URL, "HEARTH_MODEL=test-model"}, env...), "", "ask", "go"); code != 0 || out != "done\n" {
		t.Fatalf("ask: %d %q %q", code, out, errOut)
	}
	for _, m := range srv.Requests()[1].Messages {
		if m["tool_call_id"] == "c1" {
			s, _ := m["content"].(string)
			return s
		}
	}
	t.Fatalf("no tool result in %+v", srv.Requests()[1].Messages)
	return ""
}

// A HomeAgent source folder (package main without main, go.mod requiring
// HomeAgent's SDK module with a replace to a path that does not exist
// here, plg.json, an id with '_') installs unchanged: Hearth builds it
// offline, and the model calls its tool. Installing it again does nothing
// until the source changes, then rebuilds it.
func TestPluginInstallHomeAgentSource(t *testing.T) {
	home := t.TempDir()
	env := append([]string{"HEARTH_HOME=" + home}, goEnv(t)...)
	src := filepath.Join(t.TempDir(), "notes")
	if err := os.CopyFS(src, os.DirFS("../../internal/hagosrc/testdata/ha_notes")); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := hearth(t, env, "", "plugin", "install", src)
	if code != 0 || !strings.Contains(out, "built HomeAgent plugin ha_notes") || !strings.Contains(out, "installed ha_notes") {
		t.Fatalf("install: %d %q %q", code, out, errOut)
	}
	if !strings.Contains(errOut, "building ha_notes with Go (the first build takes a minute)...\n") {
		t.Fatalf("install: no word before the build: %q", errOut)
	}
	if entries, _ := os.ReadDir(src); len(entries) != 3 {
		t.Fatalf("the build wrote into the source folder: %v", entries)
	}
	if got := askTool(t, env, "ha_notes__ha_notes_add", `{"text":"milk"}`); !strings.Contains(got, "noted: MILK") {
		t.Fatalf("tool result %q", got)
	}
	// GetCore("core.daemon.data_dir") gave the plugin its data folder.
	if found, _ := filepath.Glob(filepath.Join(home, "*", "ha_notes", "notes.txt")); len(found) != 1 {
		found, _ = filepath.Glob(filepath.Join(home, "*", "*", "ha_notes", "notes.txt"))
		if len(found) != 1 {
			t.Fatalf("notes.txt not in the plugin's data folder under %s", home)
		}
	}
	out, _, code = hearth(t, env, "", "plugin")
	if code != 0 || !strings.Contains(out, "ha_notes") || !strings.Contains(out, "core,settings") {
		t.Fatalf("plugin list: %q", out)
	}

	out, errOut, code = hearth(t, env, "", "plugin", "install", src)
	if code != 0 || !strings.Contains(out, "up to date") {
		t.Fatalf("install again: %d %q %q", code, out, errOut)
	}
	code2, _ := os.ReadFile(filepath.Join(src, "plugin.go"))
	os.WriteFile(filepath.Join(src, "plugin.go"), []byte(strings.Replace(string(code2), `"noted: "`, `"kept: "`, 1)), 0o644)
	out, errOut, code = hearth(t, env, "", "plugin", "install", src)
	if code != 0 || !strings.Contains(out, "reinstalled ha_notes") {
		t.Fatalf("install changed: %d %q %q", code, out, errOut)
	}
	if got := askTool(t, env, "ha_notes__ha_notes_add", `{"text":"tea"}`); !strings.Contains(got, "kept: TEA") {
		t.Fatalf("tool result after the rebuild %q", got)
	}
}

// A source folder that does not compile shows the compiler's error, and
// nothing is installed.
func TestPluginInstallHomeAgentSourceBroken(t *testing.T) {
	home := t.TempDir()
	env := append([]string{"HEARTH_HOME=" + home}, goEnv(t)...)
	out, errOut, code := hearth(t, env, "", "plugin", "install", "../../internal/hagosrc/testdata/broken")
	if code != 1 || !strings.Contains(errOut, "does not compile") || !strings.Contains(errOut, "undefined: undefinedThing") {
		t.Fatalf("install: %d %q %q", code, out, errOut)
	}
	if entries, _ := os.ReadDir(filepath.Join(home, "plugins")); len(entries) != 0 {
		t.Fatalf("installed %v", entries)
	}
}
