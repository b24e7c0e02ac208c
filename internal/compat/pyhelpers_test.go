//go:build unix

package compat

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hearth-agent/hearth/internal/app"
	"github.com/hearth-agent/hearth/internal/kernel"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// pyHearth is a Hearth opened on a fresh data directory whose model is a
// scripted provider and whose plugins folder holds copies of test
// plugins, each started as a real python3 child with Hearth's SDK on its
// PYTHONPATH.
type pyHearth struct {
	app *app.App
	srv *llmtest.Server
	dir string
}

// openPyHearth copies the named folders of testdata/pku-py into a new data
// directory's plugins folder and opens Hearth on it, waiting for the
// plugins' handshakes.
func openPyHearth(t *testing.T, plugins []string, replies ...llmtest.Reply) *pyHearth {
	t.Helper()
	return openPyHearthWith(t, plugins, nil, replies...)
}

// openPyHearthWith is openPyHearth with prepare run first on a Hearth of
// the same data directory without plugins (what a user had before).
func openPyHearthWith(t *testing.T, plugins []string, prepare func(*app.App), replies ...llmtest.Reply) *pyHearth {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Fatalf("python3 is needed: %v", err)
	}
	srv := llmtest.NewServer(t, replies...)
	dir := t.TempDir()
	for _, name := range plugins {
		pyCopyDir(t, filepath.Join("testdata", "pku-py", name), filepath.Join(dir, "plugins", name))
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
	return &pyHearth{app: a, srv: srv, dir: dir}
}

// ask runs one turn from the owner at the terminal.
func (h *pyHearth) ask(t *testing.T, text string) kernel.Outcome {
	t.Helper()
	return h.app.Kernel.Ask(context.Background(), kernel.Input{Injection: sdk.Injection{Channel: "terminal", Text: text}})
}

// toolResults returns the tool results the model read in request i, by
// call id.
func (h *pyHearth) toolResults(t *testing.T, i int) map[string]string {
	t.Helper()
	reqs := h.srv.Requests()
	if i >= len(reqs) {
		t.Fatalf("the model got %d requests; want request %d", len(reqs), i)
	}
	out := map[string]string{}
	for _, m := range reqs[i].Messages {
		if id, ok := m["tool_call_id"].(string); ok {
			out[id], _ = m["content"].(string)
		}
	}
	return out
}

// sawText reports whether request i carried a message containing s.
func (h *pyHearth) sawText(t *testing.T, i int, s string) bool {
	t.Helper()
	reqs := h.srv.Requests()
	if i >= len(reqs) {
		t.Fatalf("the model got %d requests; want request %d", len(reqs), i)
	}
	b, _ := json.Marshal(reqs[i].Messages)
	var text string
	for _, m := range reqs[i].Messages {
		if c, ok := m["content"].(string); ok {
			text += c + "\n"
		}
	}
	return strings.Contains(text, s) || strings.Contains(string(b), s)
}

func pyCopyDir(t *testing.T, src, dst string) {
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
