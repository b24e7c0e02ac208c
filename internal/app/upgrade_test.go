package app

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/hearth-agent/hearth/internal/pluginhost"
)

// A plugin folder set aside by an upgrade that was cut short (Hearth
// killed between moving the old folder out and installing the new one) is
// put back when Hearth next opens its data directory, and a folder set
// aside whose new version did get installed is dropped.
func TestOpenFinishesAnUpgradeCutShort(t *testing.T) {
	dir := t.TempDir()
	aside := filepath.Join(dir, pluginhost.UpgradingDir)
	for _, id := range []string{"lost", "done"} {
		if err := os.MkdirAll(filepath.Join(aside, id), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(aside, id, "plugin.json"), []byte(`{"id":"`+id+`","command":["true"]}`), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "plugins", "done"), 0o700); err != nil {
		t.Fatal(err)
	}
	a, err := Open(context.Background(), &Options{DataDir: dir, Plugins: PluginsStart, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if _, err := os.Stat(filepath.Join(dir, "plugins", "lost", "plugin.json")); err != nil {
		t.Errorf("the set-aside folder was not put back: %v", err)
	}
	if _, err := os.Stat(filepath.Join(aside, "done")); !os.IsNotExist(err) {
		t.Errorf("the set-aside copy of an upgrade that finished is still there: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "plugins", "done", "plugin.json")); !os.IsNotExist(err) {
		t.Errorf("the installed new folder was replaced by the old one: %v", err)
	}
}
