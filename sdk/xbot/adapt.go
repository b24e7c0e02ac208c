package xbot

import (
	"errors"
	"fmt"

	"github.com/hearth-agent/hearth/sdk"
)

// Adapt makes a Hearth plugin of an xbot Go plugin, for sdk.RegisterFactory
// (compiled in), kernel loading, or pluginrpc.Serve (a child process):
//
//	func init() { sdk.RegisterFactory("hello-world", xbot.Adapt(helloworld.New())) }
//
// Start calls Activate with a PluginContext (a *Context) over the plugin's
// PluginSDK; Stop calls Deactivate with the same. The plugin's Hearth name
// is the registered one; its manifest's ID is what PluginID returns. An
// xbot plugin keeps its state in itself, so every call of the factory
// returns the same plugin: register one Adapt per plugin value.
func Adapt(p Plugin) sdk.NewPlugin {
	a := &adapted{p: p}
	return func(name string, _ map[string]any) (sdk.Plugin, error) {
		if p == nil {
			return nil, errors.New("xbot: Adapt(nil)")
		}
		a.name = name
		return a, nil
	}
}

// adapted is an xbot plugin as a Hearth plugin.
type adapted struct {
	p    Plugin
	name string
	ctx  *Context
}

// Name is the registered name.
func (a *adapted) Name() string { return a.name }

// Start activates the plugin.
func (a *adapted) Start(s *sdk.PluginSDK) error {
	c := NewContext(s)
	if id := a.p.Manifest().ID; id != "" {
		c.id = id
	}
	if err := a.p.Activate(c); err != nil {
		c.fail(err)
		return &ErrPluginActivationFailed{PluginID: c.id, Err: err}
	}
	a.ctx = c
	return nil
}

// Stop deactivates the plugin.
func (a *adapted) Stop() error {
	c := a.ctx
	if c == nil {
		return nil
	}
	a.ctx = nil
	defer c.clearWidgets()
	if err := a.p.Deactivate(c); err != nil {
		return fmt.Errorf("xbot plugin %s: deactivate: %w", c.id, err)
	}
	return nil
}

// ContextOf returns the PluginContext Adapt gave the plugin's Activate,
// or nil before Start and after Stop (for tests and hosts showing the
// plugin's widgets).
func ContextOf(p sdk.Plugin) *Context {
	if a, ok := p.(*adapted); ok {
		return a.ctx
	}
	return nil
}
