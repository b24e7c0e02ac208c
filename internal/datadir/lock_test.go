package datadir

import (
	"errors"
	"os"
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
