package hagosrc

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/internal/names"
	"github.com/hearth-agent/hearth/internal/scaffold"
)

// hearthSrc is this checkout.
func hearthSrc(t *testing.T) string {
	t.Helper()
	src := scaffold.FindHearthSrc(".")
	if src == "" {
		t.Fatal("no Hearth checkout above the test's folder")
	}
	return src
}

// copyDir copies a testdata plugin so that a test can change it.
func copyDir(t *testing.T, from string) string {
	t.Helper()
	to := filepath.Join(t.TempDir(), filepath.Base(from))
	if err := os.CopyFS(to, os.DirFS(from)); err != nil {
		t.Fatal(err)
	}
	return to
}

func TestBuildHomeAgentSource(t *testing.T) {
	src := copyDir(t, "testdata/ha_notes")
	before, err := Digest(src)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Build(context.Background(), Options{Src: src, Out: t.TempDir(), HearthSrc: hearthSrc(t)})
	if err != nil {
		t.Fatal(err)
	}
	if res.ID != "ha_notes" || res.Factory != "NewPlugin" || !slices.Equal(res.Capabilities, []string{"settings"}) {
		t.Fatalf("result %+v", res)
	}
	for _, f := range []string{"plugin.json", "ha_notes", PlgFile, RecordFile} {
		if _, err := os.Stat(filepath.Join(res.Dir, f)); err != nil {
			t.Error(err)
		}
	}
	after, _ := Digest(src)
	if after != before || res.Record.Digest != before {
		t.Fatalf("the source folder changed (%s, %s, %s)", before, after, res.Record.Digest)
	}
	entries, _ := os.ReadDir(src)
	if len(entries) != 3 {
		t.Fatalf("the build wrote into the source folder: %v", entries)
	}
	rec, err := ReadRecord(res.Dir)
	if err != nil || rec != res.Record {
		t.Fatalf("record %+v %v", rec, err)
	}
}

func TestBuildNewPluginFactoryOnly(t *testing.T) {
	src := copyDir(t, "testdata/ha_notes")
	code, _ := os.ReadFile(filepath.Join(src, "plugin.go"))
	os.WriteFile(filepath.Join(src, "plugin.go"), []byte(strings.Replace(string(code), "func NewPlugin(", "func NewPluginFactory(", 1)), 0o644)
	res, err := Build(context.Background(), Options{Src: src, Out: t.TempDir(), HearthSrc: hearthSrc(t)})
	if err != nil {
		t.Fatal(err)
	}
	if res.Factory != "NewPluginFactory" {
		t.Fatalf("factory %q", res.Factory)
	}
}

func TestBuildShowsCompilerError(t *testing.T) {
	_, err := Build(context.Background(), Options{Src: "testdata/broken", Out: t.TempDir(), HearthSrc: hearthSrc(t)})
	if !errors.Is(err, ErrCompile) || !strings.Contains(err.Error(), "undefinedThing") || !strings.Contains(err.Error(), "plugin.go:6") {
		t.Fatalf("got %v", err)
	}
}

func TestBuildMissingModule(t *testing.T) {
	src := copyDir(t, "testdata/ha_notes")
	code, _ := os.ReadFile(filepath.Join(src, "plugin.go"))
	code = []byte(strings.Replace(string(code), `"sync"`, "\"sync\"\n\t_ \"example.invalid/nowhere/pkg\"", 1))
	os.WriteFile(filepath.Join(src, "plugin.go"), code, 0o644)
	_, err := Build(context.Background(), Options{Src: src, Out: t.TempDir(), HearthSrc: hearthSrc(t)})
	if !errors.Is(err, ErrMissingModule) || !strings.Contains(err.Error(), "require every module") {
		t.Fatalf("got %v", err)
	}

	// A module the go.mod requires but the cache lacks is named.
	src = copyDir(t, "testdata/ha_notes")
	mod, _ := os.ReadFile(filepath.Join(src, "go.mod"))
	os.WriteFile(filepath.Join(src, "go.mod"), append(mod, "require example.invalid/nowhere v1.2.3\n"...), 0o644)
	os.WriteFile(filepath.Join(src, "plugin.go"), code, 0o644) // imports example.invalid/nowhere/pkg
	_, err = Build(context.Background(), Options{Src: src, Out: t.TempDir(), HearthSrc: hearthSrc(t)})
	if !errors.Is(err, ErrMissingModule) || !strings.Contains(err.Error(), "go mod download example.invalid/nowhere@v1.2.3") {
		t.Fatalf("got %v", err)
	}
}

