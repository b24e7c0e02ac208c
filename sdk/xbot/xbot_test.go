package xbot_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/sdktest"
	"github.com/hearth-agent/hearth/sdk/xbot"
)

type probe struct{ start func(*sdk.PluginSDK) error }

func (p probe) Name() string                 { return "hello" }
func (p probe) Start(s *sdk.PluginSDK) error { return p.start(s) }
func (p probe) Stop() error                  { return nil }

// v2Tool implements PluginToolV2.
type v2Tool struct{ seen *xbot.ToolCallContext }

func (v *v2Tool) Definition() xbot.ToolDef {
	return xbot.BuildToolDef("whoami", "Who is calling.")
}
func (v *v2Tool) Execute(context.Context, string) (*xbot.ToolResult, error) {
	return xbot.NewToolError("V1 called for a V2 tool"), nil
}
func (v *v2Tool) ExecuteV2(_ context.Context, tc xbot.ToolCallContext) (*xbot.ToolResult, error) {
	*v.seen = tc
	return xbot.NewResultBuilder().Content("you are "+tc.UserID).Metadata("kind", "identity").Build(), nil
}

func TestRegisterForChannelNeedsAChannel(t *testing.T) {
	var seen xbot.ToolCallContext
	sdktest.Start(t, "hello", func(string, map[string]any) (sdk.Plugin, error) {
		return probe{func(s *sdk.PluginSDK) error {
			if err := xbot.NewContext(s).RegisterForChannel("", &v2Tool{seen: &seen}); err == nil {
				t.Error("RegisterForChannel with no channel accepted")
			}
			return nil
		}}, nil
	}, nil)
}

func TestXbotTools(t *testing.T) {
	var seen xbot.ToolCallContext
	h := sdktest.Start(t, "hello", func(string, map[string]any) (sdk.Plugin, error) {
		return probe{func(s *sdk.PluginSDK) error {
			pctx := xbot.NewContext(s)
			for _, tool := range []xbot.PluginTool{
				&xbot.SimplePluginTool{
					Def: xbot.BuildToolDef("hello", "Greet someone by name.",
						xbot.ToolParamDef{Name: "name", Type: "string", Description: "The person to greet", Required: true}),
					ExecFn: func(_ context.Context, input string) (*xbot.ToolResult, error) {
						name, _ := xbot.ParseToolInputString(input, "name")
						return xbot.NewToolResult(fmt.Sprintf("Hello, %s! 👋", name)), nil
					},
				},
				xbot.ToolFromFunc("double", "Doubles", func(_ context.Context, input string) (string, error) { return input + input, nil }),
				xbot.ToolFromJSONFunc("weather", "Get weather", []xbot.ToolParamDef{{Name: "city", Type: "string"}},
					func(_ context.Context, input json.RawMessage) (any, error) {
						var req struct {
							City string `json:"city"`
						}
						json.Unmarshal(input, &req)
						return map[string]any{"temp": 21, "city": req.City}, nil
					}),
				&xbot.SimplePluginTool{Def: xbot.BuildToolDef("missing", "fails"),
					ExecFn: func(context.Context, string) (*xbot.ToolResult, error) {
						return xbot.NewToolError("file not found"), nil
					}},
			} {
				if err := pctx.RegisterTool(tool); err != nil {
					return err
				}
			}
			return pctx.RegisterForChannel("web", &v2Tool{seen: &seen})
		}}, nil
	}, nil)

	if r := h.CallTool("hello", map[string]any{"name": "Bob"}); r.IsError || r.Content != "Hello, Bob! 👋" {
		t.Fatalf("hello: %+v", r)
	}
	if r := h.CallTool("hello", map[string]any{}); !r.IsError || !strings.Contains(r.Content, "name") {
		t.Fatalf("required parameter not enforced: %+v", r)
	}
	if r := h.CallTool("double", `{"x":1}`); r.Content != `{"x":1}{"x":1}` {
		t.Fatalf("double: %+v", r)
	}
	if r := h.CallTool("weather", map[string]any{"city": "杭州"}); r.Content != `{"city":"杭州","temp":21}` {
		t.Fatalf("weather: %+v", r)
	}
	if r := h.CallTool("missing", nil); !r.IsError || r.Content != "file not found" {
		t.Fatalf("NewToolError: %+v", r)
	}
	r := h.CallToolContext(context.Background(), &sdk.ToolContext{PluginID: "hello", Channel: "web", UserID: "u42", Actor: sdk.ActorAgent,
		Turn: &sdk.TurnInfo{SessionID: "web/c1", Tainted: true}}, "whoami", nil)
	if r.Content != "you are u42" || r.Metadata["kind"] != "identity" {
		t.Fatalf("V2: %+v", r)
	}
	if seen.SessionID != "web/c1" || !seen.Tainted || seen.Channel != "web" || seen.Input != "{}" {
		t.Fatalf("ToolCallContext %+v", seen)
	}
	def, _ := h.ToolDef("whoami")
	if len(def.Channels) != 1 || def.Channels[0] != "web" {
		t.Fatalf("channel scope lost: %+v", def)
	}
	hello, _ := h.ToolDef("hello")
	if req := hello.Parameters["required"].([]string); len(req) != 1 || req[0] != "name" {
		t.Fatalf("schema %v", hello.Parameters)
	}
}

func TestFormatters(t *testing.T) {
	if got := xbot.FormatToolResult("Server Info", map[string]string{"version": "2.0.1", "status": "running"}).Content; got != "Server Info\nstatus: running\nversion: 2.0.1" {
		t.Fatalf("%q", got)
	}
	if got := xbot.FormatListResult([]string{"alpha", "beta"}).Content; got != "1. alpha\n2. beta" {
		t.Fatalf("%q", got)
	}
	if got := xbot.FormatListResult(nil).Content; got != "(no items)" {
		t.Fatalf("%q", got)
	}
	if _, err := xbot.ParseToolInputString(`[1]`, "x"); err == nil {
		t.Fatal("non-object accepted")
	}
}
