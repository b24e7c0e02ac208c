// Package greeter is a test plugin written against xbot's Go plugin API
// the way xbot's hello-world example uses it (tools, a PostToolUse hook
// counting calls in Storage, a context enricher, Deactivate logging), with
// only the import path pointing at Hearth.
package greeter

import (
	"context"
	"fmt"
	"strconv"
	"sync/atomic"

	plugin "github.com/hearth-agent/hearth/sdk/xbot"
)

var (
	_ plugin.Plugin       = (*Greeter)(nil)
	_ plugin.PluginToolV2 = tenantTool{}
)

// Greeter is the plugin.
type Greeter struct {
	served atomic.Int64
	pctx   plugin.PluginContext
}

// New returns a Greeter.
func New() *Greeter { return &Greeter{} }

// Manifest describes the plugin.
func (g *Greeter) Manifest() plugin.PluginManifest {
	return plugin.PluginManifest{
		ID: "test.greeter", Name: "Greeter", Version: "1.0.0", Description: "Greets people.",
		Runtime: plugin.RuntimeNative, ActivationEvents: []string{"onStart"},
		Permissions: []string{plugin.PermToolsRegister, plugin.PermHooksSubscribe, plugin.PermContextEnrich, plugin.PermStoragePrivate},
	}
}

// tenantTool answers with the call's context (PluginToolV2).
type tenantTool struct{}

func (tenantTool) Definition() plugin.ToolDef {
	return plugin.ToolDef{Name: "whereami", Description: "Where the call comes from.",
		Parameters: []plugin.ToolParam{{Name: "verbose", Type: "boolean", Description: "more"}}}
}

func (tenantTool) Execute(context.Context, string) (*plugin.ToolResult, error) {
	return plugin.NewToolError("Execute called on a PluginToolV2"), nil
}

func (tenantTool) ExecuteWithContext(tc *plugin.ToolCallContext, _ string) (*plugin.ToolResult, error) {
	if tc.Ctx == nil {
		return plugin.NewToolError("no Ctx"), nil
	}
	return plugin.FormatToolResult("Call", map[string]string{
		"tenant": strconv.FormatInt(tc.TenantID, 10), "channel": tc.Channel, "chat": tc.ChatID, "session": tc.SessionID,
	}), nil
}

// Activate registers the tools, the hook and the enricher.
func (g *Greeter) Activate(pctx plugin.PluginContext) error {
	g.pctx = pctx
	err := pctx.RegisterTools(
		&plugin.SimplePluginTool{
			Def: plugin.BuildToolDef("greet", "Greet someone by name.",
				plugin.ToolParamDef{Name: "name", Type: "string", Description: "who"}),
			ExecFn: func(_ context.Context, input string) (*plugin.ToolResult, error) {
				name, err := plugin.ParseToolInputString(input, "name")
				if err != nil {
					name = "World"
				}
				g.served.Add(1)
				return plugin.NewToolResult("Hello, " + name + "!"), nil
			},
		},
		&plugin.SimplePluginTool{
			Def: plugin.BuildToolDef("ping", "Connectivity check."),
			ExecFn: func(context.Context, string) (*plugin.ToolResult, error) {
				g.served.Add(1)
				return plugin.NewToolResult(fmt.Sprintf("pong #%d", g.served.Load())), nil
			},
		},
		&plugin.SimplePluginTool{
			Def: plugin.BuildToolDef("broken", "Always fails."),
			ExecFn: func(context.Context, string) (*plugin.ToolResult, error) {
				return &plugin.ToolResult{Content: "disk on fire", IsError: true}, nil
			},
		},
		tenantTool{},
	)
	if err != nil {
		return fmt.Errorf("register tools: %w", err)
	}
	store := pctx.Storage()
	if err := pctx.OnPostToolUse("", func(_ context.Context, p *plugin.HookPayload) (*plugin.HookResult, error) {
		n, _ := store.Get("post_calls")
		c, _ := strconv.Atoi(n)
		if err := store.Set("post_calls", strconv.Itoa(c+1)); err != nil {
			return nil, err
		}
		if err := store.Set("last_tool", p.ToolName+" "+p.ToolInput+" -> "+p.ToolOutput); err != nil {
			return nil, err
		}
		return &plugin.HookResult{Decision: plugin.DecisionAllow}, nil
	}); err != nil {
		return fmt.Errorf("register hook: %w", err)
	}
	if err := pctx.OnError(func(_ context.Context, p *plugin.HookPayload) (*plugin.HookResult, error) {
		return nil, store.Set("last_failure", p.ToolName+": "+p.ToolOutput)
	}); err != nil {
		return fmt.Errorf("register error hook: %w", err)
	}
	return pctx.EnrichContext("greeter_status", func(context.Context) (string, error) {
		return fmt.Sprintf("Greeter active, tool calls served: %d", g.served.Load()), nil
	})
}

// Deactivate logs goodbye.
func (g *Greeter) Deactivate(pctx plugin.PluginContext) error {
	pctx.Logger().WithField("served", g.served.Load()).Info("greeter: goodbye")
	return nil
}
