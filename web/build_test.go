package web

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
)

// TestBuildUpToDate rebuilds the UI into a temporary folder and fails when
// the committed dist/ differs: run `npm ci --prefix web && node
// web/build.mjs` and commit dist/.
func TestBuildUpToDate(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed; CI (.ci/run) has it")
	}
	if _, err := os.Stat("node_modules/esbuild"); err != nil {
		t.Skip("web/node_modules is missing: run `npm ci --prefix web` (.ci/run does)")
	}
	out := t.TempDir()
	cmd := exec.Command(node, "build.mjs", out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("node build.mjs: %v\n%s", err, b)
	}
	want := files(t, os.DirFS(out))
	got := files(t, FS())
	for name, w := range want {
		if g, ok := got[name]; !ok {
			t.Errorf("dist/%s is missing", name)
		} else if !bytes.Equal(g, w) {
			t.Errorf("dist/%s differs from a fresh build", name)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("dist/%s is not in a fresh build", name)
		}
	}
	if t.Failed() {
		t.Log("the committed web/dist is stale: run `node web/build.mjs` and commit web/dist")
	}
}

func files(t *testing.T, fsys fs.FS) map[string][]byte {
	t.Helper()
	m := map[string][]byte{}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(fsys, p)
		m[filepath.ToSlash(p)] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestIndexNamesItsAssets checks that index.html loads files that are
// embedded, and has no inline script (the CSP would refuse it).
func TestIndexNamesItsAssets(t *testing.T) {
	index, err := fs.ReadFile(FS(), "index.html")
	if err != nil {
		t.Fatal(err)
	}
	refs := regexp.MustCompile(`(?:src|href)="/(assets/[^"]+)"`).FindAllSubmatch(index, -1)
	if len(refs) != 2 {
		t.Fatalf("index.html names %d assets, want 2 (the JS and the CSS)", len(refs))
	}
	for _, r := range refs {
		if _, err := fs.Stat(FS(), string(r[1])); err != nil {
			t.Errorf("index.html names %s: %v", r[1], err)
		}
	}
	if regexp.MustCompile(`<script(?:\s[^>]*)?>\s*[^<\s]`).Match(index) {
		t.Error("index.html has an inline script")
	}
}
