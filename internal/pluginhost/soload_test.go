//go:build (linux || darwin) && cgo

package pluginhost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hearth-agent/hearth/internal/kernel"
	"github.com/hearth-agent/hearth/internal/store"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// The .so plugins of these tests and the loader they run in, built once
// per test binary: plain builds (no -race), as a user's are; the test
// binary's own flags no longer matter, since no .so enters it.
var (
	soOnce   sync.Once
	soDir    string // the loader, and <name>.so for each source below
	soErr    error
	soSource = map[string]string{
		"weather":    "../../examples/homeagent/weather-so",
		"ha_factory": "./testdata/ha_factory",
		"sochan":     "./testdata/sochannel",
		"socrash":    "./testdata/socrash",
		"soinit":     "./testdata/soinit",
	}
)

func init() {
	cleanups = append(cleanups, func() {
		if soDir != "" {
			os.RemoveAll(soDir)
		}
	})
}

// soBuilt returns the folder with the loader and the built .so files.
func soBuilt(t *testing.T) string {
	t.Helper()
	soOnce.Do(func() {
		if soDir, soErr = os.MkdirTemp("", "hearth-so-"); soErr != nil {
			return
		}
		if soErr = BuildSOLoader(context.Background(), "../..", filepath.Join(soDir, SOLoaderName)); soErr != nil {
			return
		}
		for name, src := range soSource {
			cmd := exec.Command("go", "build", "-buildmode=plugin", "-o", filepath.Join(soDir, name+".so"), src)
			cmd.Env = append(os.Environ(), "CGO_ENABLED=1")
			if out, err := cmd.CombinedOutput(); err != nil {
				soErr = fmt.Errorf("building %s: %v\n%s", src, err, out)
				return
			}
		}
	})
	if soErr != nil {
		t.Fatal(soErr)
	}
	return soDir
}

// soPlugins returns a plugins folder with name's .so as <folder>/<file>.
func soPlugins(t *testing.T, name, folder, file string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(soBuilt(t), name+".so"))
	if err != nil {
		t.Fatal(err)
	}
	plugins := t.TempDir()
	os.MkdirAll(filepath.Join(plugins, folder), 0o755)
	if err := os.WriteFile(filepath.Join(plugins, folder, file), b, 0o755); err != nil {
		t.Fatal(err)
	}
	return plugins
}

// soManager scans plugins with a manager of f's options and the test
// loader, and waits for the plugins' handshakes.
func soManager(t *testing.T, f *fixture, plugins string) *Manager {
	m := soManagerNoWait(t, f, plugins)
	m.WaitReady(context.Background())
	return m
}

// soManagerNoWait is soManager for plugins that never finish their
// handshake.
func soManagerNoWait(t *testing.T, f *fixture, plugins string) *Manager {
	t.Helper()
	st, err := store.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	o := f.opts
	o.SOLoader = filepath.Join(soBuilt(t), SOLoaderName)
	m := NewManager(plugins, st, &o)
	t.Cleanup(m.Close)
	if err := m.Scan(context.Background()); err != nil {
		t.Fatal(err)
	}
	return m
}

// soProcess returns the process running the plugin name.
func soProcess(t *testing.T, m *Manager, name string) *Process {
	t.Helper()
	m.mu.Lock()
	defer m.mu.Unlock()
	mp, ok := m.procs[name]
	if !ok {
		t.Fatalf("%s is not running; bad folders: %v", name, m.bad)
	}
	return mp.proc
}

