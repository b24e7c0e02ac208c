package atomicfile

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config.json")
	for _, data := range []string{"first", "second, longer", ""} {
		if err := WriteFile(path, []byte(data)); err != nil {
			t.Fatal(err)
		}
		if got, err := os.ReadFile(path); err != nil || string(got) != data {
			t.Fatalf("read %q %v, want %q", got, err, data)
		}
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", fi.Mode())
	}
	if left, _ := os.ReadDir(dir); len(left) != 1 {
		t.Fatalf("files left: %v", left)
	}

	// A failed write (the path is a folder: the rename fails) leaves
	// nothing behind and the folder as it was.
	sub := filepath.Join(dir, "sub")
	if err := os.MkdirAll(filepath.Join(sub, "x"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(sub, []byte("data")); err == nil {
		t.Fatal("writing over a non-empty folder succeeded")
	}
	if err := WriteFile(filepath.Join(dir, "missing", "f"), []byte("data")); err == nil {
		t.Fatal("writing into a missing folder succeeded")
	}
	if left, _ := os.ReadDir(dir); len(left) != 2 {
		t.Fatalf("files left after failures: %v", left)
	}
}

func TestStale(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "index.snap")
	for _, name := range []string{".index.snap.123.tmp", ".index.snap.9.tmp", ".other.snap.1.tmp", "index.snap", ".index.snap.tmpx"} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{filepath.Join(dir, ".index.snap.123.tmp"), filepath.Join(dir, ".index.snap.9.tmp")}
	if got := Stale(path); !slices.Equal(got, want) {
		t.Fatalf("Stale = %v, want %v", got, want)
	}
}
