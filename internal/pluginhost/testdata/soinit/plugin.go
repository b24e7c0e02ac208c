// Command soinit is a HomeAgent-style .so plugin of the tests that
// misbehaves while it is loaded, in an init function, as the file
// "mode" in its folder (the loader's working directory) says: panic,
// block (forever), exit; anything else loads, with the tools ok and env
// (the loader's environment).
package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/hearth-agent/hearth/sdk"
)

func init() {
	mode, _ := os.ReadFile("mode")
	switch strings.TrimSpace(string(mode)) {
	case "panic":
		panic("soinit: init panicked")
	case "block":
		select {}
	case "exit":
		fmt.Fprintln(os.Stderr, "soinit: leaving in init")
		os.Exit(0)
	}
}

type plugin struct{ name string }

// NewPlugin is the factory Hearth looks up in the .so.
func NewPlugin(name string, _ map[string]any) (sdk.Plugin, error) { return &plugin{name: name}, nil }

func (p *plugin) Name() string { return p.name }
func (p *plugin) Stop() error  { return nil }

func (p *plugin) Start(s *sdk.PluginSDK) error {
	if err := s.RegisterTool("env", sdk.ToolDef{Description: "the loader's environment"},
		func(map[string]any) (any, error) { return strings.Join(os.Environ(), "\n"), nil }); err != nil {
		return err
	}
	return s.RegisterTool("ok", sdk.ToolDef{Description: "answers ok"},
		func(map[string]any) (any, error) { return "ok", nil })
}

func main() {}
