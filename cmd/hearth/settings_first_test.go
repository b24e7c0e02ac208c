package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/pluginrpc"
)

func init() {
	if os.Getenv("HEARTH_TEST_SERVE_SETUP") == "1" {
		pluginrpc.Serve(func(name string, _ map[string]any) (sdk.Plugin, error) { return &setupPlugin{name: name}, nil })
	}
}

// setupPlugin declares the settings a real plugin needs before it can
// work: a required secret token and an optional address with a default.
type setupPlugin struct{ name string }

func (p *setupPlugin) Name() string { return p.name }
func (p *setupPlugin) Stop() error  { return nil }

func (p *setupPlugin) Start(s *sdk.PluginSDK) error {
	s.Settings().RegisterDef(sdk.ConfigDef{Key: "api_token", Type: "password", DisplayName: "API token",
		Description: "the service's API token", Required: true})
	s.Settings().RegisterDef(sdk.ConfigDef{Key: "base_url", Type: "string", DisplayName: "Address",
		Description: "where the service runs", Default: "http://127.0.0.1:3456"})
	return nil
}

// `hearth settings PLUGIN` shows a freshly installed plugin's declared
// settings before it ever ran, marks a required one that is not set, and
// masks it once set.
func TestSettingsOfAPluginNeverStarted(t *testing.T) {
	base := []string{"HEARTH_HOME=" + t.TempDir()}
	src := filepath.Join(t.TempDir(), "setup-plugin")
	if err := os.MkdirAll(src, 0o755); err != nil {
		t.Fatal(err)
	}
	manifest := fmt.Sprintf(`{"id": "setup", "command": [%q], "env": {"HEARTH_TEST_SERVE_SETUP": "1"}, "capabilities": ["settings"]}`, os.Args[0])
	if err := os.WriteFile(filepath.Join(src, "plugin.json"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := hearth(t, base, "", "plugin", "install", src); code != 0 {
		t.Fatalf("install: %q", errOut)
	}
	{ // the same through --json, in a data directory of its own
		b2 := []string{"HEARTH_HOME=" + t.TempDir()}
		if _, errOut, code := hearth(t, b2, "", "plugin", "install", src); code != 0 {
			t.Fatalf("install: %q", errOut)
		}
		out, errOut, code := hearth(t, b2, "", "settings", "setup", "--json")
		if code != 0 || !strings.Contains(out, `"key": "api_token"`) || !strings.Contains(out, `"required": true`) {
			t.Fatalf("settings --json: %d %q\n%s", code, errOut, out)
		}
	}
	out, errOut, code := hearth(t, base, "", "settings", "setup")
	if code != 0 || strings.Contains(out, "has no settings") {
		t.Fatalf("settings: %d %q\n%s", code, errOut, out)
	}
	token, addr := lineWith(out, "api_token"), lineWith(out, "base_url")
	if !strings.Contains(token, "(required, not set)") || !strings.Contains(token, "API token the service's API token (secret)") ||
		!strings.Contains(addr, `"http://127.0.0.1:3456"`) || !strings.Contains(addr, "where the service runs") {
		t.Fatalf("settings:\n%s", out)
	}
	if _, errOut, code := hearth(t, base, "tok-secret-4242\n", "settings", "set", "setup", "api_token"); code != 0 {
		t.Fatalf("set: %q", errOut)
	}
	if out, _, _ := hearth(t, base, "", "settings", "setup"); strings.Contains(out, "tok-secret-4242") || strings.Contains(out, "required, not set") {
		t.Fatalf("settings after set:\n%s", out)
	}
}
