package main

import (
	"strings"

	"gitcode.com/JianFeeeee/homeagent-sdk/sdk"
)

type shout struct{ name string }

func (p *shout) Name() string { return p.name }

func (p *shout) Start(s *sdk.PluginSDK) error {
	return s.RegisterTool("shout", sdk.ToolDef{
		Description: "Says the text louder.",
		Parameters:  map[string]interface{}{"type": "object", "properties": map[string]interface{}{"text": map[string]interface{}{"type": "string"}}},
	}, func(args map[string]interface{}) (interface{}, error) {
		text, _ := args["text"].(string)
		return strings.ToUpper(text) + "!", nil
	})
}

func (p *shout) Stop() error { return nil }

func NewPluginFactory(name string, config map[string]interface{}) (sdk.Plugin, error) {
	return &shout{name: name}, nil
}
