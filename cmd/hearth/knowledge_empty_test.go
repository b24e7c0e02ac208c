package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// `hearth knowledge add NAME` with nothing on stdin (a script that
// forgot the file, `< /dev/null`) must not replace an entry with an
// empty one: it refuses and the entry stays.
func TestKnowledgeAddRefusesEmptyText(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	p := filepath.Join(home, "knowledge", "recipes", "soup.md")
	os.MkdirAll(filepath.Dir(p), 0o700)
	if err := os.WriteFile(p, []byte("# Soup\nwinter melon and ribs"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"HEARTH_HOME=" + home}
	for _, args := range [][]string{{"add", "recipes/soup"}, {"add", "recipes/soup", "-"}, {"add", "recipes/new"}} {
		out, errOut, code := hearthIn(t, work, env, "  \n", append([]string{"knowledge"}, args...)...)
		if code == 0 || !strings.Contains(errOut, "empty") {
			t.Fatalf("knowledge %q with empty stdin = %d %q %q", args, code, out, errOut)
		}
	}
	if b, err := os.ReadFile(p); err != nil || string(b) != "# Soup\nwinter melon and ribs" {
		t.Fatalf("the entry is now %q, %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(home, "knowledge", "recipes", "new.md")); !os.IsNotExist(err) {
		t.Fatalf("an empty entry was created: %v", err)
	}
}
