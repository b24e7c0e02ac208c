//go:build unix

package datadir

import (
	"bufio"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// TestLockHolderProcess is the holder of TestRemovedLockFileLetsNoSecondOwnerIn
// when the test binary runs as a child: it takes the lock of
// $HEARTH_TEST_LOCK_DIR, says so, and keeps it until its stdin closes.
func TestLockHolderProcess(t *testing.T) {
	dir := os.Getenv("HEARTH_TEST_LOCK_DIR")
	if dir == "" {
		t.Skip("the child of TestRemovedLockFileLetsNoSecondOwnerIn")
	}
	l, err := Acquire(dir)
	if err != nil {
		os.Stdout.WriteString("error: " + err.Error() + "\n")
		os.Exit(1)
	}
	os.Stdout.WriteString("locked\n")
	io.Copy(io.Discard, os.Stdin)
	l.Release()
	os.Exit(0)
}

// Removing hearth.lock, or replacing it, while a Hearth holds the lock
// (a user taking it for a stale lock) lets no second process own the data
// directory; the refusal still names the holder.
func TestRemovedLockFileLetsNoSecondOwnerIn(t *testing.T) {
	dir := t.TempDir()
	owner := exec.Command(os.Args[0], "-test.run=^TestLockHolderProcess$")
	owner.Env = append(os.Environ(), "HEARTH_TEST_LOCK_DIR="+dir)
	owner.Stderr = os.Stderr
	stdin, err := owner.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := owner.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := owner.Start(); err != nil {
		t.Fatal(err)
	}
	defer owner.Wait()
	defer stdin.Close()
	if line, err := bufio.NewReader(stdout).ReadString('\n'); line != "locked\n" {
		t.Fatalf("holder: %q %v", line, err)
	}
	path := filepath.Join(dir, LockFile)

	refused := func(what string) {
		t.Helper()
		l, err := Acquire(dir)
		if err == nil {
			l.Release()
			t.Fatalf("%s: a second process took the lock", what)
		}
		var busy *LockedError
		if !errors.As(err, &busy) {
			t.Fatalf("%s: %v, want a *LockedError", what, err)
		}
		// Only Linux tells who holds a lock whose file is gone.
		if runtime.GOOS == "linux" && busy.PID != owner.Process.Pid {
			t.Fatalf("%s: refused naming pid %d, want the holder's %d", what, busy.PID, owner.Process.Pid)
		}
	}
	refused("with the lock file")
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	refused("after the lock file was removed")
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("a refused Acquire re-created the lock file: %v", err)
	}
	if err := os.WriteFile(path, []byte("1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	refused("after the lock file was replaced")

	stdin.Close()
	if err := owner.Wait(); err != nil {
		t.Fatal(err)
	}
	l, err := Acquire(dir)
	if err != nil {
		t.Fatalf("after the holder ended: %v", err)
	}
	defer l.Release()
	if got := pidInFile(dir); got != os.Getpid() {
		t.Fatalf("hearth.lock holds %d, want %d", got, os.Getpid())
	}
}
