// Package seedtools is a test plugin using the Go forms of the xbot seed
// document (tool registration): a plain Hearth plugin whose Start wraps
// its PluginSDK with xbot.NewContext and registers ToolFromFunc,
// ToolFromJSONFunc, an ExecuteV2 tool, a builder result with metadata, a
// list result and a tool only for the web channel.
package seedtools

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/hearth-agent/hearth/sdk"
	plugin "github.com/hearth-agent/hearth/sdk/xbot"
)

var (
	_ sdk.Plugin          = (*Tools)(nil)
	_ plugin.ContextTool  = whoTool{}
	_ plugin.PluginTool   = whoTool{}
	_ sdk.NewPlugin       = New
	_ plugin.PluginToolV2 = (*plugin.SimplePluginTool)(nil)
)

// Tools is the plugin.
type Tools struct{ name string }

// New is the plugin's factory.
func New(name string, _ map[string]any) (sdk.Plugin, error) { return &Tools{name: name}, nil }

// Name is the registered name.
func (p *Tools) Name() string { return p.name }

// Stop does nothing.
func (p *Tools) Stop() error { return nil }

// whoTool is the seed's PluginToolV2 form: ExecuteV2 with a value.
type whoTool struct{}

func (whoTool) Definition() plugin.ToolDef { return plugin.BuildToolDef("who", "Who is asking.") }
func (whoTool) Execute(context.Context, string) (*plugin.ToolResult, error) {
	return plugin.NewToolError("Execute called on an ExecuteV2 tool"), nil
}
func (whoTool) ExecuteV2(_ context.Context, tc plugin.ToolCallContext) (*plugin.ToolResult, error) {
	return plugin.NewToolResult("user " + tc.UserID + " in " + tc.SessionID), nil
}

// Start registers the tools.
func (p *Tools) Start(s *sdk.PluginSDK) error {
	pctx := plugin.NewContext(s)
	tools := []plugin.PluginTool{
		plugin.ToolFromFunc("double", "Doubles the input.", func(_ context.Context, input string) (string, error) {
			return input + input, nil
		}),
		plugin.ToolFromJSONFunc("weather", "Get weather", []plugin.ToolParamDef{{Name: "city", Type: "string"}},
			func(_ context.Context, input json.RawMessage) (any, error) {
				var req struct {
					City string `json:"city"`
				}
				if err := json.Unmarshal(input, &req); err != nil {
					return nil, err
				}
				return map[string]any{"temp": 21, "city": req.City}, nil
			}),
		&plugin.SimplePluginTool{Def: plugin.BuildToolDef("server_info", "Server status."),
			ExecFn: func(context.Context, string) (*plugin.ToolResult, error) {
				return plugin.NewResultBuilder().Content("Server Info\nstatus: running").Metadata("kind", "server-info").Build(), nil
			}},
		&plugin.SimplePluginTool{Def: plugin.BuildToolDef("list", "A list.",
			plugin.ToolParamDef{Name: "items", Type: "array", Description: "items"}),
			ExecFn: func(_ context.Context, input string) (*plugin.ToolResult, error) {
				var in struct{ Items []string }
				if err := json.Unmarshal([]byte(input), &in); err != nil {
					return plugin.FormatErrorResult("list", err), nil
				}
				return plugin.FormatListResult(in.Items), nil
			}},
		whoTool{},
	}
	for _, t := range tools {
		if err := pctx.RegisterTool(t); err != nil {
			return err
		}
	}
	return pctx.RegisterForChannel("web", plugin.ToolFromFunc("web_only", "Only on the web.",
		func(context.Context, string) (string, error) { return strings.ToUpper("web"), nil }))
}
