// Command weather-so is the HomeAgent example plugin built as a Go plugin
// (.so), HomeAgent's dynamic plugin format, which Hearth loads in its
// compatibility mode:
//
//	go build -buildmode=plugin -o ~/.hearth/plugins/weather/weather.so ./examples/homeagent/weather-so
//
// It is the same source as the compiled-in and child-process versions.
package main

import (
	"github.com/hearth-agent/hearth/examples/homeagent/weather"
	"github.com/hearth-agent/hearth/sdk"
)

// NewPlugin is the factory HomeAgent's loader looks up.
func NewPlugin(name string, config map[string]any) (sdk.Plugin, error) {
	return weather.NewPlugin(name, config)
}

// main is unused: a plugin is loaded, not run.
func main() {}
