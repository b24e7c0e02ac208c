package compat

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/hearth-agent/hearth/internal/pluginhost"
	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// haPkgRow is one row of the HomeAgent packaging table: a symbol or
// pattern, the test plugin (under testdata/ha_packaging) that uses it,
// and what the row checks through the real hearth binary.
type haPkgRow struct {
	symbol, plugin, checks string
	run                    func(t *testing.T, h *haHearth)
}

var haPkgRows = []haPkgRow{
	{"import gitcode.com/JianFeeeee/homeagent-sdk/sdk; go.mod replace to a path missing here", "ha_memo",
		"hearth plugin install builds it offline without writing into its folder",
		func(t *testing.T, h *haHearth) {
			src := h.copy(t, "ha_memo")
			out := h.ok(t, "plugin", "install", src)
			if !strings.Contains(out, "built HomeAgent plugin ha_memo") || !strings.Contains(out, "may use core,settings") {
				t.Fatalf("install: %q", out)
			}
			if entries, _ := os.ReadDir(src); len(entries) != 3 {
				t.Fatalf("the build wrote into the source folder: %v", entries)
			}
		}},
	{"package main without func main; func NewPlugin", "ha_memo",
		"the generated wrapper serves the plugin: the model calls its tool",
		func(t *testing.T, h *haHearth) {
			h.ok(t, "plugin", "install", h.copy(t, "ha_memo"))
			if got := h.tool(t, "ha_memo__ha_memo_save", `{"text":"milk"}`); !strings.Contains(got, "saved memo 1: milk") {
				t.Fatalf("tool result %q", got)
			}
		}},
	{"func NewPluginFactory only (source folder)", "ha_factory_src",
		"the wrapper calls NewPluginFactory",
		func(t *testing.T, h *haHearth) {
			if out := h.ok(t, "plugin", "install", h.copy(t, "ha_factory_src")); !strings.Contains(out, "calls NewPluginFactory") {
				t.Fatalf("install: %q", out)
			}
			if got := h.tool(t, "ha_factory_src__shout", `{"text":"hi"}`); got != "HI!" {
				t.Fatalf("tool result %q", got)
			}
		}},
	{"plugin id with '_' (ai_image)", "ha_memo",
		"ha_memo is accepted as id, plugin name and tool prefix (ha_memo__ha_memo_count)",
		func(t *testing.T, h *haHearth) {
			h.ok(t, "plugin", "install", h.copy(t, "ha_memo"))
			if out := h.ok(t, "plugin"); !strings.Contains(out, "ha_memo") || strings.Contains(out, "error") {
				t.Fatalf("plugin list: %q", out)
			}
			if got := h.tool(t, "ha_memo__ha_memo_count", `{}`); !strings.Contains(got, "0 memos") {
				t.Fatalf("tool result %q", got)
			}
		}},
	{`Settings().GetCore("core.daemon.data_dir")`, "ha_memo",
		"answers the plugin's own data folder, where its file persists across runs",
		func(t *testing.T, h *haHearth) {
			h.ok(t, "plugin", "install", h.copy(t, "ha_memo"))
			h.tool(t, "ha_memo__ha_memo_save", `{"text":"tea"}`)
			if got := h.tool(t, "ha_memo__ha_memo_count", `{}`); !strings.Contains(got, "1 memos") {
				t.Fatalf("tool result %q", got)
			}
			if found, _ := filepath.Glob(filepath.Join(h.home, "*", "ha_memo", "memos.json")); len(found) != 1 {
				t.Fatalf("memos.json is not in the plugin's data folder under %s", h.home)
			}
		}},
	{"hearth plugin install twice", "ha_memo",
		"idempotent: up to date until the source changes, then rebuilt and reinstalled",
		func(t *testing.T, h *haHearth) {
			src := h.copy(t, "ha_memo")
			h.ok(t, "plugin", "install", src)
			if out := h.ok(t, "plugin", "install", src); !strings.Contains(out, "up to date") {
				t.Fatalf("second install: %q", out)
			}
			code, _ := os.ReadFile(filepath.Join(src, "memo.go"))
			os.WriteFile(filepath.Join(src, "memo.go"), bytes.Replace(code, []byte(`"saved memo %d`), []byte(`"kept memo %d`), 1), 0o644)
			if out := h.ok(t, "plugin", "install", src); !strings.Contains(out, "reinstalled ha_memo") {
				t.Fatalf("install after a change: %q", out)
			}
			if got := h.tool(t, "ha_memo__ha_memo_save", `{"text":"x"}`); !strings.Contains(got, "kept memo") {
				t.Fatalf("tool result %q", got)
			}
		}},
	{"a source folder that does not compile", "ha_broken",
		"install fails with the compiler's error; nothing is installed",
		func(t *testing.T, h *haHearth) {
			out, errOut, code := h.run(t, "", "plugin", "install", h.copy(t, "ha_broken"))
			if code != 1 || !strings.Contains(errOut, "does not compile") || !strings.Contains(errOut, "plugin.go:6") {
				t.Fatalf("install: %d %q %q", code, out, errOut)
			}
			if entries, _ := os.ReadDir(filepath.Join(h.home, "plugins")); len(entries) != 0 {
				t.Fatalf("installed %v", entries)
			}
		}},
	{"plg.json + plugin.so; func NewPluginFactory only", "ha_so_factory",
		"run by the .so loader child from HomeAgent's folder layout; the model calls its tool",
		func(t *testing.T, h *haHearth) {
			if !pluginhost.SOSupported || os.Getenv("CGO_ENABLED") == "0" {
				t.Skip(".so plugins need Linux or macOS, and cgo to build")
			}
			dir := filepath.Join(h.home, "plugins", "ha_so_factory")
			os.MkdirAll(dir, 0o755)
			os.CopyFS(dir, os.DirFS("testdata/ha_packaging/ha_so_factory"))
			build := exec.Command("go", "build", "-buildmode=plugin", "-o", filepath.Join(dir, "plugin.so"), "./testdata/ha_packaging/ha_so_factory")
			if out, err := build.CombinedOutput(); err != nil {
				t.Fatalf("building the .so: %v\n%s", err, out)
			}
			if got := h.tool(t, "ha_so_factory__reverse", `{"text":"abc"}`); got != "cba" {
				t.Fatalf("tool result %q", got)
			}
		}},
	{"plg.json + plugin.bin (HomeAgent 1.x)", "(written by the row)",
		"hearth plugin lists the folder with why it is not loaded",
		func(t *testing.T, h *haHearth) {
			dir := filepath.Join(h.home, "plugins", "ha_bin")
			os.MkdirAll(dir, 0o755)
			os.WriteFile(filepath.Join(dir, "plg.json"), []byte(`{"name":"ha_bin","entry":"plugin.so"}`), 0o644)
			os.WriteFile(filepath.Join(dir, "plugin.bin"), []byte("\x7fELF"), 0o755)
			if out := h.ok(t, "plugin"); !strings.Contains(out, "ha_bin") || !strings.Contains(out, "plugin.bin is a HomeAgent 1.x build") {
				t.Fatalf("plugin list: %q", out)
			}
		}},
}

