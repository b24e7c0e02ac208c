package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// In a child run as hearth with HEARTH_TEST_ECHO_CONFIG=1, the
// compiled-in plugin "echocfg" has a tool that answers the config map its
// factory got.
func init() {
	if os.Getenv("HEARTH_TEST_ECHO_CONFIG") != "1" {
		return
	}
	sdk.RegisterFactory("echocfg", func(name string, config map[string]any) (sdk.Plugin, error) {
		return &echoConfig{name: name, config: config}, nil
	})
}

type echoConfig struct {
	name   string
	config map[string]any
}

func (p *echoConfig) Name() string { return p.name }
func (p *echoConfig) Stop() error  { return nil }
func (p *echoConfig) Start(s *sdk.PluginSDK) error {
	return s.RegisterTool("config", sdk.ToolDef{Description: "the plugin's config"}, func(map[string]any) (any, error) {
		return p.config, nil
	})
}

// config.json's "plugins" gives a compiled-in plugin its config map and
// can turn one off; a name that is not compiled in is refused at start,
// naming those that are.
func TestBuiltinPluginConfig(t *testing.T) {
	home := t.TempDir()
	write := func(cfg string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(home, "config.json"), []byte(cfg), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(`{"plugins": {"echocfg": {"config": {"greeting": "你好", "n": 2}}, "time": {"enabled": false}}}`)
	srv := llmtest.NewServer(t,
		llmtest.Reply{ToolCalls: []llmtest.Call{{ID: "c1", Name: "echocfg__config", Arguments: `{}`}}},
		llmtest.Reply{Text: "done"},
	)
	env := []string{"HEARTH_HOME=" + home, "HEARTH_TEST_ECHO_CONFIG=1", "OPENAI_BASE_URL=" + srv.URL, "HEARTH_MODEL=test-model"}
	out, errOut, code := hearth(t, env, "", "tools")
	if code != 0 || !strings.Contains(out, "echocfg__config") || strings.Contains(out, "time__now\t") {
		t.Fatalf("tools: %d %q %q", code, out, errOut)
	}
	if out, errOut, code := hearth(t, env, "", "ask", "go"); code != 0 || out != "done\n" {
		t.Fatalf("ask: %d %q %q", code, out, errOut)
	}
	msgs := srv.Requests()[1].Messages
	if got, _ := msgs[len(msgs)-1]["content"].(string); !strings.Contains(got, `"greeting":"你好"`) || !strings.Contains(got, `"n":2`) {
		t.Fatalf("the tool answered %q", got)
	}

	write(`{"plugins": {"nope": {"config": {}}}}`)
	if _, errOut, code := hearth(t, env, "", "tools"); code != 1 || !strings.Contains(errOut, `plugins: "nope" is not compiled into this Hearth`) ||
		!strings.Contains(errOut, "echocfg") {
		t.Fatalf("unknown plugin: %d %q", code, errOut)
	}
	write(`{"plugins": {"time": {"enabled": true}}, "disabled_plugins": ["time"]}`)
	if _, errOut, code := hearth(t, env, "", "tools"); code != 1 || !strings.Contains(errOut, "keep one") {
		t.Fatalf("enabled and disabled: %d %q", code, errOut)
	}
}
