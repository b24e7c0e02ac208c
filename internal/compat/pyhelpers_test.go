//go:build unix

package compat

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/internal/app"
	"github.com/hearth-agent/hearth/internal/kernel"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// pyHearth is a childHearth of python3 test plugins (testdata/pku-py).
type pyHearth struct{ *childHearth }

// openPyHearth opens a Hearth running the named test plugins of
// testdata/pku-py.
func openPyHearth(t *testing.T, plugins []string, replies ...llmtest.Reply) *pyHearth {
	t.Helper()
	return openPyHearthWith(t, plugins, nil, replies...)
}

// openPyHearthWith is openPyHearth with prepare run first (see
// openChildHearth).
func openPyHearthWith(t *testing.T, plugins []string, prepare func(*app.App), replies ...llmtest.Reply) *pyHearth {
	t.Helper()
	return &pyHearth{openChildHearth(t, "python3", "pku-py", plugins, prepare, replies...)}
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
