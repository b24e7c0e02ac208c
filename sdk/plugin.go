// Package sdk is the one package Hearth plugin authors import.
//
// It carries HomeAgent's Go PluginSDK surface with the same names and
// signatures (Plugin, PluginSDK, ToolDef, the seven stages and
// StageContext, the memory, knowledge, settings and LLM interfaces), so a
// HomeAgent plugin ports by changing its import path, plus Hearth's own
// additions: context-aware tool handlers with a ToolContext and the typed
// binding AddTool, whose input schema is inferred from a Go struct.
//
// A plugin registers a factory from init:
//
//	func init() { sdk.RegisterFactory("weather", New) }
//
// and Hearth calls the factory, then Start with a *PluginSDK through which
// the plugin registers its tools and stage handlers. What only hosts use
// (building a PluginSDK, running its lifecycle) is in package sdk/host, and
// the child-process protocol in sdk/wire; a plugin needs neither.
package sdk

import (
	"fmt"
	"sort"
	"sync"
)

// SDKVersion is the version of the plugin API this package implements.
const SDKVersion = "0.1.0"

// Plugin is the interface every plugin implements.
type Plugin interface {
	// Name returns the plugin's name, the same as its registered name.
	Name() string
	// Start registers the plugin's tools, stage handlers and settings.
	Start(sdk *PluginSDK) error
	// Stop releases what Start acquired: connections, goroutines, files.
	Stop() error
}

// NewPlugin is the factory a plugin provides. name is the plugin's
// registered name (and its configuration namespace); config carries
// injected configuration and may be empty.
//
// A `.so` plugin exports a function of this type under the name NewPlugin.
type NewPlugin func(name string, config map[string]any) (Plugin, error)

var factories = struct {
	sync.RWMutex
	m map[string]NewPlugin
}{m: map[string]NewPlugin{}}

// RegisterFactory makes a compiled-in plugin available under name. It is
// meant to be called from init and panics on an empty name, a nil factory
// or a name registered twice, like database/sql.Register.
func RegisterFactory(name string, factory NewPlugin) {
	if name == "" {
		panic("sdk: RegisterFactory with an empty name")
	}
	if factory == nil {
		panic(fmt.Sprintf("sdk: RegisterFactory %q with a nil factory", name))
	}
	factories.Lock()
	defer factories.Unlock()
	if _, dup := factories.m[name]; dup {
		panic(fmt.Sprintf("sdk: RegisterFactory called twice for %q", name))
	}
	factories.m[name] = factory
}

// Factory returns the factory registered under name.
func Factory(name string) (NewPlugin, bool) {
	factories.RLock()
	defer factories.RUnlock()
	f, ok := factories.m[name]
	return f, ok
}

// Factories returns the names of all registered factories, sorted.
func Factories() []string {
	factories.RLock()
	defer factories.RUnlock()
	names := make([]string, 0, len(factories.m))
	for n := range factories.m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
