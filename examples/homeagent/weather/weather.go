// Package weather is a HomeAgent-style plugin written from the HomeAgent
// PluginSDK document's examples, unchanged except for the import path: a
// tool with JSON Schema parameters, an on_input blacklist that
// short-circuits, and pre_action context injection. It shows that such a
// plugin ports to Hearth by changing one import.
package weather

import (
	"time"

	"github.com/hearth-agent/hearth/sdk"
)

// Plugin is the weather plugin.
type Plugin struct {
	name string
	sdk  *sdk.PluginSDK
}

// NewPlugin is the factory, with the signature a .so plugin exports.
func NewPlugin(name string, config map[string]any) (sdk.Plugin, error) {
	return &Plugin{name: name}, nil
}

// Name returns the plugin's name.
func (p *Plugin) Name() string { return p.name }

// Start registers the tool and the stage handlers.
func (p *Plugin) Start(s *sdk.PluginSDK) error {
	p.sdk = s
	s.SetAutoRestart(true)
	err := s.RegisterTool("weather_query", sdk.ToolDef{
		Name:        "weather_query",
		Description: "查询指定城市的天气",
		Parameters: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"city": map[string]any{
					"type":        "string",
					"description": "城市名称",
				},
			},
			"required": []string{"city"},
		},
	}, func(args map[string]any) (any, error) {
		city, _ := args["city"].(string)
		if city == "火星" {
			return map[string]any{
				"isError": true,
				"content": "不支持的城市",
			}, nil
		}
		return map[string]any{
			"temp": 25, "weather": "晴", "city": city,
		}, nil
	})
	if err != nil {
		return err
	}

	// on_input: 拦截黑名单用户
	s.RegisterStage(sdk.StageOnInput, func(ctx *sdk.StageContext) error {
		if ctx.UserID == "blocked_user" {
			resp := "已被限制使用"
			ctx.Response = &resp
		}
		return nil
	})

	// pre_action: 注入额外上下文
	s.RegisterStage(sdk.StagePreAction, func(ctx *sdk.StageContext) error {
		ctx.Lock()
		ctx.ContextMsgs = append(ctx.ContextMsgs, map[string]any{
			"role":    "system",
			"content": "当前时间: " + time.Now().Format("15:04"),
		})
		ctx.Unlock()
		return nil
	})
	return nil
}

// Stop does nothing.
func (p *Plugin) Stop() error { return nil }
