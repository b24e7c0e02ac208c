package compat

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hearth-agent/hearth/internal/app"
	"github.com/hearth-agent/hearth/internal/compat/testdata/ha-compat/hamemo"
	"github.com/hearth-agent/hearth/internal/kernel"
	"github.com/hearth-agent/hearth/internal/store"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/llmtest"
	"github.com/hearth-agent/hearth/sdk/sdktest"
)

// HomeAgent items 2, 4, 5 and 6 of issue 12: ToolDef.NoMemory and
// Cleaner, the tool names a plugin itself uses, settings of HomeAgent's
// types, and sdktest answering as the host does. One test plugin,
// testdata/ha-compat/hamemo, runs compiled in (as "hamemo") and as a Go
// child process (as "hamemoc") in one real Hearth with a scripted model;
// each row checks one symbol or pattern in what the model and the plugin
// saw.

// haRow is one row of the table.
type haRow struct {
	symbol, plugin, what string
	check                func(t *testing.T, r *haRun)
}

// haRun is what one turn through both copies of hamemo left behind.
type haRun struct {
	offered []string                  // the tool names of the first request
	results map[string]string         // every tool result the model read, by call id
	seen    map[string]haSeen         // each copy's report of its stage handlers, by plugin
	config  map[string]map[string]any // each copy's settings probe, by plugin
	sdktest map[string]any            // the settings probe under sdktest
	audit   []string                  // the audit log's tool names
}

// haSeen is the seen tool's report.
type haSeen struct {
	Before []string                  `json:"before"`
	After  map[string]haMemoryResult `json:"after"`
}

type haMemoryResult struct {
	NoMemory   bool   `json:"noMemory"`
	MemoryText string `json:"memoryText"`
}

var haFactory sync.Once

