package logfile

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
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

// records reads the records in dir's log files, oldest file first.
func records(t *testing.T, dir, base string) []string {
	t.Helper()
	var out []string
	for i := 200; i >= 0; i-- {
		name := filepath.Join(dir, base)
		if i > 0 {
			name = fmt.Sprintf("%s.%d", name, i)
		}
		b, err := os.ReadFile(name)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, strings.SplitAfter(string(b), "\n")...)
	}
	return slices.DeleteFunc(out, func(s string) bool { return s == "" })
}

// A move that fails during a rotation leaves the younger files where they
// are: the log goes on in hearth.log, and hearth.log.1 is not written
// over by it.
func TestFailedMoveOverwritesNothing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "hearth.log")
	fsys := &faultFS{}
	l, err := openFS(path, 100, 3, fsys)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for i := range 12 { // two files' worth: hearth.log.1 and hearth.log
		fmt.Fprintf(l, "record %02d %s\n", i, strings.Repeat("x", 8))
	}
	before, _ := os.ReadFile(path + ".1")
	fsys.set(func(op, name string) bool { return op == "rename" && name == "hearth.log.1" })
	for i := 12; i < 20; i++ {
		line := fmt.Sprintf("record %02d %s\n", i, strings.Repeat("x", 8))
		if n, err := l.Write([]byte(line)); err != nil || n != len(line) {
			t.Fatalf("write %d with the move failing: %d, %v", i, n, err)
		}
	}
	if after, _ := os.ReadFile(path + ".1"); !bytes.Equal(after, before) {
		t.Fatalf("hearth.log.1 changed while it could not be moved:\nbefore %q\nafter  %q", before, after)
	}
	last, _ := os.ReadFile(path)
	if !bytes.HasSuffix(last, []byte("record 19 xxxxxxxx\n")) {
		t.Fatalf("the log did not go on in hearth.log: %q", last)
	}
}

// Under faults in every kind of file operation, every record a Write
// took (returned no error for) is in the files, in order, and once the
// faults stop the log works again: a failed write loses only its own
// record, and says so.
func TestFaultsLoseNoTakenRecord(t *testing.T) {
	for _, op := range []string{"open", "stat", "remove", "rename", "write"} {
		t.Run(op, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "hearth.log")
			fsys := &faultFS{}
			l, err := openFS(path, 120, 100, fsys) // enough files that rotation drops none
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			rnd := rand.New(rand.NewPCG(1, uint64(len(op))))
			var n int
			fsys.set(func(o, _ string) bool { // a third of the operations of the kind fail
				if o != op || rnd.IntN(3) != 0 {
					return false
				}
				n++
				return true
			})
			var taken []string
			failed := 0
			for i := range 300 {
				line := fmt.Sprintf("record %03d %s\n", i, strings.Repeat("x", i%20))
				if _, err := l.Write([]byte(line)); err != nil {
					if !errors.Is(err, errInjected) {
						t.Fatalf("write %d: %v, want the injected fault", i, err)
					}
					failed++
					continue
				}
				taken = append(taken, line)
			}
			if n == 0 {
				t.Fatalf("no %s fault was injected", op)
			}
			fsys.set(nil)
			line := "after the faults\n"
			if _, err := l.Write([]byte(line)); err != nil {
				t.Fatalf("the log does not recover: %v", err)
			}
			taken = append(taken, line)
			if got := records(t, dir, "hearth.log"); !slices.Equal(got, taken) {
				t.Fatalf("%d records taken, %d in the files (%d writes failed)\nfiles: %q", len(taken), len(got), failed, got)
			}
		})
	}
}
