//go:build unix

package datadir

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func mode(t *testing.T, path string) os.FileMode {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

func TestSecureCreatesPrivate(t *testing.T) {
	old := syscall.Umask(0)
	defer syscall.Umask(old)
	dir := filepath.Join(t.TempDir(), "a", "data")
	fixed, err := Secure(dir)
	if err != nil || len(fixed) != 0 {
		t.Fatalf("Secure = %v, %v", fixed, err)
	}
	if m := mode(t, dir); m != 0o700 {
		t.Fatalf("new data directory mode %04o", m)
	}
}

func TestSecureTightensOnce(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o755)
	files := map[string]os.FileMode{"hearth.db": 0o644, "hearth.db-wal": 0o664, "config.json": 0o604, "hearth.log": 0o600}
	for name, m := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, nil, m); err != nil {
			t.Fatal(err)
		}
		os.Chmod(p, m)
	}
	os.Symlink("/etc/hostname", filepath.Join(dir, "link"))
	fixed, err := Secure(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(fixed) != 4 { // the directory and three files; the log was private
		t.Fatalf("tightened %v", fixed)
	}
	if m := mode(t, dir); m != 0o700 {
		t.Errorf("directory %04o", m)
	}
	for name := range files {
		if m := mode(t, filepath.Join(dir, name)); m != 0o600 {
			t.Errorf("%s: %04o", name, m)
		}
	}
	if fixed, err := Secure(dir); err != nil || len(fixed) != 0 {
		t.Fatalf("second Secure = %v, %v; want nothing to do", fixed, err)
	}
}