func TestHomeAgentCompat(t *testing.T) {
	r := haRunAll(t)
	rows := []haRow{
		// Item 4: the names the plugin uses.
		{"tool named <plugin>_<tool>", "hamemo, hamemoc", "offered to the model under the plugin's own name, compiled in and as a child",
			func(t *testing.T, r *haRun) {
				for _, n := range []string{"hamemo_create", "hamemo_list", "hamemoc_create", "hamemoc_config"} {
					if !slices.Contains(r.offered, n) {
						t.Errorf("%s not offered: %q", n, r.offered)
					}
				}
				if slices.Contains(r.offered, "hamemo__hamemo_create") {
					t.Errorf("the qualified name is offered too: %q", r.offered)
				}
			}},
		{"call by the name in the plugin's text", "hamemo", "hamemo_create runs; its description names hamemo_list",
			func(t *testing.T, r *haRun) { haHas(t, r.results["c1"], `"text":"a"`) }},
		{"call by the qualified name", "hamemo", "hamemo__hamemo_list still resolves and runs",
			func(t *testing.T, r *haRun) { haHas(t, r.results["l1"], `"memos":["a"]`) }},
		{"StageContext.ToolCalls[].Name", "hamemo, hamemoc", "before_toolcall sees the plugin's own name, even for a call by the qualified name",
			func(t *testing.T, r *haRun) {
				for plugin, s := range r.seen {
					for _, n := range []string{plugin + "_create", plugin + "_list"} {
						if !slices.Contains(s.Before, n) {
							t.Errorf("%s: before_toolcall saw %q, want %s", plugin, s.Before, n)
						}
					}
				}
			}},
		{"StageContext.ToolResults[].Name", "hamemo, hamemoc", "after_toolcall sees the plugin's own name",
			func(t *testing.T, r *haRun) {
				for plugin, s := range r.seen {
					if _, ok := s.After[plugin+"_create"]; !ok {
						t.Errorf("%s: after_toolcall saw %v", plugin, s.After)
					}
				}
			}},
		{"audit log key", "hamemo", "the audit log keeps the qualified name",
			func(t *testing.T, r *haRun) {
				if !slices.Contains(r.audit, "hamemo__hamemo_create") || slices.Contains(r.audit, "hamemo_create") {
					t.Errorf("audit tools %q", r.audit)
				}
			}},
		// Item 2: NoMemory and Cleaner.
		{"ToolDef.NoMemory", "hamemo, hamemoc", "the model reads the result; after_toolcall sees NoMemory and no memory text",
			func(t *testing.T, r *haRun) {
				haHas(t, r.results["s1"], "the secret note")
				haHas(t, r.results["s2"], "the secret note")
				for plugin, s := range r.seen {
					if m := s.After[plugin+"_secret"]; !m.NoMemory || m.MemoryText != "" {
						t.Errorf("%s: secret seen as %+v", plugin, m)
					}
				}
			}},
		{"ToolDef.Cleaner", "hamemo, hamemoc", "the model reads the raw result; memory gets the cleaned text (a child runs its Cleaner itself)",
			func(t *testing.T, r *haRun) {
				haHas(t, r.results["f1"], `"noise":`)
				haHas(t, r.results["f2"], `"noise":`)
				for plugin, s := range r.seen {
					if m := s.After[plugin+"_fetch"]; m.NoMemory || m.MemoryText != "the clean part" {
						t.Errorf("%s: fetch seen as %+v", plugin, m)
					}
				}
			}},
		{"ToolResult.MemoryText without Cleaner", "hamemo, hamemoc", "the result text itself",
			func(t *testing.T, r *haRun) {
				for plugin, s := range r.seen {
					if m := s.After[plugin+"_create"]; !strings.Contains(m.MemoryText, `"id":1,"text":`) {
						t.Errorf("%s: create seen as %+v", plugin, m)
					}
				}
			}},
		// Item 5: settings.
		{"ConfigDef int Max", "hamemo, hamemoc", "50 taken, 51, \"abc\" and 2.5 refused",
			func(t *testing.T, r *haRun) {
				haSet(t, r, map[string]string{"limit=50": "ok", "limit=51": "refused", "limit=abc": "refused", "limit=2.5": "refused"})
			}},
		{"ConfigDef bool", "hamemo, hamemoc", "true taken, \"yes\" refused",
			func(t *testing.T, r *haRun) {
				haSet(t, r, map[string]string{"verbose=true": "ok", "verbose=yes": "refused"})
			}},
		{"ConfigDef select", "hamemo, hamemoc", "only its options",
			func(t *testing.T, r *haRun) {
				haSet(t, r, map[string]string{"style=vivid": "ok", "style=loud": "refused"})
			}},
		{"ConfigDef password", "hamemo, hamemoc", "a string taken; a refusal never quotes the value",
			func(t *testing.T, r *haRun) {
				haSet(t, r, map[string]string{"pass=hunter2": "ok", "pass=12": "refused"})
			}},
		{"ConfigDef Default", "hamemo, hamemoc", "an unset declared key reads as its default",
			func(t *testing.T, r *haRun) {
				for plugin, c := range r.config {
					if c["default"] != "10 <nil>" || c["after"] != "50 <nil>" {
						t.Errorf("%s: default %v, after %v", plugin, c["default"], c["after"])
					}
				}
			}},
		// Item 6: sdktest and GetCore.
		{"SettingsAPI.Get (unset)", "hamemo, hamemoc", "nil and sdk.ErrNotFound",
			func(t *testing.T, r *haRun) {
				for plugin, c := range r.config {
					if c["unset"] != "<nil> notFound=true" {
						t.Errorf("%s: unset %v", plugin, c["unset"])
					}
				}
			}},
		{"GetCore(\"core.daemon.data_dir\")", "hamemo, hamemoc", "a directory holding DataDir (daemon.data_dir too)",
			func(t *testing.T, r *haRun) {
				for plugin, c := range r.config {
					for _, k := range []string{"core.daemon.data_dir", "daemon.data_dir"} {
						if c[k] != "dir=true err=<nil> ownInside=true" {
							t.Errorf("%s: %s %v", plugin, k, c[k])
						}
					}
				}
			}},
		{"sdk/sdktest", "hamemo", "the settings probe answers the same under sdktest as in Hearth",
			func(t *testing.T, r *haRun) {
				host, _ := json.Marshal(r.config["hamemo"])
				test, _ := json.Marshal(r.sdktest)
				if string(host) != string(test) {
					t.Errorf("Hearth %s\nsdktest %s", host, test)
				}
			}},
	}
	for _, row := range rows {
		t.Run(row.symbol, func(t *testing.T) {
			t.Logf("%s: %s", row.plugin, row.what)
			row.check(t, r)
		})
	}
}

