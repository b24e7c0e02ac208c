package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestBenchModule runs the transports' side-by-side benchmarks (bench/,
// a module of its own so that Hearth does not depend on go-plugin, gRPC
// or the MCP Go SDK's peers there) once each, with its tests, so that
// they cannot rot unseen: the README's test command does not reach
// another module. It builds offline, from the module cache: .ci/run
// downloads the module's pinned requirements first (`go -C bench mod
// download`), as a machine that runs the test suite must.
func TestBenchModule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the bench module (-short)")
	}
	dir, err := filepath.Abs(filepath.Join("..", "..", "bench"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "test", "-count=1", "-bench", ".", "-benchtime", "1x", ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=readonly", "GOPROXY=off")
	out, err := cmd.CombinedOutput()
	if err != nil && strings.Contains(string(out), "GOPROXY=off") && !strings.Contains(string(out), "updates to go.mod needed") &&
		os.Getenv("CI") == "" {
		// As the npm packages other tests need: without them the test is
		// skipped locally; CI fails.
		t.Skipf("bench/'s modules are not in the module cache: run `go -C bench mod download` (.ci/run does)\n%s", out)
	}
	if err != nil {
		t.Fatalf("go test in bench/: %v\n%s\n(after changing Hearth's requirements, run `go -C bench mod tidy`; bench/'s modules come with `go -C bench mod download`)", err, out)
	}
	if !strings.Contains(string(out), "BenchmarkSideBySide") {
		t.Fatalf("the side-by-side benchmark did not run:\n%s", out)
	}
	t.Logf("%s", out)
}
