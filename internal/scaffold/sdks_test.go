package scaffold

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	tssdk "github.com/hearth-agent/hearth/sdk/typescript"
)

func TestProvideWritesOnceAndResolves(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data dir") // a space survives NODE_OPTIONS
	root, err := Provide(data)
	if err != nil {
		t.Fatal(err)
	}
	if root != filepath.Join(data, "sdk", Version()) {
		t.Fatalf("root %s", root)
	}
	for _, f := range []string{"hook.mjs", "resolve.mjs", "python/hearth_plugin.py",
		"node_modules/@hearth-agent/plugin-sdk/index.js", "node_modules/zod/index.js", "node_modules/zod/LICENSE"} {
		if _, err := os.Stat(filepath.Join(root, f)); err != nil {
			t.Error(err)
		}
	}
	// Private, like the rest of the data folder.
	filepath.WalkDir(filepath.Join(data, "sdk"), func(p string, d os.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		info, _ := d.Info()
		if want := map[bool]os.FileMode{true: 0o700, false: 0o600}[d.IsDir()]; info.Mode().Perm() != want {
			t.Errorf("%s: mode %v", p, info.Mode().Perm())
		}
		return nil
	})
	if again, err := Provide(data); err != nil || again != root {
		t.Fatalf("again: %s %v", again, err)
	}
	// A new process (an empty cache) finds the folder written.
	delete(provided, data)
	if again, err := Provide(data); err != nil || again != root {
		t.Fatalf("after restart: %s %v", again, err)
	}
	entries, _ := os.ReadDir(filepath.Join(data, "sdk"))
	if len(entries) != 1 {
		t.Fatalf("sdk folder holds %d entries", len(entries))
	}

	// A script anywhere resolves both SDKs by name with Env.
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.mjs"), []byte(`import { SDK_VERSION, z } from '@hearth-agent/plugin-sdk';
console.log(SDK_VERSION, z.string().parse('ok'));`), 0o644)
	os.WriteFile(filepath.Join(dir, "a.py"), []byte("import hearth_plugin\nprint(hearth_plugin.__name__)\n"), 0o644)
	for _, c := range []struct {
		prog, file, want string
	}{{"node", "a.mjs", "0.1.0 ok"}, {"python3", "a.py", "hearth_plugin"}} {
		cmd := exec.Command(c.prog, c.file)
		cmd.Dir = dir
		cmd.Env = append([]string{"PATH=" + os.Getenv("PATH")}, Env(root)...)
		out, err := cmd.CombinedOutput()
		if err != nil || strings.TrimSpace(string(out)) != c.want {
			t.Errorf("%s: %v %q", c.prog, err, out)
		}
	}
}

func TestHearthRequires(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module m\n\ngo 1.26.0\n\nrequire a.example/x v1.0.0\n\nrequire (\n\tb.example/y v0.2.0 // indirect\n\n\tc.example/z v0.3.0\n)\n"), 0o644)
	got, err := hearthRequires(dir)
	want := "\ta.example/x v1.0.0 // indirect\n\tb.example/y v0.2.0 // indirect\n\tc.example/z v0.3.0 // indirect\n"
	if err != nil || got != want {
		t.Fatalf("%q %v", got, err)
	}
	if _, err := hearthGoVersion(dir); err == nil || !strings.Contains(err.Error(), "not a Hearth checkout") {
		t.Fatalf("module m taken for Hearth: %v", err)
	}
	if FindHearthSrc(dir, "") == dir {
		t.Fatal("found a checkout that is not Hearth")
	}
	if src := FindHearthSrc("."); src == "" || FindHearthSrc(BuiltFrom()) != src {
		t.Fatalf("this checkout: found %q from internal/scaffold, built from %q", src, BuiltFrom())
	}
}

// The checkout's go.mod is read from a folder the user names.
func FuzzHearthRequires(f *testing.F) {
	f.Add("module github.com/hearth-agent/hearth\ngo 1.26.0\nrequire (\n a v1\n)\n")
	f.Add("require (\nrequire x\n)")
	f.Fuzz(func(t *testing.T, gomod string) {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644)
		hearthRequires(dir)
		hearthGoVersion(dir)
	})
}

// The zod carried with the SDK is the version the SDK's package.json pins.
func TestBundledZodIsPinned(t *testing.T) {
	var pkg struct {
		Version      string            `json:"version"`
		Dependencies map[string]string `json:"dependencies"`
	}
	read := func(name string) {
		t.Helper()
		b, err := tssdk.Files.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		pkg.Version = ""
		if err := json.Unmarshal(b, &pkg); err != nil {
			t.Fatal(err)
		}
	}
	read("package.json")
	want := pkg.Dependencies["zod"]
	read("bundled/zod/package.json")
	if want == "" || pkg.Version != want {
		t.Fatalf("bundled zod %s, package.json wants %s: refresh sdk/typescript/bundled (its README)", pkg.Version, want)
	}
}
