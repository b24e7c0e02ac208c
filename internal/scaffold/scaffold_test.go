package scaffold

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestNewGoCheckoutPathWithSpaces: a Go plugin written against a checkout
// whose path holds a space ("My Projects" on macOS) or other characters
// go.mod quotes has a go.mod the go command reads, whose replace points
// at that checkout.
func TestNewGoCheckoutPathWithSpaces(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	for _, name := range []string{"My Projects", "it's (mine)", "a,b[1]", "tab\there"} {
		src := filepath.Join(t.TempDir(), name, "hearth")
		if err := os.MkdirAll(src, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{"go.mod", "go.sum"} {
			b, err := os.ReadFile(filepath.Join("..", "..", f))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(src, f), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		dir := filepath.Join(t.TempDir(), "spaced")
		if _, err := New(Options{ID: "spaced", Lang: "go", Dir: dir, HearthSrc: src}); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("go", "mod", "edit", "-json")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=", "GOPROXY=off", "GOTOOLCHAIN=local")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("checkout %q: the plugin's go.mod does not parse: %v\n%s", src, err, out)
		}
		var mod struct {
			Replace []struct{ New struct{ Path string } }
		}
		if err := json.Unmarshal(out, &mod); err != nil {
			t.Fatal(err)
		}
		if len(mod.Replace) != 1 || mod.Replace[0].New.Path != filepath.Clean(src) {
			t.Fatalf("checkout %q: replace %+v", src, mod.Replace)
		}
	}
}

// A reserved id is refused before anything is written: a plugin of that
// name would never load.
func TestNewRefusesReservedID(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "p")
	_, err := New(Options{ID: "memory", Lang: "python", Dir: dir})
	if err == nil || !strings.Contains(err.Error(), "reserved for Hearth itself") {
		t.Fatalf("err %v", err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("%s was written: %v", dir, err)
	}
}
