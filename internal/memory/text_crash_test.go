package memory

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/hearth-agent/hearth/internal/scope"
)

// The test binary is also the child that TestTextMoveKilledMidway kills:
// with HEARTH_TEXT_CRASH_CHILD set to "<step> <dir>", it opens the text
// memory in dir, which merges the old day files there, and stops at the
// merge's step, saying so on stdout.
func TestMain(m *testing.M) {
	if arg := os.Getenv("HEARTH_TEXT_CRASH_CHILD"); arg != "" {
		var step, dir string
		fmt.Sscan(arg, &step, &dir)
		inMove = func(s string) {
			if s == step {
				fmt.Println(s)
				select {} // until killed
			}
		}
		if _, err := NewText(dir); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// writeOldDays writes a day file as an earlier Hearth did (at the
// folder's top) and the global scope's file of the same day.
func writeOldDays(t *testing.T, dir string) {
	t.Helper()
	old := `{"role":"user","content":"old 1","timestamp":1}` + "\n" + `{"role":"user","content":"old 2","timestamp":2}` + "\n"
	if err := os.WriteFile(filepath.Join(dir, "2026-11-30.jsonl"), []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "global"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "global", "2026-11-30.jsonl"), []byte(`{"role":"user","content":"new","timestamp":3,"scope":"global","writer":""}`), 0o600); err != nil {
		t.Fatal(err) // its last line cut short of its newline
	}
}

// A process killed in the middle of merging an old day file into the
// global scope's loses no line and doubles none: the next start finishes
// the merge, at whichever step it stopped.
func TestTextMoveKilledMidway(t *testing.T) {
	for _, step := range []string{"merged", "removed"} {
		t.Run(step, func(t *testing.T) {
			dir := t.TempDir()
			writeOldDays(t, dir)
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), "HEARTH_TEXT_CRASH_CHILD="+step+" "+dir)
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			cmd.Stderr = os.Stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			sc := bufio.NewScanner(out)
			said := ""
			if sc.Scan() {
				said = sc.Text()
				cmd.Process.Kill() // SIGKILL: no deferred code
			}
			cmd.Wait()
			if said != step {
				t.Fatalf("the child said %q, want %q", said, step)
			}

			m, err := NewText(dir)
			if err != nil {
				t.Fatal(err)
			}
			got, err := m.Read(scope.For("", "", false), "2026-11-30")
			if want := []string{"new", "old 1", "old 2"}; err != nil || !slices.Equal(contents(got), want) {
				t.Fatalf("after the restart: %q %v, want %q", contents(got), err, want)
			}
			if left, _ := filepath.Glob(filepath.Join(dir, "*.jsonl")); len(left) != 0 {
				t.Fatalf("left at the top: %v", left)
			}
			if left, _ := os.ReadDir(filepath.Join(dir, "global")); len(left) != 1 {
				t.Fatalf("global holds %v", left)
			}
		})
	}
}

// A temporary file of a merged file a crash cut short while it was
// written is removed, and the merge done again.
func TestTextMoveCutWhileWriting(t *testing.T) {
	dir := t.TempDir()
	writeOldDays(t, dir)
	tmp := filepath.Join(dir, "global", ".2026-11-30.jsonl.merged.42.tmp")
	if err := os.WriteFile(tmp, []byte(`{"role":"user","content":"new"`), 0o600); err != nil {
		t.Fatal(err)
	}
	m, err := NewText(dir)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := m.Read(scope.For("", "", false), "2026-11-30")
	if want := []string{"new", "old 1", "old 2"}; !slices.Equal(contents(got), want) {
		t.Fatalf("%q, want %q", contents(got), want)
	}
	if left, _ := os.ReadDir(filepath.Join(dir, "global")); len(left) != 1 {
		t.Fatalf("global holds %v", left)
	}
}
