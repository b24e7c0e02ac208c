//go:build unix || windows

package search

import (
	"bufio"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestIndexHolderProcess is the writer of TestOpenIsExclusive when the
// test binary runs as a child: it opens the index in
// $HEARTH_TEST_INDEX_DIR, adds a document, flushes, says so, and keeps
// the index open until its stdin closes (or it is killed).
func TestIndexHolderProcess(t *testing.T) {
	dir := os.Getenv("HEARTH_TEST_INDEX_DIR")
	if dir == "" {
		t.Skip("the child of TestOpenIsExclusive")
	}
	x, err := Open(dir)
	if err != nil {
		os.Stdout.WriteString("error: " + err.Error() + "\n")
		os.Exit(1)
	}
	x.Add("child", "written by the child process")
	if err := x.Flush(); err != nil {
		os.Stdout.WriteString("error: " + err.Error() + "\n")
		os.Exit(1)
	}
	os.Stdout.WriteString("open\n")
	io.Copy(io.Discard, os.Stdin)
	x.Close()
	os.Exit(0)
}

// holdIndex starts a child process that opens the index in dir and keeps
// it open until the returned stdin is closed.
func holdIndex(t *testing.T, dir string) (*exec.Cmd, io.WriteCloser) {
	t.Helper()
	child := exec.Command(os.Args[0], "-test.run=^TestIndexHolderProcess$")
	child.Env = append(os.Environ(), "HEARTH_TEST_INDEX_DIR="+dir)
	child.Stderr = os.Stderr
	stdin, err := child.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); child.Wait() })
	if line, err := bufio.NewReader(stdout).ReadString('\n'); line != "open\n" {
		t.Fatalf("child: %q %v", line, err)
	}
	return child, stdin
}

// TestOpenIsExclusive checks that a second writer of an index folder is
// refused with ErrInUse while a first one, in another process or in this
// one, has it open, that Load still reads it, and that the folder is free
// again once the holder closes it or is killed.
func TestOpenIsExclusive(t *testing.T) {
	dir := t.TempDir()
	child, stdin := holdIndex(t, dir)
	if x, err := Open(dir); !errors.Is(err, ErrInUse) {
		if x != nil {
			x.Close()
		}
		t.Fatalf("Open while another process has the folder = %v, want ErrInUse", err)
	}
	y, err := Load(dir)
	if err != nil || len(y.Search("child", 1)) != 1 {
		t.Fatalf("Load beside the writer: %v", err)
	}
	stdin.Close()
	if err := child.Wait(); err != nil {
		t.Fatal(err)
	}

	x, err := Open(dir)
	if err != nil {
		t.Fatalf("Open after the writer closed: %v", err)
	}
	if got := x.Search("child", 1); len(got) != 1 {
		t.Fatalf("the child's document: %v", got)
	}
	if _, err := Open(dir); !errors.Is(err, ErrInUse) {
		t.Fatalf("a second Open in this process = %v, want ErrInUse", err)
	}
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}

	// A writer killed without closing leaves no lock behind.
	child, _ = holdIndex(t, dir)
	if err := child.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	child.Wait()
	x, err = Open(dir)
	if err != nil {
		t.Fatalf("Open after the writer was killed: %v", err)
	}
	x.Close()
}

// TestOpenRemovesStaleTemporaryFiles: a snapshot whose writing a crash
// cut short leaves a temporary file, which the next Open removes.
func TestOpenRemovesStaleTemporaryFiles(t *testing.T) {
	dir := t.TempDir()
	stale := filepath.Join(dir, "."+snapName+".123.tmp")
	if err := os.WriteFile(stale, []byte("half a snapshot"), 0o600); err != nil {
		t.Fatal(err)
	}
	x, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Fatalf("stale temporary file: %v", err)
	}
}
