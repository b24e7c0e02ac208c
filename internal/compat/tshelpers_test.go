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
	"github.com/hearth-agent/hearth/internal/pluginhost"
	"github.com/hearth-agent/hearth/internal/scaffold"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// tsHearth is a Hearth opened on a fresh data directory whose model is a
// scripted provider and whose plugins folder holds copies of the
// TypeScript test plugins of testdata/pku-ts, each a real node child with
// the SDK as Hearth provides it.
type tsHearth struct {
	app *app.App
	srv *llmtest.Server
	dir string
}

// openTSHearth copies the named folders of testdata/pku-ts into a new data
// directory's plugins folder and opens Hearth on it, waiting for the
// plugins' handshakes.
func openTSHearth(t *testing.T, plugins []string, replies ...llmtest.Reply) *tsHearth {
	t.Helper()
	return openTSHearthWith(t, plugins, nil, replies...)
}

// openTSHearthWith is openTSHearth with prepare run first on a Hearth of
// the same data directory without plugins (to leave what a user had).
func openTSHearthWith(t *testing.T, plugins []string, prepare func(*app.App), replies ...llmtest.Reply) *tsHearth {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatalf("node is needed: %v", err)
	}
	srv := llmtest.NewServer(t, replies...)
	dir := t.TempDir()
	for _, name := range plugins {
		tsCopyDir(t, filepath.Join("testdata", "pku-ts", name), filepath.Join(dir, "plugins", name))
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
	return &tsHearth{app: a, srv: srv, dir: dir}
}

// ask runs one turn from the owner at the terminal.
func (h *tsHearth) ask(text string) kernel.Outcome {
	return h.app.Kernel.Ask(context.Background(), kernel.Input{Injection: sdk.Injection{Channel: "terminal", Text: text}})
}

// status is the running plugin's status.
func (h *tsHearth) status(t *testing.T, id string) *pluginhost.Status {
	t.Helper()
	list, err := h.app.Plugins.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range list {
		if p.ID == id && p.Status != nil {
			return p.Status
		}
	}
	t.Fatalf("plugin %s is not running: %+v", id, list)
	return nil
}

// request returns the JSON of the model's request i.
func (h *tsHearth) request(t *testing.T, i int) string {
	t.Helper()
	reqs := h.srv.Requests()
	if i >= len(reqs) {
		t.Fatalf("the model got %d requests; want request %d", len(reqs), i)
	}
	b, _ := json.Marshal(reqs[i])
	return string(b)
}

// toolResult returns what the model read for call id in request i.
func (h *tsHearth) toolResult(t *testing.T, i int, id string) string {
	t.Helper()
	reqs := h.srv.Requests()
	if i >= len(reqs) {
		t.Fatalf("the model got %d requests; want request %d", len(reqs), i)
	}
	for _, m := range reqs[i].Messages {
		if m["tool_call_id"] == id {
			s, _ := m["content"].(string)
			return s
		}
	}
	t.Fatalf("request %d has no result for %s", i, id)
	return ""
}

// nodeScript runs a node script of testdata/pku-ts with the SDK as Hearth
// provides it, and returns its output.
func nodeScript(t *testing.T, script string, args ...string) string {
	t.Helper()
	root, err := scaffold.Provide(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", append([]string{script}, args...)...)
	cmd.Dir = filepath.Join("testdata", "pku-ts")
	cmd.Env = append(os.Environ(), scaffold.Env(root)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node %s: %v\n%s", script, err, out)
	}
	return strings.TrimSpace(string(out))
}

func tsCopyDir(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o700)
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
