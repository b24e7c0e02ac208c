//go:build unix

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/pluginrpc"
)

// The dynamic-description plugin runs from init, before TestMain: a child
// whose tool's description is the text of the file HEARTH_TEST_DYNDESC
// names, read whenever Hearth asks, except at registration, where it is
// "" (so the registered text is Description), as for a preference that
// changes after the plugin started.
func init() {
	if f := os.Getenv("HEARTH_TEST_DYNDESC"); f != "" {
		pluginrpc.Serve(func(name string, _ map[string]any) (sdk.Plugin, error) { return &dynDesc{name: name, file: f}, nil })
	}
}

type dynDesc struct {
	name, file string
	asked      atomic.Int32
}

func (p *dynDesc) Name() string { return p.name }
func (p *dynDesc) Stop() error  { return nil }
func (p *dynDesc) Start(s *sdk.PluginSDK) error {
	return s.RegisterTool("status", sdk.ToolDef{
		Description: "registered text", Effect: sdk.EffectRead,
		Parameters: map[string]any{"type": "object", "properties": map[string]any{}},
		DescriptionFunc: func() string {
			if p.asked.Add(1) == 1 {
				return ""
			}
			b, _ := os.ReadFile(p.file)
			return string(b)
		},
	}, func(map[string]any) (any, error) { return "ok", nil })
}

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

// `hearth plugin` names an xbot plugin as its tools, settings and the
// forget hint do (com-example-echo-channel), with plugin.json's id beside
// it; --json says both; disable takes the name Hearth uses.
func TestPluginListShowsTheNameHearthUses(t *testing.T) {
	home := t.TempDir()
	writeManifest(t, filepath.Join(home, "plugins", "echo"), `{"id": "com.example.echo-channel", "runtime": "stdio", "command": ["sh", "-c", "exit 3"]}`)
	env := []string{"HEARTH_HOME=" + home}
	out, errOut, code := hearth(t, env, "", "plugin")
	if code != 0 || !strings.HasPrefix(lineWith(out, "echo"), "com-example-echo-channel (plugin.json: com.example.echo-channel)  ") {
		t.Fatalf("plugin list: %d %q\n%s", code, errOut, out)
	}
	out, errOut, code = hearth(t, env, "", "plugin", "--json")
	var list []struct {
		ID         string `json:"id"`
		ManifestID string `json:"manifest_id"`
		Enabled    bool   `json:"enabled"`
	}
	if err := json.Unmarshal([]byte(out), &list); code != 0 || err != nil {
		t.Fatalf("plugin --json: %d %v %q\n%s", code, err, errOut, out)
	}
	found := false
	for _, p := range list {
		if p.ID == "com-example-echo-channel" && p.ManifestID == "com.example.echo-channel" {
			found = true
		}
	}
	if !found {
		t.Fatalf("plugin --json: no entry with both ids:\n%s", out)
	}
	if out, errOut, code := hearth(t, env, "", "plugin", "disable", "com-example-echo-channel"); code != 0 {
		t.Fatalf("disable: %d %q %q", code, out, errOut)
	}
	out, _, _ = hearth(t, env, "", "plugin")
	if f := strings.Fields(lineWith(out, "echo")); len(f) < 4 || f[3] != "false" {
		t.Fatalf("plugin list after disable:\n%s", out)
	}
}

// `hearth tools` and --json show the description the model is sent: a
// tool's dynamic description, not the text it registered.
func TestToolsShowsDynamicDescription(t *testing.T) {
	home := t.TempDir()
	desc := filepath.Join(t.TempDir(), "desc")
	if err := os.WriteFile(desc, []byte("the mode is now: quiet"), 0o644); err != nil {
		t.Fatal(err)
	}
	writeManifest(t, filepath.Join(home, "plugins", "dyn"), fmt.Sprintf(`{"id": "dyn", "command": [%q], "env": {"HEARTH_TEST_DYNDESC": %q}}`, os.Args[0], desc))
	env := []string{"HEARTH_HOME=" + home}
	out, errOut, code := hearth(t, env, "", "tools")
	if code != 0 || lineWith(out, "dyn__status") != "dyn__status\tthe mode is now: quiet" {
		t.Fatalf("tools: %d %q\n%s", code, errOut, out)
	}
	out, errOut, code = hearth(t, env, "", "tools", "--json")
	var specs []struct{ Name, Description string }
	if err := json.Unmarshal([]byte(out), &specs); code != 0 || err != nil {
		t.Fatalf("tools --json: %d %v %q", code, err, errOut)
	}
	found := false
	for _, s := range specs {
		if s.Name == "dyn__status" {
			found = true
			if s.Description != "the mode is now: quiet" {
				t.Fatalf("tools --json: dyn__status described as %q", s.Description)
			}
		}
	}
	if !found {
		t.Fatalf("tools --json: no dyn__status:\n%s", out)
	}
}

// An xbot script plugin's widget output, which Hearth has no terminal
// slot for, is shown by `hearth plugin show`.
func TestPluginShowShowsWidgetOutput(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(home, "plugins", "gitinfo")
	writeManifest(t, dir, `{"id": "git-info", "runtime": "script", "entry": "sh info.sh", "permissions": ["ui.contribute"],
		"contributes": {"ui": [{"id": "branch", "slot": "infoBar", "triggers": []}]}}`)
	if err := os.WriteFile(filepath.Join(dir, "info.sh"), []byte("echo 'branch main, 2 changed'\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	startServe(t, home, nil)
	env := []string{"HEARTH_HOME=" + home}
	waitFor(t, "the widget in plugin show", func() bool {
		out, _, _ := hearth(t, env, "", "plugin", "show", "git-info")
		w := lineWith(out, "widget:")
		return strings.HasPrefix(w, "widget:       branch (infoBar, ") && strings.HasSuffix(w, "): branch main, 2 changed")
	})
}
