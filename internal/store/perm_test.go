//go:build unix

package store

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// The database, its WAL and SHM files and the directory are private to
// the user whatever the umask.
func TestFilesArePrivate(t *testing.T) {
	old := syscall.Umask(0)
	defer syscall.Umask(old)
	dir := filepath.Join(t.TempDir(), "data")
	s, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.AppendAudit(context.Background(), AuditEntry{At: time.Now(), Tool: "x__y"}); err != nil {
		t.Fatal(err)
	}
	want := map[string]os.FileMode{dir: 0o700, s.Path(): 0o600, s.Path() + "-wal": 0o600, s.Path() + "-shm": 0o600}
	for path, mode := range want {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != mode {
			t.Errorf("%s: mode %04o, want %04o", filepath.Base(path), got, mode)
		}
	}
}

// A database left readable by others is made private when opened.
func TestLooseDatabaseIsTightened(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	for _, p := range []string{s.Path(), s.Path() + "-wal"} {
		if err := os.WriteFile(p, nil, 0o644); err != nil && !os.IsExist(err) {
			t.Fatal(err)
		}
		if err := os.Chmod(p, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, err = Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, p := range []string{s.Path(), s.Path() + "-wal"} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != 0o600 {
			t.Errorf("%s: mode %04o, want 0600", filepath.Base(p), got)
		}
	}
}
