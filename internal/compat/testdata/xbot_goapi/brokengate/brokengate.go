// Package brokengate is a test plugin whose xbot hooks break: its
// UserPromptSubmit hook errs on a message containing "boom" and panics on
// one containing "crash" and ends its process on one containing "die"
// (Hearth must then refuse the message, not pass it), its PostToolUse hook panics and its AgentStop hook errs (Hearth
// logs those and goes on).
package brokengate

import (
	"context"
	"errors"
	"os"
	"strings"

	plugin "github.com/hearth-agent/hearth/sdk/xbot"
)

var _ plugin.Plugin = Gate{}

// Gate is the plugin.
type Gate struct{}

// Manifest describes the plugin.
func (Gate) Manifest() plugin.PluginManifest {
	return plugin.PluginManifest{ID: "test.brokengate", Name: "Broken gate", Version: "1.0.0"}
}

// Activate registers the hooks.
func (Gate) Activate(ctx plugin.PluginContext) error {
	if err := ctx.OnUserPrompt(func(_ context.Context, p *plugin.HookPayload) (*plugin.HookResult, error) {
		switch {
		case strings.Contains(p.ToolInput, "boom"):
			return nil, errors.New("the word list is gone")
		case strings.Contains(p.ToolInput, "crash"):
			panic("index out of range in the word list")
		case strings.Contains(p.ToolInput, "die"):
			os.Exit(3)
		}
		return nil, nil
	}); err != nil {
		return err
	}
	if err := ctx.OnPostToolUse("*", func(context.Context, *plugin.HookPayload) (*plugin.HookResult, error) {
		panic("post hook bug")
	}); err != nil {
		return err
	}
	return ctx.OnAgentStop(func(context.Context, *plugin.HookPayload) (*plugin.HookResult, error) {
		return nil, errors.New("stop hook broken")
	})
}

// Deactivate does nothing.
func (Gate) Deactivate(plugin.PluginContext) error { return nil }
