package hagosrc

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// A HomeAgent plugin's own tests, which build its PluginSDK with sdk.New,
// build and pass with `go test` against the go.mod Hearth writes for the
// source folder (the forwarding module in place of HomeAgent's SDK).
func TestHomeAgentPluginOwnTests(t *testing.T) {
	src := copyDir(t, "testdata/ha_selftest")
	work, hearth := t.TempDir(), hearthSrc(t)
	tc := &toolchain{goCmd: "go", env: buildEnv(nil)}
	fwd, err := writeForward(filepath.Join(work, "homeagent-sdk"), Module, hearth)
	if err != nil {
		t.Fatal(err)
	}
	oldFwd, err := writeForward(filepath.Join(work, "homeagentsdk"), OldModule, hearth)
	if err != nil {
		t.Fatal(err)
	}
	modfile, err := tc.modfile(context.Background(), src, work, map[string]string{Module: fwd, OldModule: oldFwd}, hearth)
	if err != nil {
		t.Fatal(err)
	}
	out, err := tc.run(context.Background(), src, "test", "-modfile="+modfile, "-count=1", "-v", ".")
	if err != nil || !strings.Contains(string(out), "--- PASS: TestGreeter") {
		t.Fatalf("go test in the plugin's folder: %v\n%s", err, out)
	}
}
