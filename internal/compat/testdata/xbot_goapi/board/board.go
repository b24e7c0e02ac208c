// Package board is a test plugin whose widgets Hearth shows in its web
// UI: on Activate it contributes a status-bar widget of several spans
// (a text widget) and one of a single success span (a badge), and
// renders both with UpdateWidget.
package board

import (
	plugin "github.com/hearth-agent/hearth/sdk/xbot"
)

var _ plugin.Plugin = Board{}

// Board is the plugin.
type Board struct{}

// spans is a UIWidget of fixed spans.
type spans []plugin.WidgetSpan

// Render returns the spans.
func (s spans) Render(int) []plugin.WidgetSpan { return s }

// Manifest describes the plugin.
func (Board) Manifest() plugin.PluginManifest {
	return plugin.PluginManifest{ID: "test.board", Name: "board", Version: "0.1.0", Runtime: plugin.RuntimeNative,
		Permissions: []string{plugin.PermUIContribute}}
}

// Activate contributes and renders the widgets.
func (Board) Activate(ctx plugin.PluginContext) error {
	if err := ctx.ContributeUI("status", "statusBarRight", spans{{Text: "queue: ", Style: plugin.StyleDim}, {Text: "3 jobs", Style: plugin.StyleAccent}}, 10); err != nil {
		return err
	}
	if err := ctx.ContributeUI("health", "statusBarLeft", spans{{Text: "healthy", Style: plugin.StyleSuccess}}, 5); err != nil {
		return err
	}
	for _, id := range []string{"status", "health"} {
		if err := ctx.UpdateWidget(id); err != nil {
			return err
		}
	}
	return nil
}

// Deactivate does nothing.
func (Board) Deactivate(plugin.PluginContext) error { return nil }