// TestHomeAgentPackaging is the HomeAgent packaging table.
func TestHomeAgentPackaging(t *testing.T) {
	bin := haHearthBinary(t)
	for _, row := range haPkgRows {
		t.Run(row.symbol, func(t *testing.T) {
			t.Logf("plugin %s: %s", row.plugin, row.checks)
			row.run(t, newHAHearth(t, bin))
		})
	}
}

var (
	haBinOnce sync.Once
	haBin     string
	haBinErr  error
)

// haHearthBinary builds the real hearth binary once per test process.
func haHearthBinary(t *testing.T) string {
	haBinOnce.Do(func() {
		dir, err := os.MkdirTemp("", "hearth-compat-")
		if err != nil {
			haBinErr = err
			return
		}
		haBin = filepath.Join(dir, "hearth")
		if out, err := exec.Command("go", "build", "-o", haBin, "github.com/hearth-agent/hearth/cmd/hearth").CombinedOutput(); err != nil {
			haBinErr = err
			t.Logf("%s", out)
		}
	})
	if haBinErr != nil {
		t.Fatalf("building hearth: %v", haBinErr)
	}
	return haBin
}

// haHearth is one Hearth data folder and the binary that runs on it.
type haHearth struct {
	bin, home string
	env       []string
}

func newHAHearth(t *testing.T, bin string) *haHearth {
	t.Helper()
	out, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	caches := strings.Split(strings.TrimSpace(string(out)), "\n")
	home := t.TempDir()
	return &haHearth{bin: bin, home: home, env: []string{"HEARTH_HOME=" + home, "HEARTH_MODEL=test-model", "HOME=" + t.TempDir(),
		"PATH=" + os.Getenv("PATH"), "GOCACHE=" + caches[0], "GOMODCACHE=" + caches[1]}}
}

// copy copies a test plugin to a folder of the test's.
func (h *haHearth) copy(t *testing.T, plugin string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), plugin)
	if err := os.CopyFS(dst, os.DirFS(filepath.Join("testdata", "ha_packaging", plugin))); err != nil {
		t.Fatal(err)
	}
	return dst
}

// run runs hearth with args; extra adds to its environment.
func (h *haHearth) run(t *testing.T, extra string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(h.bin, args...)
	cmd.Env = h.env
	if extra != "" {
		cmd.Env = append(cmd.Env, extra)
	}
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

// ok runs hearth and fails the test unless it succeeds.
func (h *haHearth) ok(t *testing.T, args ...string) string {
	t.Helper()
	out, errOut, code := h.run(t, "", args...)
	if code != 0 {
		t.Fatalf("hearth %v: %d %q %q", args, code, out, errOut)
	}
	return out
}

// tool has the scripted model call tool with args in `hearth ask`, and
// returns the tool's result as the model got it.
func (h *haHearth) tool(t *testing.T, tool, args string) string {
	t.Helper()
	srv := llmtest.NewServer(t,
		llmtest.Reply{ToolCalls: []llmtest.Call{{ID: "c1", Name: tool, Arguments: args}}},
		llmtest.Reply{Text: "done"},
	)
	if out, errOut, code := h.run(t, "OPENAI_BASE_URL="+srv.URL, "ask", "go"); code != 0 || out != "done\n" {
		t.Fatalf("ask: %d %q %q", code, out, errOut)
	}
	reqs := srv.Requests()
	for _, m := range reqs[len(reqs)-1].Messages {
		if m["tool_call_id"] == "c1" {
			s, _ := m["content"].(string)
			return s
		}
	}
	t.Fatalf("no tool result sent to the model")
	return ""
}
