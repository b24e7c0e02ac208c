// Package gitwatch is a test plugin in the manner of xbot's git-pr-status
// example: a PostToolUse hook on "Shell*" reads the shell command from
// the tool input and the branch from the output (Extra["output"]), and
// pushes a status-bar widget update.
package gitwatch

import (
	"context"
	"fmt"
	"strings"
	"sync"

	plugin "github.com/hearth-agent/hearth/sdk/xbot"
)

var (
	_ plugin.Plugin   = (*Watch)(nil)
	_ plugin.UIWidget = (*Watch)(nil)
)

// Watch is the plugin.
type Watch struct {
	mu     sync.Mutex
	pctx   plugin.PluginContext
	branch string
	op     string
}

// Manifest describes the plugin, with its hook and widget contributions.
func (w *Watch) Manifest() plugin.PluginManifest {
	return plugin.PluginManifest{
		Name: "gitwatch", Version: "0.1.0", Runtime: plugin.RuntimeNative,
		Permissions: []string{plugin.PermHooksSubscribe, plugin.PermUIContribute},
		Contributes: &plugin.PluginContributes{
			Hooks: []plugin.HookContribution{{Event: "PostToolUse", Matcher: "Shell*"}},
			UI:    []plugin.UISlotContribution{{ID: "branch", Slot: "statusBarRight", Priority: 10}},
		},
	}
}

// Activate contributes the widget and the hook.
func (w *Watch) Activate(ctx plugin.PluginContext) error {
	w.pctx = ctx
	if err := ctx.ContributeUI("branch", "statusBarRight", w, 10); err != nil {
		return fmt.Errorf("contribute UI: %w", err)
	}
	if err := ctx.OnPostToolUse("Shell*", w.after); err != nil {
		return fmt.Errorf("register hook: %w", err)
	}
	ctx.Logger().Info("gitwatch activated")
	return nil
}

// Deactivate does nothing.
func (w *Watch) Deactivate(plugin.PluginContext) error { return nil }

// Render shows the branch and the last git operation.
func (w *Watch) Render(int) []plugin.WidgetSpan {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.branch == "" {
		return []plugin.WidgetSpan{{Text: "git: -", Style: plugin.StyleDim}}
	}
	return []plugin.WidgetSpan{{Text: "git:", Style: plugin.StyleDim}, {Text: w.branch, Style: plugin.StyleAccent}, {Text: " " + w.op, Style: plugin.StyleInfo}}
}

func (w *Watch) after(_ context.Context, p *plugin.HookPayload) (*plugin.HookResult, error) {
	cmd := ""
	if i := strings.Index(p.ToolInput, "git "); i >= 0 {
		cmd = strings.TrimRight(p.ToolInput[i:], `"}`)
	}
	f := strings.Fields(cmd)
	if len(f) < 2 {
		return nil, nil
	}
	out, _ := p.Extra["output"].(string)
	w.mu.Lock()
	w.op = f[1]
	for _, line := range strings.Split(out, "\n") {
		if b, ok := strings.CutPrefix(strings.TrimSpace(line), "On branch "); ok {
			w.branch = b
		}
	}
	w.mu.Unlock()
	_ = w.pctx.UpdateWidget("branch")
	return nil, nil
}
