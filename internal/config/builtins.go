package config

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// BuiltinPlugin is one entry of config.json's "plugins": a plugin
// compiled into this Hearth (sdk.RegisterFactory), such as "time".
type BuiltinPlugin struct {
	// Enabled false does not load it, as disabled_plugins does; absent
	// or true loads it.
	Enabled *bool `json:"enabled,omitempty"`
	// Config is the map its factory gets (sdk.NewPlugin's second
	// argument): JSON values, numbers as float64.
	Config map[string]any `json:"config,omitempty"`
}

// validateBuiltins checks "plugins" against itself and disabled_plugins;
// CheckBuiltins checks the names once the compiled-in plugins are known.
func validateBuiltins(f *File) error {
	for name, p := range f.Plugins {
		if strings.TrimSpace(name) == "" {
			return fmt.Errorf("plugins: a plugin has an empty name")
		}
		if p.Enabled != nil && *p.Enabled && slices.Contains(f.DisabledPlugins, name) {
			return fmt.Errorf("plugins: %q is enabled there and listed in disabled_plugins: keep one", name)
		}
	}
	return nil
}

// CheckBuiltins says which names of "plugins" are not among the plugins
// compiled in (have), naming those that are.
func (f *File) CheckBuiltins(have []string) error {
	var unknown []string
	for name := range f.Plugins {
		if !slices.Contains(have, name) {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	sort.Strings(unknown)
	return fmt.Errorf("config.json: plugins: %s %s not compiled into this Hearth (compiled in: %s); "+
		"a plugin of the plugins folder takes settings instead (hearth settings)\n"+
		"config.json 的 plugins 只用于编译进 Hearth 的插件；插件目录中的插件请用 hearth settings 设置",
		strings.Join(quoteAll(unknown), ", "), map[bool]string{true: "is", false: "are"}[len(unknown) == 1], strings.Join(have, ", "))
}

func quoteAll(list []string) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}

// BuiltinDisabled says whether the compiled-in plugin name is not to be
// loaded: listed in disabled_plugins, or "enabled": false in "plugins".
func (f *File) BuiltinDisabled(name string) bool {
	if slices.Contains(f.DisabledPlugins, name) {
		return true
	}
	p, ok := f.Plugins[name]
	return ok && p.Enabled != nil && !*p.Enabled
}

// BuiltinConfig is the config map of the compiled-in plugin name; nil
// when config.json gives none.
func (f *File) BuiltinConfig(name string) map[string]any {
	return f.Plugins[name].Config
}
