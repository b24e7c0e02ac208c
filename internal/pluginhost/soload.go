//go:build (linux || darwin) && cgo

package pluginhost

import (
	"fmt"
	"plugin"
	"reflect"
	"strings"

	"github.com/hearth-agent/hearth/sdk"
)

// SOSupported reports whether this build can load .so plugins.
const SOSupported = true

// LoadSO opens a HomeAgent-style Go plugin and returns its factory: the
// exported NewPlugin, or NewPluginFactory when there is no NewPlugin. The compatibility mode has the Go runtime's real limits: the
// .so must be built with exactly this Go version and the same versions of
// every package it shares with Hearth (the sdk among them), with cgo, on
// Linux or macOS; it runs inside Hearth's process, so a crash in it takes
// Hearth down; and it can never be unloaded (disabling it takes effect at
// the next start). Prefer a child-process plugin (pluginrpc.Serve).
func LoadSO(path string) (sdk.NewPlugin, error) {
	p, err := plugin.Open(path)
	if err != nil {
		msg := err.Error()
		if strings.Contains(msg, "different version") || strings.Contains(msg, "built with") {
			return nil, fmt.Errorf("%s was built with another Go version or other package versions than this Hearth; rebuild it against the same Go (and hearth module) version: %w", path, err)
		}
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	for _, export := range []string{"NewPlugin", "NewPluginFactory"} {
		sym, err := p.Lookup(export)
		if err != nil {
			continue
		}
		switch f := sym.(type) {
		case func(string, map[string]any) (sdk.Plugin, error):
			return f, nil
		case *sdk.NewPlugin:
			return *f, nil
		}
		if foreignSDK(sym) {
			return nil, fmt.Errorf("%s was built against HomeAgent's own SDK, whose types are not Hearth's: install the plugin's Go source folder instead (`hearth plugin install SOURCE`), and Hearth builds it against its own", path)
		}
		return nil, fmt.Errorf("%s: %s has type %T, want func(name string, config map[string]any) (sdk.Plugin, error)", path, export, sym)
	}
	return nil, fmt.Errorf("%s exports neither NewPlugin nor NewPluginFactory", path)
}

// foreignSDK reports whether sym is a factory returning another SDK's
// Plugin: a .so built against HomeAgent's sdk package.
func foreignSDK(sym any) bool {
	t := reflect.TypeOf(sym)
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Func || t.NumOut() == 0 {
		return false
	}
	return strings.Contains(t.Out(0).PkgPath(), "homeagent")
}
