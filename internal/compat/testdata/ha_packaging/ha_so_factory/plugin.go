// Command ha_so_factory is a test plugin in HomeAgent's .so shape: package
// main, built with -buildmode=plugin against Hearth's sdk (a .so must share
// the host's packages), exporting only NewPluginFactory.
package main

import "github.com/hearth-agent/hearth/sdk"

type reverse struct{ name string }

func (p *reverse) Name() string { return p.name }

func (p *reverse) Start(s *sdk.PluginSDK) error {
	return s.RegisterTool("reverse", sdk.ToolDef{
		Description: "Reverses the text.",
		Parameters:  map[string]any{"type": "object", "properties": map[string]any{"text": map[string]any{"type": "string"}}},
	}, func(args map[string]any) (any, error) {
		r := []rune(args["text"].(string))
		for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
			r[i], r[j] = r[j], r[i]
		}
		return string(r), nil
	})
}

func (p *reverse) Stop() error { return nil }

// NewPluginFactory is the plugin's only export.
func NewPluginFactory(name string, config map[string]any) (sdk.Plugin, error) {
	return &reverse{name: name}, nil
}
