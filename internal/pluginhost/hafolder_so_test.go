//go:build (linux || darwin) && cgo

package pluginhost

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/hearth-agent/hearth/internal/kernel"
	"github.com/hearth-agent/hearth/internal/store"
)

var (
	haSOOnce sync.Once
	haSODir  string
	haSOErr  error
)

func init() {
	cleanups = append(cleanups, func() {
		if haSODir != "" {
			os.RemoveAll(haSODir)
		}
	})
}

// TestHomeAgentSOFolder loads HomeAgent's layout, a folder with plg.json
// and plugin.so, from a library that exports only NewPluginFactory, under
// an id with an underscore.
func TestHomeAgentSOFolder(t *testing.T) {
	// A Go plugin loads once per process, from one path: build it once
	// into a folder that outlives a single run of the test (-count=N).
	haSOOnce.Do(func() {
		haSODir, haSOErr = os.MkdirTemp("", "hearth-haso-")
		if haSOErr != nil {
			return
		}
		dir := filepath.Join(haSODir, "ha_factory")
		if haSOErr = os.CopyFS(dir, os.DirFS("testdata/ha_factory")); haSOErr != nil {
			return
		}
		args := []string{"build", "-buildmode=plugin", "-o", filepath.Join(dir, "plugin.so")}
		if raceEnabled {
			args = append(args, "-race") // the plugin must match the test binary's runtime
		}
		cmd := exec.Command("go", append(args, "./testdata/ha_factory")...)
		if out, err := cmd.CombinedOutput(); err != nil {
			haSOErr = fmt.Errorf("building the .so: %v\n%s", err, out)
		}
	})
	if haSOErr != nil {
		t.Fatal(haSOErr)
	}
	k := kernel.New(nil, nil, nil)
	defer k.Close()
	st, err := store.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	m := NewManager(haSODir, st, &Options{Host: k})
	defer m.Close()
	if err := m.Scan(context.Background()); err != nil {
		t.Fatal(err)
	}
	r := callTool(k, "ha_factory__ha_factory_echo", `{"text":"hi"}`)
	if r.IsError || r.Content != "ha_factory: HI" {
		list, _ := m.List(context.Background())
		t.Fatalf("%+v; plugins %+v", r, list)
	}
	list, _ := m.List(context.Background())
	if len(list) != 1 || list[0].ID != "ha_factory" || list[0].Kind != "so" || list[0].Status == nil || !strings.Contains(string(list[0].Status.State), ".so") {
		t.Fatalf("list %+v", list)
	}
	if _, err := LoadSO(filepath.Join(haSODir, "ha_factory", "plugin.so")); err != nil {
		t.Fatalf("LoadSO: %v", err)
	}

	// hearth plugin install copies such a folder in under plg.json's name.
	src := filepath.Join(t.TempDir(), "some-download")
	os.CopyFS(src, os.DirFS(filepath.Join(haSODir, "ha_factory")))
	to := t.TempDir()
	if id, err := InstallFolder(context.Background(), st, to, src); err != nil || id != "ha_factory" {
		t.Fatalf("install: %q %v", id, err)
	}
	if _, err := os.Stat(filepath.Join(to, "ha_factory", "plugin.so")); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(src, "plugin.so"))
	if _, err := InstallFolder(context.Background(), st, t.TempDir(), src); err == nil || !strings.Contains(err.Error(), "not a plugin folder") {
		t.Fatalf("install without the .so: %v", err)
	}
}

// TestSOForeignSDK: a .so built against HomeAgent's own SDK (a stand-in
// module of that path here) fails with what to do instead.
func TestSOForeignSDK(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"fakesdk/go.mod":     "module gitcode.com/JianFeeeee/homeagent-sdk\n\ngo 1.25\n",
		"fakesdk/sdk/sdk.go": "package sdk\n\ntype Plugin interface{ Name() string }\n",
		"plug/go.mod": "module plug\n\ngo 1.25\n\nrequire gitcode.com/JianFeeeee/homeagent-sdk v0.0.0\n\n" +
			"replace gitcode.com/JianFeeeee/homeagent-sdk => ../fakesdk\n",
		"plug/main.go": "package main\n\nimport \"gitcode.com/JianFeeeee/homeagent-sdk/sdk\"\n\n" +
			"func NewPlugin(name string, config map[string]interface{}) (sdk.Plugin, error) { return nil, nil }\n",
	}
	for name, body := range files {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	so := filepath.Join(dir, "foreign.so")
	args := []string{"build", "-buildmode=plugin", "-o", so}
	if raceEnabled {
		args = append(args, "-race")
	}
	cmd := exec.Command("go", append(args, ".")...)
	cmd.Dir = filepath.Join(dir, "plug")
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building the .so: %v\n%s", err, out)
	}
	if _, err := LoadSO(so); err == nil || !strings.Contains(err.Error(), "built against HomeAgent's own SDK") {
		t.Fatalf("got %v", err)
	}
}
