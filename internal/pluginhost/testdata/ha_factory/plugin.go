// Command ha_factory is a test plugin in HomeAgent's .so shape: package
// main, built with -buildmode=plugin, exporting only NewPluginFactory.
package main

import (
	"strings"

	"github.com/hearth-agent/hearth/sdk"
)

type echo struct{ name string }

func (p *echo) Name() string { return p.name }

func (p *echo) Start(s *sdk.PluginSDK) error {
	return s.RegisterTool(p.name+"_echo", sdk.ToolDef{
		Description: "Echoes its text in capitals.",
		Parameters: map[string]any{
			"type":       "object",
			"properties": map[string]any{"text": map[string]any{"type": "string"}},
		},
	}, func(args map[string]any) (any, error) {
		text, _ := args["text"].(string)
		return p.name + ": " + strings.ToUpper(text), nil
	})
}

func (p *echo) Stop() error { return nil }

// NewPluginFactory is the plugin's only export.
func NewPluginFactory(name string, config map[string]any) (sdk.Plugin, error) {
	return &echo{name: name}, nil
}
