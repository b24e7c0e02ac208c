package main

import (
	"fmt"

	"gitcode.com/JianFeeeee/homeagent-sdk/sdk"
)

type greeter struct{ name string }

func (p *greeter) Name() string { return p.name }
func (p *greeter) Stop() error  { return nil }

func (p *greeter) Start(s *sdk.PluginSDK) error {
	s.RegisterStage(sdk.StageOnInput, func(ctx *sdk.StageContext) error {
		if ctx.RawMessage == "ping" {
			ctx.SetResponse("pong")
		}
		return nil
	})
	return s.RegisterTool("greet", sdk.ToolDef{Name: "greet", Description: "Greets someone."},
		func(args map[string]interface{}) (interface{}, error) {
			return fmt.Sprintf("hello, %v", args["who"]), nil
		})
}

// NewPlugin is the plugin's factory.
func NewPlugin(name string, _ map[string]interface{}) (sdk.Plugin, error) {
	return &greeter{name: name}, nil
}
