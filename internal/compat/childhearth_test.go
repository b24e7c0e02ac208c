//go:build unix

package compat

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hearth-agent/hearth/internal/app"
	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// childHearth is a Hearth opened on a fresh data directory whose model is
// a scripted provider and whose plugins folder holds copies of test
// plugins of one testdata folder, each started as a real child process
// (python3 or node) with Hearth's SDK as Hearth provides it.
type childHearth struct {
	app *app.App
	srv *llmtest.Server
	dir string
}

// openChildHearth checks that program (the plugins' interpreter) is
// installed, copies the named folders of testdata/<from> into a new data
// directory's plugins folder and opens Hearth on it, waiting for the
// plugins' handshakes. prepare, when not nil, runs first on a Hearth of
// the same data directory without plugins (what a user had before).
func openChildHearth(t *testing.T, program, from string, plugins []string, prepare func(*app.App), replies ...llmtest.Reply) *childHearth {
	t.Helper()
	if _, err := exec.LookPath(program); err != nil {
		t.Fatalf("%s is needed: %v", program, err)
	}
	srv := llmtest.NewServer(t, replies...)
	dir := t.TempDir()
	for _, name := range plugins {
		copyTestPlugin(t, filepath.Join("testdata", from, name), filepath.Join(dir, "plugins", name))
	}
	env := map[string]string{"OPENAI_BASE_URL": srv.URL, "HEARTH_MODEL": "test-model", "OPENAI_API_KEY": "test-key"}
	if prepare != nil {
		a, err := app.Open(context.Background(), &app.Options{DataDir: dir, Plugins: app.PluginsOff,
			Getenv: func(k string) string { return env[k] }})
		if err != nil {
			t.Fatal(err)
		}
		prepare(a)
		a.Close()
	}
	a, err := app.Open(context.Background(), &app.Options{DataDir: dir, Plugins: app.PluginsWait,
		WatchInterval: time.Hour, Getenv: func(k string) string { return env[k] }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	return &childHearth{app: a, srv: srv, dir: dir}
}

// copyTestPlugin copies a test plugin's folder, leaving out Python's
// byte-code caches.
func copyTestPlugin(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o700)
		}
		if strings.HasSuffix(path, ".pyc") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
}
