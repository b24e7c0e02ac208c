package kernel

import (
	"errors"
	"fmt"
	"strings"

	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/host"
)

type loadedPlugin struct {
	name     string
	plugin   sdk.Plugin
	sdk      *sdk.PluginSDK
	manifest sdk.Manifest
}

// LoadPlugin loads a plugin compiled into Hearth; see LoadPluginFrom.
func (k *Kernel) LoadPlugin(name string, factory sdk.NewPlugin, config map[string]any) error {
	return k.LoadPluginFrom(name, fmt.Sprintf("the built-in plugin %q", name), factory, config)
}

// LoadPluginFrom claims name for the plugin (origin describes it in the
// message another claimant gets, e.g. "the .so plugin in /x/pay"), creates
// the plugin with factory and starts it. A name that is reserved or held
// by another plugin is refused before the factory runs. A plugin whose
// manifest is invalid is refused; one whose manifest requires capabilities
// this host lacks is hidden (the error wraps ErrHidden and says what is
// missing) and keeps its name. When Start fails or panics, whatever the
// plugin registered is withdrawn and the name is given back.
func (k *Kernel) LoadPluginFrom(name, origin string, factory sdk.NewPlugin, config map[string]any) (err error) {
	claim, err := k.cfg.Names.Claim(name, origin)
	if err != nil {
		return fmt.Errorf("plugin %q: %w", name, err)
	}
	hidden := false
	defer func() {
		if err != nil && !hidden {
			claim.Release()
		}
	}()
	p, err := safeFactory(name, factory, config)
	if err != nil {
		return err
	}
	m, _, err := manifestOf(name, p)
	if err != nil {
		return fmt.Errorf("plugin %q: %w", name, err)
	}
	if missing := unmet(m.Requires); len(missing) > 0 {
		hidden = true
		reason := "needs " + strings.Join(missing, ", ") + ", which this host does not provide"
		k.mu.Lock()
		if k.hidden == nil {
			k.hidden = map[string]string{}
		}
		k.hidden[name] = reason
		k.claims[name] = claim
		k.mu.Unlock()
		return fmt.Errorf("plugin %q: %w: %s", name, ErrHidden, reason)
	}
	if k.cfg.Policy != nil {
		k.cfg.Policy.SetDefaults(name, m.DefaultModes)
	}
	k.SetCapabilities(name, m.Capabilities)
	s := host.New(name, k)
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("plugin %q panicked in Start: %v", name, r)
		}
		if err != nil {
			k.withdraw(name)
		}
	}()
	if err := p.Start(s); err != nil {
		return fmt.Errorf("starting plugin %q: %w", name, err)
	}
	k.mu.Lock()
	k.plugins = append(k.plugins, &loadedPlugin{name: name, plugin: p, sdk: s, manifest: m})
	k.claims[name] = claim
	k.mu.Unlock()
	return nil
}

func safeFactory(name string, factory sdk.NewPlugin, config map[string]any) (p sdk.Plugin, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("plugin %q panicked in its factory: %v", name, r)
		}
	}()
	if config == nil {
		config = map[string]any{}
	}
	p, err = factory(name, config)
	if err != nil {
		return nil, fmt.Errorf("creating plugin %q: %w", name, err)
	}
	if p == nil {
		return nil, fmt.Errorf("creating plugin %q: factory returned nil", name)
	}
	return p, nil
}

// Plugins returns the names of the loaded plugins in load order.
func (k *Kernel) Plugins() []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	names := make([]string, len(k.plugins))
	for i, p := range k.plugins {
		names[i] = p.name
	}
	return names
}

func (k *Kernel) stopPlugins() error {
	k.mu.Lock()
	list := k.plugins
	k.plugins = nil
	k.mu.Unlock()
	var errs []error
	for i := len(list) - 1; i >= 0; i-- {
		lp := list[i]
		host.RunStopHandlers(lp.sdk)
		if err := safeStop(lp.plugin); err != nil {
			errs = append(errs, fmt.Errorf("stopping plugin %q: %w", lp.name, err))
		}
		k.withdraw(lp.name)
	}
	k.mu.Lock()
	for name, c := range k.claims {
		c.Release()
		delete(k.claims, name)
	}
	k.mu.Unlock()
	return errors.Join(errs...)
}

// Withdraw removes every tool, stage handler and decision hook of plugin,
// for loaders whose plugins come and go (a child process that died). The
// registrations of a plugin loaded in process (LoadPlugin) are never
// withdrawn this way: only stopping the kernel removes them.
func (k *Kernel) Withdraw(plugin string) {
	k.mu.Lock()
	_, inProcess := k.claims[plugin]
	k.mu.Unlock()
	if inProcess {
		k.log.Error("refused to withdraw a plugin loaded in process", "plugin", plugin)
		return
	}
	k.withdraw(plugin)
}

// withdraw removes everything plugin registered.
func (k *Kernel) withdraw(plugin string) {
	k.mu.Lock()
	delete(k.caps, plugin)
	k.mu.Unlock()
	k.tools.RemovePlugin(plugin)
	k.pipeline.RemovePlugin(plugin)
	k.removeCompactHooks(plugin)
	k.dropChannels(plugin)
	k.dropExternal(plugin)
	k.haSubs.stopAll(plugin)
	if k.cfg.Policy != nil {
		k.cfg.Policy.RemovePlugin(plugin)
	}
}

// Suspend is Withdraw for a plugin that is down but not removed (a child
// process that crashed, or has not finished its handshake): its tools,
// stage handlers, instructions and context go, its default modes stay, and
// its decision hooks are replaced by a stand-in that refuses the calls
// they would be asked about (see policy.Engine.SuspendHooks) until
// ResumeHooks or Withdraw. A call that passed before_toolcall while the
// plugin's handlers of that stage were withdrawn, and waited for the
// plugin, is refused once they are registered again: they never saw it.
func (k *Kernel) Suspend(plugin, reason string, hold bool) {
	k.tools.RemovePlugin(plugin)
	k.pipeline.RemovePlugin(plugin)
	k.removeCompactHooks(plugin)
	k.dropChannels(plugin)
	k.dropExternal(plugin)
	if k.cfg.Policy != nil {
		k.cfg.Policy.SuspendHooks(plugin, reason, hold)
	}
}

// SuspendHooks is the part of Suspend for a plugin that registered nothing
// yet (a child process starting): its decision hooks, if it has or will
// have any, refuse until ResumeHooks or Withdraw.
func (k *Kernel) SuspendHooks(plugin, reason string, hold bool) {
	if k.cfg.Policy != nil {
		k.cfg.Policy.SuspendHooks(plugin, reason, hold)
	}
}

// ResumeHooks ends a suspension: the plugin's hooks answer again.
func (k *Kernel) ResumeHooks(plugin string) {
	if k.cfg.Policy != nil {
		k.cfg.Policy.ResumeHooks(plugin)
	}
}

func safeStop(p sdk.Plugin) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	return p.Stop()
}
