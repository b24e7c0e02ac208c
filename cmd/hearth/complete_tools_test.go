package main

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// `hearth policy set <TAB>` completes the tools the data directory has
// seen; before any run there are none, and completing creates nothing.
func TestCompletionOfToolNames(t *testing.T) {
	home := filepath.Join(t.TempDir(), "h")
	env := []string{"HEARTH_HOME=" + home}
	if out, _, code := hearth(t, env, "", "__complete", "policy", "set", ""); code != 0 || out != "" {
		t.Fatalf("before any run: %d %q", code, out)
	}
	if _, err := os.Stat(home); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("completing made the data directory: %v", err)
	}
	if _, errOut, code := hearth(t, env, "", "tools"); code != 0 {
		t.Fatalf("tools: %q", errOut)
	}
	for _, words := range [][]string{{"policy", "set", "ti"}, {"policy", "reset", "time__"}, {"--data-dir", home, "policy", "set", "t"}} {
		if out, _, code := hearth(t, []string{"HEARTH_HOME=" + t.TempDir()}, "", append([]string{"__complete"}, words...)...); words[0] == "--data-dir" && (code != 0 || out != "time__now\n") {
			t.Fatalf("complete %q: %d %q", words, code, out)
		}
		if out, _, code := hearth(t, env, "", append([]string{"__complete"}, words...)...); code != 0 || out != "time__now\n" {
			t.Fatalf("complete %q: %d %q", words, code, out)
		}
	}
}
