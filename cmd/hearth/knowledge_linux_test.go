package main

import (
	"os"
	"path/filepath"
	"testing"
)

// hearth knowledge add NAME on a terminal says how to end the text
// before it waits for it; Ctrl-D ends it.
func TestKnowledgeAddFromATerminal(t *testing.T) {
	home := t.TempDir()
	cmd, ptmx, scr, copied := startPTY(t, []string{"HOME=" + home, "HEARTH_HOME=" + home}, "knowledge", "add", "note")
	scr.waitFor(t, "end with Ctrl-D")
	send := typer(t, ptmx)
	send("# Note\nbring tea\n")
	send("\x04")
	waitExit(t, cmd, scr, copied)
	scr.waitFor(t, "added note")
	if b, err := os.ReadFile(filepath.Join(home, "knowledge", "note.md")); err != nil || string(b) != "# Note\nbring tea\n" {
		t.Fatalf("the entry is %q, %v:\n%s", b, err, scr.String())
	}
}
