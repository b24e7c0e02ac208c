package pluginhost

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/sdk"
)

// RightsChanges lists each field that decides a plugin's rights and
// changed, and nothing for an upgrade that changes none.
func TestRightsChanges(t *testing.T) {
	old := &Manifest{ID: "p", Command: []string{"./run"}, Capabilities: []string{"settings"}}
	if got := RightsChanges(old, old); len(got) != 0 {
		t.Fatalf("same manifest: %q", got)
	}
	new := &Manifest{ID: "p", Version: "2", Entry: "./run2", Capabilities: []string{"llm", "settings"},
		DefaultModes: map[sdk.Effect]sdk.Mode{sdk.EffectWrite: sdk.ModeAuto}, DecisionHook: true, Env: map[string]string{"K": "v"}}
	got := strings.Join(RightsChanges(old, new), "\n")
	for _, want := range []string{"capabilities: settings -> llm, settings", "defaultModes: (none) -> write=auto",
		"decisionHook: false -> true", "env (names): (none) -> K", "command: ./run -> ./run2"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
	if strings.Contains(got, "version") {
		t.Errorf("the version is not a right:\n%s", got)
	}
}

// RestoreUpgrades puts back a folder set aside whose plugin folder is
// gone, and drops one whose new folder was installed.
func TestRestoreUpgrades(t *testing.T) {
	plugins := filepath.Join(t.TempDir(), "plugins")
	for _, id := range []string{"a", "b"} {
		os.MkdirAll(filepath.Join(plugins, id), 0o700)
		os.WriteFile(filepath.Join(plugins, id, "v"), []byte("old"), 0o600)
		if _, err := SetAside(plugins, id); err != nil {
			t.Fatal(err)
		}
	}
	os.MkdirAll(filepath.Join(plugins, "b"), 0o700)
	os.WriteFile(filepath.Join(plugins, "b", "v"), []byte("new"), 0o600)
	back, err := RestoreUpgrades(plugins)
	if err != nil || !slices.Equal(back, []string{"a"}) {
		t.Fatalf("restored %v %v", back, err)
	}
	for id, want := range map[string]string{"a": "old", "b": "new"} {
		if b, _ := os.ReadFile(filepath.Join(plugins, id, "v")); string(b) != want {
			t.Errorf("%s: %q, want %q", id, b, want)
		}
	}
	if entries, _ := os.ReadDir(filepath.Join(filepath.Dir(plugins), UpgradingDir)); len(entries) != 0 {
		t.Fatalf("left aside: %v", entries)
	}
}

// A GitHub /tarball or /zipball address says no format: Fetch says what
// to give instead of cloning it as a git URL.
func TestFetchGitHubTarballURL(t *testing.T) {
	for _, src := range []string{"https://api.github.com/repos/o/r/tarball/main", "https://github.com/o/r/zipball/main"} {
		_, _, err := Fetch(context.Background(), src, filepath.Join(t.TempDir(), "f"), nil)
		if err == nil || !strings.Contains(err.Error(), "archive/refs/heads/BRANCH.tar.gz") {
			t.Errorf("%s: %v", src, err)
		}
	}
}
