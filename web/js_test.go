package web

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestJSUnit runs the UI's JavaScript unit tests (test/*.test.mjs) with
// node's test runner.
func TestJSUnit(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed; CI (.ci/run) has it")
	}
	if _, err := os.Stat("node_modules/preact"); err != nil {
		t.Skip("web/node_modules is missing: run `npm ci --prefix web` (.ci/run does)")
	}
	files, err := filepath.Glob("test/*.test.mjs")
	if err != nil || len(files) == 0 {
		t.Fatalf("no test/*.test.mjs: %v", err)
	}
	out, err := exec.Command(node, append([]string{"--test"}, files...)...).CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Fatalf("node --test: %v", err)
	}
}
