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

	"github.com/hearth-agent/hearth/internal/app"
	"github.com/hearth-agent/hearth/internal/kernel"
	"github.com/hearth-agent/hearth/internal/pluginhost"
	"github.com/hearth-agent/hearth/internal/scaffold"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// tsHearth is a childHearth of the TypeScript test plugins
// (testdata/pku-ts), each a real node child.
type tsHearth struct{ *childHearth }

// openTSHearth opens a Hearth running the named test plugins of
// testdata/pku-ts.
func openTSHearth(t *testing.T, plugins []string, replies ...llmtest.Reply) *tsHearth {
	t.Helper()
	return openTSHearthWith(t, plugins, nil, replies...)
}

// openTSHearthWith is openTSHearth with prepare run first (see
// openChildHearth).
func openTSHearthWith(t *testing.T, plugins []string, prepare func(*app.App), replies ...llmtest.Reply) *tsHearth {
	t.Helper()
	return &tsHearth{openChildHearth(t, "node", "pku-ts", plugins, prepare, replies...)}
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
