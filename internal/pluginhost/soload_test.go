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
	"github.com/hearth-agent/hearth/sdk"
)

var (
	soOnce sync.Once
	soDir  string
	soErr  error
)

func init() { cleanups = append(cleanups, func() { removeSODir() }) }

func removeSODir() {
	if soDir != "" {
		os.RemoveAll(soDir)
	}
}

// TestLoadSO builds the weather example as a .so with this Go and loads
// it, as HomeAgent's dynamic plugins were.
func TestLoadSO(t *testing.T) {
	goBin := filepath.Join(os.Getenv("GOROOT"), "bin", "go")
	if _, err := os.Stat(goBin); err != nil {
		goBin = "go"
	}
	// A Go plugin loads once per process, from one path: build it once
	// into a folder that outlives a single run of the test (-count=N).
	soOnce.Do(func() {
		soDir, soErr = os.MkdirTemp("", "hearth-so-")
		if soErr != nil {
			return
		}
		os.MkdirAll(filepath.Join(soDir, "weather"), 0o755)
		args := []string{"build", "-buildmode=plugin", "-o", filepath.Join(soDir, "weather", "weather.so")}
		if raceEnabled {
			args = append(args, "-race") // the plugin must match the test binary's runtime
		}
		cmd := exec.Command(goBin, append(args, "../../examples/homeagent/weather-so")...)
		if out, err := cmd.CombinedOutput(); err != nil {
			soErr = fmt.Errorf("building the .so: %v\n%s", err, out)
		}
	})
	if soErr != nil {
		t.Fatal(soErr)
	}
	plugins := soDir
	so := filepath.Join(plugins, "weather", "weather.so")
	factory, err := LoadSO(so)
	if err != nil {
		t.Fatal(err)
	}
	k := kernel.New(nil, nil, nil)
	defer k.Close()
	if err := k.LoadPlugin("weather", factory, nil); err != nil {
		t.Fatal(err)
	}
	r := callTool(k, "weather__weather_query", `{"city":"广州"}`)
	if r.IsError || r.Content != `{"city":"广州","temp":25,"weather":"晴"}` {
		t.Fatalf("%+v", r)
	}
	blocked := k.Ask(context.Background(), kernel.Input{Injection: sdk.Injection{Channel: "qq", UserID: "blocked_user", Text: "hi"}})
	if blocked.Text != "已被限制使用" {
		t.Fatalf("%+v", blocked)
	}

	// The plugins folder loads <name>/<name>.so the same way.
	k2 := kernel.New(nil, nil, nil)
	defer k2.Close()
	st, err := store.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	m := NewManager(plugins, st, &Options{Host: k2})
	defer m.Close()
	if err := m.Scan(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, ok := k2.Tools().Lookup("weather__weather_query"); !ok {
		list, _ := m.List(context.Background())
		t.Fatalf("the plugins folder did not load the .so: %+v", list)
	}
	list, _ := m.List(context.Background())
	if len(list) != 1 || list[0].Status == nil || !strings.Contains(string(list[0].Status.State), ".so") {
		t.Fatalf("list %+v", list)
	}

	// A file that is not a Go plugin fails with a clear error.
	bad := filepath.Join(t.TempDir(), "bad.so")
	os.WriteFile(bad, []byte("not an ELF file"), 0o644)
	if _, err := LoadSO(bad); err == nil || !strings.Contains(err.Error(), "bad.so") {
		t.Fatalf("bad .so: %v", err)
	}
}
