package compat

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/internal/app"
	"github.com/hearth-agent/hearth/internal/pluginhost"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// PluginLegacy.tools through app.Open: the owner turned the old plugin's
// tool off (`hearth policy set pku-old__getStatus off`); pkuall, which maps
// pku-old.getStatus to its status tool, starts with that tool off, so it
// is not offered and the model's call to it is refused.
func TestPKULegacyToolModeCarried(t *testing.T) {
	h := openTSHearthWith(t, []string{"pkuall"}, func(a *app.App) {
		if err := a.Policy.SetOverride(context.Background(), "pku-old__getStatus", sdk.ModeOff); err != nil {
			t.Fatal(err)
		}
	},
		llmtest.Reply{ToolCalls: []llmtest.Call{{ID: "s1", Name: "pkuall__status", Arguments: `{}`}}},
		llmtest.Reply{Text: "好。"},
	)
	if got := h.app.Policy.Override("pkuall__status"); got != sdk.ModeOff {
		t.Fatalf("pkuall__status mode %q, want off carried from pku-old__getStatus", got)
	}
	lines := pluginhost.LegacyLines(h.app.DataDir, "pkuall")
	if !slices.ContainsFunc(lines, func(l string) bool {
		return strings.HasPrefix(l, "policy of pku-old__getStatus carried over to pkuall__status: off (")
	}) {
		t.Fatalf("record %q", lines)
	}
	if out := h.ask("查状态"); out.Err != nil {
		t.Fatal(out.Err)
	}
	if res := h.toolResult(t, 1, "s1"); !strings.Contains(res, `"error"`) || strings.Contains(res, "pluginId") {
		t.Fatalf("the tool ran although its carried mode is off (an off tool is not offered): %s", res)
	}
}
