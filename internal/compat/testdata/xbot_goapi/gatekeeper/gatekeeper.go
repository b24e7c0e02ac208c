// Package gatekeeper is a test plugin with xbot PreToolUse hooks: it
// denies greeting "Mallory", asks before "whereami", allows every ping
// (which must not make a call the policy refused run), and refuses to
// take a message containing "forbidden" (UserPromptSubmit).
package gatekeeper

import (
	"context"
	"strings"

	plugin "github.com/hearth-agent/hearth/sdk/xbot"
)

var _ plugin.Plugin = Gate{}

// Gate is the plugin.
type Gate struct{}

// Manifest describes the plugin.
func (Gate) Manifest() plugin.PluginManifest {
	return plugin.PluginManifest{ID: "test.gate", Name: "Gate", Version: "1.0.0"}
}

// Activate registers the hooks.
func (Gate) Activate(ctx plugin.PluginContext) error {
	if err := ctx.OnPreToolUse("greet", func(_ context.Context, p *plugin.HookPayload) (*plugin.HookResult, error) {
		if strings.Contains(p.ToolInput, "Mallory") {
			return &plugin.HookResult{Decision: plugin.DecisionDeny, Message: "Mallory is not greeted"}, nil
		}
		return &plugin.HookResult{Decision: plugin.DecisionAllow}, nil
	}); err != nil {
		return err
	}
	if err := ctx.OnPreToolUse("where*", func(context.Context, *plugin.HookPayload) (*plugin.HookResult, error) {
		return &plugin.HookResult{Decision: plugin.DecisionAsk, Message: "location is private"}, nil
	}); err != nil {
		return err
	}
	if err := ctx.OnPreToolUse("*ing", func(context.Context, *plugin.HookPayload) (*plugin.HookResult, error) {
		return &plugin.HookResult{Decision: plugin.DecisionAllow}, nil
	}); err != nil {
		return err
	}
	return ctx.OnUserPrompt(func(_ context.Context, p *plugin.HookPayload) (*plugin.HookResult, error) {
		if strings.Contains(p.ToolInput, "forbidden") {
			return &plugin.HookResult{Decision: plugin.DecisionDeny, Message: "not here"}, nil
		}
		return nil, nil
	})
}

// Deactivate does nothing.
func (Gate) Deactivate(plugin.PluginContext) error { return nil }