// TestSOPlugin runs the weather example built as a .so, as HomeAgent's
// dynamic plugins were, from <name>/<name>.so: its tool and its stage
// reach the kernel from the loader's process, not from Hearth's.
func TestSOPlugin(t *testing.T) {
	f := newFixture(t)
	m := soManager(t, f, soPlugins(t, "weather", "weather", "weather.so"))
	r := callTool(f.k, "weather__weather_query", `{"city":"广州"}`)
	if r.IsError || r.Content != `{"city":"广州","temp":25,"weather":"晴"}` {
		t.Fatalf("%+v", r)
	}
	blocked := f.k.Ask(context.Background(), kernel.Input{Injection: sdk.Injection{Channel: "qq", UserID: "blocked_user", Text: "hi"}})
	if blocked.Text != "已被限制使用" {
		t.Fatalf("%+v", blocked)
	}
	list, _ := m.List(context.Background())
	if len(list) != 1 || list[0].Kind != "so" || list[0].Status == nil || list[0].Status.State != Running ||
		list[0].Status.PID == 0 || list[0].Status.PID == os.Getpid() {
		t.Fatalf("list %+v", list)
	}

	// Disabling stops it at once: a .so no longer lives in Hearth.
	if err := m.SetEnabled(context.Background(), "weather", false); err != nil {
		t.Fatal(err)
	}
	if _, ok := f.k.Tools().Lookup("weather__weather_query"); ok {
		t.Fatal("the tool of a disabled .so plugin is still registered")
	}
}

// TestSONotAPlugin: a file that is not a Go plugin fails with a clear
// error naming it, and Hearth goes on.
func TestSONotAPlugin(t *testing.T) {
	f := newFixture(t)
	plugins := t.TempDir()
	os.MkdirAll(filepath.Join(plugins, "bad"), 0o755)
	os.WriteFile(filepath.Join(plugins, "bad", "bad.so"), []byte("not an ELF file"), 0o644)
	m := soManagerNoWait(t, f, plugins)
	waitStatus(t, soProcess(t, m, "bad"), "the error names the .so", func(s Status) bool {
		return strings.Contains(s.LastError, "bad.so") && strings.Contains(s.LastError, "opening")
	})
}

// TestSOCrash: a .so that crashes its process takes the loader down, not
// Hearth; the call gets an error, the status says why, and the plugin is
// started again.
func TestSOCrash(t *testing.T) {
	f := newFixture(t)
	m := soManager(t, f, soPlugins(t, "socrash", "socrash", "socrash.so"))
	p := soProcess(t, m, "socrash")
	pid := p.Status().PID
	if r := callTool(f.k, "socrash__crash", `{}`); !r.IsError {
		t.Fatalf("a crashed call succeeded: %+v", r)
	}
	waitStatus(t, p, "restarted after the crash, saying why", func(s Status) bool {
		return s.State == Running && s.PID != pid && s.Restarts >= 1 && strings.Contains(strings.Join(s.Stderr, "\n"), "socrash: boom")
	})
	if r := callTool(f.k, "socrash__crash", `{}`); !r.IsError {
		t.Fatalf("%+v", r) // its tool is back, and still crashes
	}
}

// TestHomeAgentSOFolder runs HomeAgent's layout, a folder with plg.json
// and plugin.so, from a library that exports only NewPluginFactory, under
// an id with an underscore.
func TestHomeAgentSOFolder(t *testing.T) {
	f := newFixture(t)
	plugins := soPlugins(t, "ha_factory", "ha_factory", "plugin.so")
	os.CopyFS(filepath.Join(plugins, "ha_factory"), os.DirFS("testdata/ha_factory"))
	m := soManager(t, f, plugins)
	r := callTool(f.k, "ha_factory__ha_factory_echo", `{"text":"hi"}`)
	if r.IsError || r.Content != "ha_factory: HI" {
		list, _ := m.List(context.Background())
		t.Fatalf("%+v; plugins %+v", r, list)
	}
	list, _ := m.List(context.Background())
	if len(list) != 1 || list[0].ID != "ha_factory" || list[0].Kind != "so" || list[0].Status == nil || list[0].Status.State != Running {
		t.Fatalf("list %+v", list)
	}

	// hearth plugin install copies such a folder in under plg.json's name.
	st, err := store.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	src := filepath.Join(t.TempDir(), "some-download")
	os.CopyFS(src, os.DirFS(filepath.Join(plugins, "ha_factory")))
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
	plugins := t.TempDir()
	os.MkdirAll(filepath.Join(plugins, "foreign"), 0o755)
	cmd := exec.Command("go", "build", "-buildmode=plugin", "-o", filepath.Join(plugins, "foreign", "foreign.so"), ".")
	cmd.Dir = filepath.Join(dir, "plug")
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off", "CGO_ENABLED=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building the .so: %v\n%s", err, out)
	}
	f := newFixture(t)
	m := soManagerNoWait(t, f, plugins)
	waitStatus(t, soProcess(t, m, "foreign"), "the error says what to do", func(s Status) bool {
		return strings.Contains(s.LastError, "built against HomeAgent's own SDK")
	})
}

