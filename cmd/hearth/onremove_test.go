package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/sdk"
)

// remover is a Go child plugin (HEARTH_TEST_SERVE_REMOVER) that keeps
// events.json in its data folder and deletes it when it is uninstalled,
// as HomeAgent's calendar example does with RegisterOnRemoveHandler.
type remover struct{ name string }

func newRemover(name string, _ map[string]any) (sdk.Plugin, error) { return &remover{name}, nil }

func (p *remover) Name() string { return p.name }
func (p *remover) Stop() error  { return nil }
func (p *remover) Start(s *sdk.PluginSDK) error {
	path := filepath.Join(s.DataDir(), "events.json")
	s.RegisterOnRemoveHandler(func() { os.Remove(path) })
	return nil
}

// `hearth plugin remove` runs a Go child's remove handlers before its
// folder and data go to the trash: its events.json is not among them. A
// disabled plugin is not started for it: its events.json stays.
func TestPluginRemoveRunsRemoveHandlers(t *testing.T) {
	for _, disabled := range []bool{false, true} {
		t.Run(fmt.Sprint("disabled=", disabled), func(t *testing.T) {
			trashed := removeCal(t, disabled)
			if strings.Contains(trashed, "events.json") != disabled || !strings.Contains(trashed, "notes.txt") {
				t.Fatalf("trash holds %s", trashed)
			}
		})
	}
}

// removeCal installs the remover as cal, disables it if asked, removes it
// and returns the names of the files in the trash.
func removeCal(t *testing.T, disable bool) string {
	home := t.TempDir()
	if err := os.Chmod(home, 0o700); err != nil {
		t.Fatal(err)
	}
	base := []string{"HEARTH_HOME=" + home}
	writeManifest(t, filepath.Join(home, "plugins", "cal"),
		`{"id": "cal", "command": ["`+os.Args[0]+`"], "env": {"HEARTH_TEST_SERVE_REMOVER": "1"}}`)
	data := filepath.Join(home, "plugin_data", "cal")
	if err := os.MkdirAll(data, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"events.json", "notes.txt"} {
		if err := os.WriteFile(filepath.Join(data, f), []byte("{}"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if disable {
		if out, errOut, code := hearth(t, base, "", "plugin", "disable", "cal"); code != 0 {
			t.Fatalf("disable: %d %q %q", code, out, errOut)
		}
	}
	out, errOut, code := hearth(t, base, "", "plugin", "remove", "cal")
	if code != 0 || errOut != "" {
		t.Fatalf("remove: %d %q %q", code, out, errOut)
	}
	var trashed []string
	filepath.WalkDir(filepath.Join(home, "trash"), func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			trashed = append(trashed, d.Name())
		}
		return nil
	})
	return strings.Join(trashed, ",")
}
