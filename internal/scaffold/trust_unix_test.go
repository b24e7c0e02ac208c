//go:build unix

package scaffold

import (
	"os"
	"path/filepath"
	"testing"
)

// writeCheckout makes dir look like a Hearth checkout: a go.mod naming
// Hearth's module, which is all FindHearthSrc looks at.
func writeCheckout(t *testing.T, dir string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	gomod := filepath.Join(dir, "go.mod")
	if err := os.WriteFile(gomod, []byte("module "+HearthModule+"\n\ngo 1.26.0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(gomod, mode); err != nil {
		t.Fatal(err)
	}
}

// TestFindHearthSrcPassesOverSharedFolders: a hearth run with `go run`
// lives in /tmp/go-build.../exe, and FindHearthSrc walks up from there.
// A go.mod that another user put in a folder anyone may write (/tmp is
// one) must not be taken for the checkout: Hearth would build and run
// that user's cmd/hearth-soload. The user's own checkout is still found.
func TestFindHearthSrcPassesOverSharedFolders(t *testing.T) {
	root := t.TempDir()
	shared := filepath.Join(root, "tmp")
	writeCheckout(t, shared, 0o644)
	if err := os.Chmod(shared, 0o1777); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(shared, "go-build123", "b001", "exe")
	if err := os.MkdirAll(exe, 0o700); err != nil {
		t.Fatal(err)
	}
	own := filepath.Join(root, "src", "hearth")
	writeCheckout(t, own, 0o644)
	if got := FindHearthSrc(exe); got != "" {
		t.Errorf("FindHearthSrc found %s, a folder anyone may write", got)
	}
	if got := FindHearthSrc(exe, own); got != own {
		t.Errorf("FindHearthSrc = %q, want the user's checkout %s", got, own)
	}

	// A go.mod anyone may write, in a folder of the user's.
	loose := filepath.Join(root, "loose")
	writeCheckout(t, loose, 0o666)
	if got := FindHearthSrc(loose); got != "" {
		t.Errorf("FindHearthSrc found %s, whose go.mod anyone may write", got)
	}

	// A folder of another user's (only root can make one here).
	if os.Getuid() != 0 {
		return
	}
	theirs := filepath.Join(root, "theirs")
	writeCheckout(t, theirs, 0o644)
	for _, p := range []string{theirs, filepath.Join(theirs, "go.mod")} {
		if err := os.Chown(p, 65534, 65534); err != nil {
			t.Fatal(err)
		}
	}
	if got := FindHearthSrc(theirs); got != "" {
		t.Errorf("FindHearthSrc found %s, another user's", got)
	}
}
