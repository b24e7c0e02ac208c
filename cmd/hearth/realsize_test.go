package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/llmtest"
	"github.com/hearth-agent/hearth/sdk/pluginrpc"
)

func init() {
	if n, err := strconv.Atoi(os.Getenv("HEARTH_TEST_SERVE_TOOLS")); err == nil {
		pluginrpc.Serve(func(name string, _ map[string]any) (sdk.Plugin, error) { return &manyTools{name: name, n: n}, nil })
	}
}

// manyTools is a plugin of n tools described as fully as real service
// plugins (a blog, a task list) describe theirs.
type manyTools struct {
	name string
	n    int
}

func (p *manyTools) Name() string { return p.name }
func (p *manyTools) Stop() error  { return nil }

func (p *manyTools) Start(s *sdk.PluginSDK) error {
	for i := range p.n {
		def := sdk.ToolDef{
			Description: fmt.Sprintf("Tool %d: lists, creates or updates the items of the service this plugin manages, "+
				"filtered by project, label, date and owner; returns a JSON list with ids, titles and states.", i),
			Parameters: map[string]any{"type": "object", "properties": map[string]any{
				"project": map[string]any{"type": "string", "description": "the project's id or name"},
				"label":   map[string]any{"type": "string", "description": "a label to filter by"},
				"limit":   map[string]any{"type": "integer", "description": "how many items at most"},
			}},
			Effect: sdk.EffectRead,
		}
		id := i
		if err := s.RegisterTool(fmt.Sprintf("tool%d", i), def, func(map[string]any) (any, error) { return fmt.Sprintf("tool %d ran", id), nil }); err != nil {
			return err
		}
	}
	return nil
}

// Four installed plugins of 5, 5, 26 and 27 tools and a model Hearth
// does not know (an 8192-token window assumed): `hearth ask` answers, the
// two largest plugins' tools are offered on demand and load with
// plugins__use, and the log says so.
func TestAskWithMoreToolsThanTheWindowTakes(t *testing.T) {
	home := t.TempDir()
	base := []string{"HEARTH_HOME=" + home}
	for name, n := range map[string]int{"recoverydiag": 5, "deepsearch": 5, "vikunja": 26, "vanblog": 27} {
		src := filepath.Join(t.TempDir(), name)
		if err := os.MkdirAll(src, 0o755); err != nil {
			t.Fatal(err)
		}
		manifest := fmt.Sprintf(`{"id": %q, "command": [%q], "env": {"HEARTH_TEST_SERVE_TOOLS": "%d"}}`, name, os.Args[0], n)
		if err := os.WriteFile(filepath.Join(src, "plugin.json"), []byte(manifest), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, errOut, code := hearth(t, base, "", "plugin", "install", src); code != 0 {
			t.Fatalf("install %s: %q", name, errOut)
		}
	}
	srv := llmtest.NewServer(t,
		llmtest.Reply{ToolCalls: []llmtest.Call{{ID: "u", Name: "plugins__use", Arguments: `{"plugin":"vikunja"}`}}},
		llmtest.Reply{ToolCalls: []llmtest.Call{{ID: "v", Name: "vikunja__tool7", Arguments: `{}`}}},
		llmtest.Reply{Text: "three tasks are open"},
	)
	env := append([]string{"OPENAI_BASE_URL=" + srv.URL, "HEARTH_MODEL=test-model"}, base...)
	if out, errOut, code := hearth(t, env, "", "ask", "what is open in my task list?"); code != 0 || out != "three tasks are open\n" {
		t.Fatalf("ask: %d %q %q", code, out, errOut)
	}
	reqs := srv.Requests()
	first := strings.Join(reqs[0].ToolNames(), ",")
	if !strings.Contains(first, "recoverydiag__tool4") || !strings.Contains(first, "plugins__use") ||
		strings.Contains(first, "vikunja__") || strings.Contains(first, "vanblog__") {
		t.Fatalf("first request's tools: %s", first)
	}
	if second := strings.Join(reqs[1].ToolNames(), ","); !strings.Contains(second, "vikunja__tool25") {
		t.Fatalf("after plugins__use: %s", second)
	}
	if r := toolResult(srv, 2, "v"); r != "tool 7 ran" {
		t.Fatalf("vikunja__tool7: %q", r)
	}
	out, _, _ := hearth(t, env, "", "tools")
	if line := lineWith(out, "vanblog:"); !strings.Contains(line, "offered on demand") || !strings.Contains(line, "context window") {
		t.Fatalf("hearth tools does not say why vanblog's tools are missing:\n%s", out)
	}
	if log := readLogs(t, home); !strings.Contains(log, "offered on demand") || !strings.Contains(log, "vanblog") {
		t.Fatalf("no log of the plugins offered on demand:\n%s", log[max(0, len(log)-3000):])
	}
}