func TestBuildRefuses(t *testing.T) {
	for _, c := range []struct {
		name, file, body, want string
	}{
		{"has main", "main.go", "package main\n\nfunc main() {}\n", "own main function"},
		{"no factory", "plugin.go", "package main\n\nfunc New() {}\n", "neither NewPlugin nor NewPluginFactory"},
		{"not main", "plugin.go", "package notes\n", "a HomeAgent plugin is package main"},
		{"bad id", PlgFile, `{"name":"Bad__Id"}`, "must be"},
		{"lua", PlgFile, `{"name":"lua_one","entry":"main.lua"}`, "Lua plugin"},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := copyDir(t, "testdata/ha_notes")
			if c.file == "plugin.go" {
				os.Remove(filepath.Join(src, "plugin.go"))
			}
			os.WriteFile(filepath.Join(src, c.file), []byte(c.body), 0o644)
			_, err := Build(context.Background(), Options{Src: src, Out: t.TempDir(), HearthSrc: hearthSrc(t)})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want %q", err, c.want)
			}
		})
	}
}

func TestIsSource(t *testing.T) {
	if !IsSource("testdata/ha_notes") || IsSource("testdata") {
		t.Fatal("IsSource")
	}
}

func FuzzParsePlg(f *testing.F) {
	b, _ := os.ReadFile("testdata/ha_notes/plg.json")
	f.Add(b)
	f.Add([]byte(`{"name":"ai_image","entry":"x.lua"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := ParsePlg("plg.json", b)
		if err == nil && !names.ValidID(p.Name) {
			t.Fatalf("accepted %q", p.Name)
		}
	})
}

func TestBuildEnvKeepsSecretsOut(t *testing.T) {
	env := buildEnv([]string{"PATH=/bin", "OPENAI_API_KEY=sk-secret", "GOCACHE=/c", "GOPROXY=https://proxy", "HEARTH_TOKEN=t", "GOOGLE_API_KEY=g-secret", "CGO_ENABLED=0"})
	got := strings.Join(env, " ")
	for _, want := range []string{"PATH=/bin", "GOCACHE=/c", "GOPROXY=off", "CGO_ENABLED=0", "GOFLAGS=-mod=mod"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %s in %s", want, got)
		}
	}
	if strings.Contains(got, "sk-secret") || strings.Contains(got, "g-secret") || strings.Contains(got, "HEARTH_TOKEN") || strings.Contains(got, "proxy") {
		t.Errorf("leaked: %s", got)
	}
}

func TestBuildWithoutGo(t *testing.T) {
	_, err := Build(context.Background(), Options{Src: "testdata/ha_notes", Out: t.TempDir(), HearthSrc: hearthSrc(t),
		Go: filepath.Join(t.TempDir(), "no-go-here")})
	if !errors.Is(err, ErrNoGo) {
		t.Fatalf("got %v", err)
	}
}

// On a fresh module cache the modules Hearth's own go.mod requires are
// named as what Hearth's SDK needs, not as the plugin's.
func TestBuildMissingSDKModuleIsHearths(t *testing.T) {
	src := copyDir(t, "testdata/ha_notes")
	env := append(os.Environ(), "GOMODCACHE="+t.TempDir(), "GOFLAGS=-modcacherw")
	_, err := Build(context.Background(), Options{Src: src, Out: t.TempDir(), HearthSrc: hearthSrc(t), Env: env})
	if !errors.Is(err, ErrMissingModule) || !strings.Contains(err.Error(), "Hearth's SDK needs ") ||
		strings.Contains(err.Error(), "the plugin needs") {
		t.Fatalf("got %v", err)
	}
}
