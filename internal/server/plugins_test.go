package server

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/sdk"
)

// echoPlugin is a compiled-in plugin with one tool, loaded into one
// test's kernel only (not registered as a factory for every test).
type echoPlugin struct{}

type echoIn struct {
	Text string `json:"text"`
}

func (echoPlugin) Name() string { return "admintest" }
func (echoPlugin) Stop() error  { return nil }
func (echoPlugin) Start(s *sdk.PluginSDK) error {
	return sdk.AddTool(s, sdk.ToolDef{Name: "echo", Title: "回声", Description: "Says it back.", Effect: sdk.EffectRead},
		func(_ context.Context, _ *sdk.ToolContext, in echoIn) (string, error) { return in.Text, nil })
}

func writePluginFolder(t *testing.T, dir, folder string, manifest any) {
	t.Helper()
	p := filepath.Join(dir, folder)
	if err := os.MkdirAll(p, 0o700); err != nil {
		t.Fatal(err)
	}
	b, ok := manifest.(string)
	if !ok {
		raw, err := json.Marshal(manifest)
		if err != nil {
			t.Fatal(err)
		}
		b = string(raw)
	}
	if err := os.WriteFile(filepath.Join(p, "plugin.json"), []byte(b), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestPluginsListStatesAndToggles(t *testing.T) {
	a := newTestApp(t)
	if err := a.Kernel.LoadPlugin("admintest", func(string, map[string]any) (sdk.Plugin, error) { return echoPlugin{}, nil }, nil); err != nil {
		t.Fatal(err)
	}
	dir := a.Plugins.Dir()
	writePluginFolder(t, dir, "broken", `{"id": "broken", "command": [`)
	writePluginFolder(t, dir, "quiet", map[string]any{"id": "quiet", "command": []string{"sh", "-c", "exit 3"}, "capabilities": []string{"memory"}})
	writePluginFolder(t, dir, "hello", map[string]any{"id": "com.example.hello", "runtime": "stdio", "command": []string{"sh", "-c", "exit 3"}})
	ctx := t.Context()
	for _, id := range []string{"quiet", "com.example.hello"} {
		if err := a.Store.SetPluginEnabled(ctx, id, false); err != nil {
			t.Fatal(err)
		}
	}
	_, hs := newTestServer(t, a)
	must := func(want int, method, path string) string {
		t.Helper()
		code, b := adminCall(t, hs, method, path, "")
		if code != want {
			t.Fatalf("%s %s = %d, want %d: %s", method, path, code, want, b)
		}
		return b
	}

	list := decodeAs[PluginList](t, must(200, "GET", "/v1/plugins"))
	byID := map[string]Plugin{}
	for _, p := range list.Plugins {
		byID[p.ID] = p
	}
	if p := byID["admintest"]; p.Kind != KindBuiltin || p.State != StateRunning || len(p.Tools) != 1 ||
		p.Tools[0].Name != "admintest__echo" || p.Tools[0].Effect != "read" || p.LiveToggle {
		t.Fatalf("built-in = %+v", p)
	}
	if p := byID["broken"]; p.State != StateFailed || p.Reason == "" || p.Kind != KindProcess {
		t.Fatalf("broken = %+v", p)
	}
	if p := byID["quiet"]; p.State != StateDisabled || p.Enabled || len(p.Capabilities) != 1 || p.Stderr == nil || !p.LiveToggle {
		t.Fatalf("quiet = %+v", p)
	}
	if p := byID["com-example-hello"]; p.Kind != KindXbot || p.ManifestID != "com.example.hello" || p.State != StateDisabled {
		t.Fatalf("xbot = %+v", p)
	}

	one := decodeAs[Plugin](t, must(200, "GET", "/v1/plugins/com.example.hello"))
	if one.ID != "com-example-hello" {
		t.Fatalf("by manifest id = %+v", one)
	}
	must(404, "GET", "/v1/plugins/nope")
	must(404, "POST", "/v1/plugins/nope/enable")
	must(405, "GET", "/v1/plugins/quiet/enable")

	// A built-in is not stopped while Hearth runs: say so, change nothing.
	act := decodeAs[PluginAction](t, must(200, "POST", "/v1/plugins/admintest/enable"))
	if !act.Applied {
		t.Fatalf("enable a running built-in = %+v", act)
	}
	if b := must(409, "POST", "/v1/plugins/admintest/disable"); !strings.Contains(b, "disabled_plugins") {
		t.Fatalf("disable a built-in: %s", b)
	}
	must(409, "POST", "/v1/plugins/admintest/reload")
	must(409, "POST", "/v1/plugins/quiet/reload") // disabled

	act = decodeAs[PluginAction](t, must(200, "POST", "/v1/plugins/quiet/enable"))
	if !act.Applied || !act.Plugin.Enabled || act.Plugin.State == StateDisabled {
		t.Fatalf("enable = %+v", act)
	}
	act = decodeAs[PluginAction](t, must(200, "POST", "/v1/plugins/quiet/reload"))
	if !act.Applied || !act.Plugin.Enabled {
		t.Fatalf("reload = %+v", act)
	}
	act = decodeAs[PluginAction](t, must(200, "POST", "/v1/plugins/quiet/disable"))
	if !act.Applied || act.Plugin.Enabled || act.Plugin.State != StateDisabled {
		t.Fatalf("disable = %+v", act)
	}
	states, err := a.Store.PluginStates(ctx)
	if err != nil || states["quiet"].Enabled {
		t.Fatalf("stored state = %+v %v", states["quiet"], err)
	}
}

// A plugin's stderr is shown with model keys, secret settings and
// anything that looks like a key masked.
func TestPluginStderrMasked(t *testing.T) {
	a := newTestApp(t)
	if err := a.Settings.Register("quiet", sdk.ConfigDef{Key: "password", Type: "string", Secret: true}); err != nil {
		t.Fatal(err)
	}
	if err := a.Settings.SetJSON("quiet", "password", json.RawMessage(`"hunter2-hunter2-hunter2"`)); err != nil {
		t.Fatal(err)
	}
	s, _ := newTestServer(t, a)
	got := s.stderrMask()("login with hunter2-hunter2-hunter2 and sk-abcdefghijklmnop1234")
	if strings.Contains(got, "hunter2-hunter2") || strings.Contains(got, "abcdefghijklmnop1234") {
		t.Fatalf("masked = %q", got)
	}
}

// Every admin route needs the token.
func TestAdminRoutesNeedTheToken(t *testing.T) {
	s, hs := newTestServer(t, newTestApp(t))
	var routes []route
	for _, part := range [][]route{s.pluginRoutes(), s.settingsRoutes(), s.memoryRoutes(), s.knowledgeRoutes()} {
		routes = append(routes, part...)
	}
	for _, rt := range routes {
		path := strings.NewReplacer("{id}", "x", "{plugin}", "x", "{key}", "k", "{name}", "x", "{name...}", "x").Replace(rt.path)
		req, err := http.NewRequest(rt.method, hs.URL+path, strings.NewReader("{}"))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("%s %s without a token = %d", rt.method, rt.path, resp.StatusCode)
		}
	}
}