// A .so plugin's channel is a Hearth channel as a compiled-in one's: the
// relayed message is answered on it and the answer reaches the handler,
// across the loader's protocol.
func TestSOChannel(t *testing.T) {
	f := newFixture(t, llmtest.Reply{Text: "answered on sochan"})
	soManager(t, f, soPlugins(t, "sochan", "sochan", "sochan.so"))
	if owner, ok := f.k.ChannelOwner("sochan"); !ok || owner != "sochan" {
		t.Fatalf("owner %q %v", owner, ok)
	}
	r := callTool(f.k, "sochan__relay", `{"text":"hi"}`)
	if r.IsError || !strings.Contains(r.Content, `"payload":"answered on sochan"`) || !strings.Contains(r.Content, `"final":true`) {
		t.Fatalf("%+v", r)
	}
}

// TestSOLoaderBuiltOnFirstNeed: with no loader given and none next to the
// program, the manager builds one from the Hearth checkout into the data
// folder's cache, and the .so runs in it.
func TestSOLoaderBuiltOnFirstNeed(t *testing.T) {
	f := newFixture(t)
	st, err := store.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	o := f.opts
	o.HearthSrc, _ = filepath.Abs("../..")
	m := NewManager(soPlugins(t, "ha_factory", "ha_factory", "ha_factory.so"), st, &o)
	defer m.Close()
	if err := m.Scan(context.Background()); err != nil {
		t.Fatal(err)
	}
	m.WaitReady(context.Background())
	if r := callTool(f.k, "ha_factory__ha_factory_echo", `{"text":"x"}`); r.IsError || r.Content != "ha_factory: X" {
		t.Fatalf("%+v", r)
	}
	built, _ := filepath.Glob(filepath.Join(f.data, "cache", "soload", "*", SOLoaderName))
	if len(built) != 1 || soProcess(t, m, "ha_factory").m.Command[0] != built[0] {
		t.Fatalf("loader %v, command %v", built, soProcess(t, m, "ha_factory").m.Command)
	}

	// A folder that is no checkout builds no loader, and says so.
	_, err = findSOLoader(context.Background(), &Options{DataDir: t.TempDir(), HearthSrc: t.TempDir()})
	if !errors.Is(err, ErrNoSOLoader) {
		t.Fatalf("got %v", err)
	}
}

// TestSOWithoutLoader: a disabled .so folder builds no loader; enabled,
// without a loader to find or build, it is listed as not loaded with why,
// and Hearth goes on.
func TestSOWithoutLoader(t *testing.T) {
	f := newFixture(t)
	plugins := t.TempDir()
	os.MkdirAll(filepath.Join(plugins, "lone"), 0o755)
	os.WriteFile(filepath.Join(plugins, "lone", "lone.so"), []byte("never opened"), 0o644)
	st, err := store.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.SetPluginEnabled(context.Background(), "lone", false); err != nil {
		t.Fatal(err)
	}
	o := f.opts
	o.HearthSrc = t.TempDir() // no checkout: a build would fail
	m := NewManager(plugins, st, &o)
	defer m.Close()
	if err := m.Scan(context.Background()); err != nil {
		t.Fatalf("a disabled .so: %v", err)
	}
	if list, _ := m.List(context.Background()); len(list) != 1 || list[0].Kind != "so" || list[0].Enabled || list[0].Error != "" {
		t.Fatalf("list %+v", list)
	}
	if err := m.SetEnabled(context.Background(), "lone", true); !errors.Is(err, ErrNoSOLoader) {
		t.Fatalf("enabled without a loader: %v", err)
	}
	if list, _ := m.List(context.Background()); len(list) != 1 || !strings.Contains(list[0].Error, "no .so loader") || list[0].Status != nil {
		t.Fatalf("list %+v", list)
	}
}

