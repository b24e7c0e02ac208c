// Package main is a test plugin written against HomeAgent's SDK under
// its former module path, github.com/JianFeeeee/homeagentsdk.
package main

import (
	"strings"

	"github.com/JianFeeeee/homeagentsdk/sdk"
)

type plugin struct{ name string }

func (p *plugin) Name() string { return p.name }

func (p *plugin) Start(s *sdk.PluginSDK) error {
	return s.RegisterTool(p.name+"_upper", sdk.ToolDef{
		Name:        p.name + "_upper",
		Description: "Upper-cases text.",
		Parameters: map[string]interface{}{"type": "object", "properties": map[string]interface{}{
			"text": map[string]interface{}{"type": "string"}}, "required": []string{"text"}},
	}, func(args map[string]interface{}) (interface{}, error) {
		t, _ := args["text"].(string)
		return strings.ToUpper(t), nil
	})
}

func (p *plugin) Stop() error { return nil }

// NewPluginFactory is HomeAgent's entry point.
func NewPluginFactory(name string, _ map[string]interface{}) (sdk.Plugin, error) {
	return &plugin{name: name}, nil
}