// haRunAll opens Hearth with hamemo compiled in and hamemoc built as a
// child, runs one scripted turn calling both, and collects the results.
func haRunAll(t *testing.T) *haRun {
	t.Helper()
	haFactory.Do(func() { sdk.RegisterFactory("hamemo", hamemo.New) })
	dir := t.TempDir()
	plugin := filepath.Join(dir, "plugins", "hamemoc")
	if err := os.MkdirAll(plugin, 0o755); err != nil {
		t.Fatal(err)
	}
	build := exec.Command("go", "build", "-o", filepath.Join(plugin, "hamemoc"), "./testdata/ha-compat/hamemo/child")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the child: %v\n%s", err, out)
	}
	manifest := `{"id": "hamemoc", "name": "hamemoc", "version": "0.1.0", "command": ["./hamemoc"], "capabilities": ["settings"]}`
	if err := os.WriteFile(filepath.Join(plugin, "plugin.json"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	call := func(id, name string) llmtest.Call { return llmtest.Call{ID: id, Name: name, Arguments: `{}`} }
	srv := llmtest.NewServer(t,
		llmtest.Reply{ToolCalls: []llmtest.Call{
			{ID: "c1", Name: "hamemo_create", Arguments: `{"text":"a"}`},
			{ID: "c2", Name: "hamemoc_create", Arguments: `{"text":"b"}`},
			call("s1", "hamemo_secret"), call("s2", "hamemoc_secret"),
			call("f1", "hamemo_fetch"), call("f2", "hamemoc_fetch"),
			call("g1", "hamemo_config"), call("g2", "hamemoc_config"),
		}},
		llmtest.Reply{ToolCalls: []llmtest.Call{
			call("l1", "hamemo__hamemo_list"), call("l2", "hamemoc__hamemoc_list"),
		}},
		llmtest.Reply{ToolCalls: []llmtest.Call{call("v1", "hamemo_seen"), call("v2", "hamemoc_seen")}},
		llmtest.Reply{Text: "done"},
	)
	env := map[string]string{"OPENAI_BASE_URL": srv.URL, "HEARTH_MODEL": "test-model", "OPENAI_API_KEY": "test-key"}
	a, err := app.Open(context.Background(), &app.Options{DataDir: dir, Plugins: app.PluginsWait,
		WatchInterval: time.Hour, Getenv: func(k string) string { return env[k] }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	out := a.Kernel.Ask(context.Background(), kernel.Input{Injection: sdk.Injection{Channel: "terminal", Text: "memo"}})
	if out.Err != nil || out.Text != "done" {
		t.Fatalf("turn: %+v", out)
	}
	reqs := srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests", len(reqs))
	}
	r := &haRun{offered: reqs[0].ToolNames(), results: map[string]string{}, seen: map[string]haSeen{},
		config: map[string]map[string]any{}}
	for _, m := range reqs[3].Messages {
		if id, ok := m["tool_call_id"].(string); ok {
			r.results[id], _ = m["content"].(string)
		}
	}
	for id, plugin := range map[string]string{"1": "hamemo", "2": "hamemoc"} {
		var s haSeen
		if err := json.Unmarshal([]byte(r.results["v"+id]), &s); err != nil {
			t.Fatalf("%s seen: %v: %s", plugin, err, r.results["v"+id])
		}
		r.seen[plugin] = s
		var c map[string]any
		if err := json.Unmarshal([]byte(r.results["g"+id]), &c); err != nil {
			t.Fatalf("%s config: %v: %s", plugin, err, r.results["g"+id])
		}
		r.config[plugin] = c
	}
	entries, err := a.Store.Audit(context.Background(), store.AuditQuery{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		r.audit = append(r.audit, e.Tool)
	}
	h := sdktest.Start(t, "hamemo", hamemo.New, nil)
	res := h.CallTool("hamemo_config", map[string]any{})
	if res.IsError {
		t.Fatalf("sdktest: %s", res.Content)
	}
	if err := json.Unmarshal([]byte(res.Content), &r.sdktest); err != nil {
		t.Fatal(err)
	}
	return r
}

// haSet checks the settings probe's writes in both copies.
func haSet(t *testing.T, r *haRun, want map[string]string) {
	t.Helper()
	for plugin, c := range r.config {
		set, _ := c["set"].(map[string]any)
		for k, w := range want {
			if set[k] != w {
				t.Errorf("%s: %s %v, want %s", plugin, k, set[k], w)
			}
		}
	}
}

// haHas fails unless got contains want.
func haHas(t *testing.T, got, want string) {
	t.Helper()
	if !strings.Contains(got, want) {
		t.Errorf("%q does not contain %q", got, want)
	}
}
