package logfile

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// files returns the names and sizes of the files in dir.
func files(t *testing.T, dir string) map[string]int64 {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int64{}
	for _, e := range entries {
		fi, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = fi.Size()
	}
	return out
}

func TestRotationKeepsAtMostNFilesOfAtMostTheCap(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "hearth.log")
	const maxBytes = 1000
	l, err := Open(path, maxBytes, 3)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for i := range 500 {
		line := fmt.Sprintf("record %d %s\n", i, strings.Repeat("x", i%50))
		if n, err := l.Write([]byte(line)); err != nil || n != len(line) {
			t.Fatalf("write %d: %d, %v", i, n, err)
		}
	}
	got := files(t, dir)
	names := make([]string, 0, len(got))
	for n, size := range got {
		names = append(names, n)
		if size > maxBytes || size == 0 {
			t.Errorf("%s has %d bytes, cap %d", n, size, maxBytes)
		}
	}
	slices.Sort(names)
	if want := []string{"hearth.log", "hearth.log.1", "hearth.log.2"}; !slices.Equal(names, want) {
		t.Fatalf("files %v, want %v", names, want)
	}
	last, _ := os.ReadFile(path)
	if !bytes.HasSuffix(last, []byte("record 499 "+strings.Repeat("x", 499%50)+"\n")) {
		t.Fatalf("the newest record is not at the end of hearth.log: %q", last)
	}
	prev, _ := os.ReadFile(path + ".1")
	if !bytes.HasPrefix(prev, []byte("record ")) || !bytes.HasSuffix(prev, []byte("\n")) {
		t.Fatalf("hearth.log.1 does not hold whole records: %q", prev)
	}
}

func TestOversizedRecordIsCut(t *testing.T) {
	dir := t.TempDir()
	l, err := Open(filepath.Join(dir, "hearth.log"), 100, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	huge := strings.Repeat("y", 10_000) + "\n"
	if n, err := l.Write([]byte(huge)); err != nil || n != len(huge) {
		t.Fatal(n, err)
	}
	l.Write([]byte("after\n"))
	for name, size := range files(t, dir) {
		if size > 100 {
			t.Errorf("%s: %d bytes", name, size)
		}
	}
}

// Two writers on one path, as two Hearth processes would be: neither
// makes a file grow past the cap, and no more files appear.
func TestTwoWritersShareTheCap(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "hearth.log")
	a, err := Open(path, 500, 3)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := Open(path, 500, 3)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for i := range 300 {
		w := a
		if i%3 == 0 {
			w = b
		}
		fmt.Fprintf(w, "writer record %03d\n", i)
	}
	got := files(t, dir)
	if len(got) != 3 {
		t.Fatalf("files %v", got)
	}
	for name, size := range got {
		if size > 500 {
			t.Errorf("%s: %d bytes", name, size)
		}
	}
	last, _ := os.ReadFile(path)
	if !bytes.HasSuffix(last, []byte("writer record 299\n")) {
		t.Fatalf("hearth.log ends %q", last[max(0, len(last)-40):])
	}
}

func TestModeIsPrivate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hearth.log")
	l, err := Open(path, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, %v", fi.Mode(), err)
	}
}