// TestSOInitMisbehaves: a .so that panics, blocks forever or exits while
// it is loaded (in an init function) takes down its loader, not Hearth;
// the plugin's last error says what happened, and it waits before the
// next try like any crashed child plugin.
func TestSOInitMisbehaves(t *testing.T) {
	for _, c := range []struct{ mode, want string }{
		{"panic", "soinit: init panicked"},
		{"block", "no handshake within"},
		{"exit", "soinit: leaving in init"},
	} {
		t.Run(c.mode, func(t *testing.T) {
			f := newFixture(t)
			f.opts.HandshakeTimeout = time.Second // for block: no init of this test takes longer otherwise
			plugins := soPlugins(t, "soinit", "soinit", "soinit.so")
			if err := os.WriteFile(filepath.Join(plugins, "soinit", "mode"), []byte(c.mode), 0o644); err != nil {
				t.Fatal(err)
			}
			m := soManagerNoWait(t, f, plugins)
			waitStatus(t, soProcess(t, m, "soinit"), "the last error says why: "+c.want, func(s Status) bool {
				return s.State != Running && s.Restarts >= 1 && strings.Contains(s.LastError, c.want)
			})
			if _, ok := f.k.Tools().Lookup("soinit__ok"); ok {
				t.Fatal("the tool of a .so that never loaded is registered")
			}
		})
	}
}

// TestSOStaleLoader: a .so built against a Hearth whose sdk package has
// changed since the loader was built (here: the same checkout with one
// more file in sdk, through go build -overlay) is refused with an error
// that names the loader, its Go and the checkout it was built from, so
// the user can tell which of the two is stale.
func TestSOStaleLoader(t *testing.T) {
	soBuilt(t)
	src, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	extra := filepath.Join(work, "newer.go")
	if err := os.WriteFile(extra, []byte("package sdk\n\n// Newer is in a newer sdk than the loader's.\nfunc Newer() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	overlay := filepath.Join(work, "overlay.json")
	b, _ := json.Marshal(map[string]any{"Replace": map[string]string{filepath.Join(src, "sdk", "zz_newer.go"): extra}})
	if err := os.WriteFile(overlay, b, 0o644); err != nil {
		t.Fatal(err)
	}
	plugins := t.TempDir()
	os.MkdirAll(filepath.Join(plugins, "newer"), 0o755)
	cmd := exec.Command("go", "build", "-buildmode=plugin", "-overlay="+overlay, "-o", filepath.Join(plugins, "newer", "newer.so"), soSource["ha_factory"])
	cmd.Env = append(os.Environ(), "CGO_ENABLED=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building the .so: %v\n%s", err, out)
	}
	f := newFixture(t)
	m := soManagerNoWait(t, f, plugins)
	loader := filepath.Join(soBuilt(t), SOLoaderName)
	waitStatus(t, soProcess(t, m, "newer"), "the error names the loader and its checkout", func(s Status) bool {
		return strings.Contains(s.LastError, "different version of package") &&
			strings.Contains(s.LastError, loader) && strings.Contains(s.LastError, "checkout "+src)
	})
}

// TestSOLoaderEnvironment: the loader child gets a Go child plugin's
// environment (minimalEnv), not Hearth's: no API key or token Hearth's
// environment holds reaches the .so.
func TestSOLoaderEnvironment(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-loader-secret")
	t.Setenv("HEARTH_TOKEN", "owner-token-secret")
	f := newFixture(t)
	soManager(t, f, soPlugins(t, "soinit", "soinit", "soinit.so"))
	r := callTool(f.k, "soinit__env", `{}`)
	if r.IsError || !strings.Contains(r.Content, "HEARTH_PLUGIN_ID=soinit") {
		t.Fatalf("%+v", r)
	}
	for _, secret := range []string{"sk-loader-secret", "owner-token-secret"} {
		if strings.Contains(r.Content, secret) {
			t.Errorf("the .so sees %s in its environment:\n%s", secret, r.Content)
		}
	}
	want := "HOME=" + filepath.Join(f.data, "plugin_data", "soinit")
	if !strings.Contains(r.Content, want) {
		t.Errorf("environment lacks %s:\n%s", want, r.Content)
	}
}
