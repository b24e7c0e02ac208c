package datadir

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestLockIsExclusiveAndReleased(t *testing.T) {
	dir := t.TempDir()
	l, err := Acquire(dir)
	if err != nil {
		t.Fatal(err)
	}
	// A second open file description conflicts even in this process.
	_, err = Acquire(dir)
	var busy *LockedError
	if !errors.As(err, &busy) || !errors.Is(err, ErrLocked) || busy.PID != os.Getpid() || busy.Dir != dir {
		t.Fatalf("second Acquire = %v", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "another Hearth (pid "+strconv.Itoa(os.Getpid())+") is using "+dir) {
		t.Fatalf("message %q", msg)
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	l, err = Acquire(dir)
	if err != nil {
		t.Fatalf("after Release: %v", err)
	}
	l.Release()
}

func TestExclusive(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.lock")
	f, held, err := Exclusive(path)
	if err != nil || !held {
		t.Fatalf("Exclusive = %v %v", held, err)
	}
	// A second open file description conflicts even in this process.
	if g, held, err := Exclusive(path); err != nil || held || g != nil {
		t.Fatalf("second Exclusive = %v %v %v", g, held, err)
	}
	f.Close()
	g, held, err := Exclusive(path)
	if err != nil || !held {
		t.Fatalf("after Close: %v %v", held, err)
	}
	g.Close()
	if _, _, err := Exclusive(filepath.Join(t.TempDir(), "missing", "x.lock")); err == nil {
		t.Fatal("Exclusive in a missing folder succeeded")
	}
}
