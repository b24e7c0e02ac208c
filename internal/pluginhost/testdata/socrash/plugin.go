// Command socrash is a HomeAgent-style .so plugin of the tests that
// crashes its process: its tool socrash__crash panics on a goroutine of
// its own, which no recover can catch.
package main

import (
	"github.com/hearth-agent/hearth/sdk"
)

type plugin struct{ name string }

// NewPlugin is the factory Hearth looks up in the .so.
func NewPlugin(name string, _ map[string]any) (sdk.Plugin, error) { return &plugin{name: name}, nil }

func (p *plugin) Name() string { return p.name }
func (p *plugin) Stop() error  { return nil }

func (p *plugin) Start(s *sdk.PluginSDK) error {
	return s.RegisterTool("crash", sdk.ToolDef{Description: "crash the plugin's process"},
		func(map[string]any) (any, error) {
			done := make(chan struct{})
			go func() { panic("socrash: boom") }()
			<-done // never: the panic ends the process
			return nil, nil
		})
}

func main() {}
