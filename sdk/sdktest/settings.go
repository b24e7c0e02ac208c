package sdktest

import (
	"sort"
	"strings"
	"sync"

	"github.com/hearth-agent/hearth/sdk"
)

// Settings is an in-memory sdk.SettingsAPI for tests. Its zero value is not
// usable; call NewSettings.
type Settings struct {
	plugin  string
	dataDir string

	mu     *sync.Mutex
	values map[string]map[string]any // namespace -> key -> value; "" is core
	defs   *[]*sdk.ConfigDef
}

var _ sdk.SettingsAPI = (*Settings)(nil)

// NewSettings returns empty settings.
func NewSettings() *Settings {
	return &Settings{mu: &sync.Mutex{}, values: map[string]map[string]any{}, defs: new([]*sdk.ConfigDef)}
}

// For returns a view of the same settings as seen by plugin.
func (s *Settings) For(plugin string) *Settings {
	c := *s
	c.plugin = plugin
	return &c
}

func (s *Settings) get(ns, key string) (any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.values[ns][key], nil
}

func (s *Settings) set(ns, key string, v any) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.values[ns] == nil {
		s.values[ns] = map[string]any{}
	}
	s.values[ns][key] = v
	return nil
}

func (s *Settings) list(ns, prefix string) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for k := range s.values[ns] {
		if strings.HasPrefix(k, prefix) {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out, nil
}

// Get reads this plugin's value; a missing key reads as nil.
func (s *Settings) Get(key string) (any, error) { return s.get("plugin:"+s.plugin, key) }

// Set writes this plugin's value.
func (s *Settings) Set(key string, v any) error { return s.set("plugin:"+s.plugin, key, v) }

// List lists this plugin's keys with prefix.
func (s *Settings) List(prefix string) ([]string, error) { return s.list("plugin:"+s.plugin, prefix) }

// GetCore reads a core value.
func (s *Settings) GetCore(key string) (any, error) { return s.get("", key) }

// SetCore writes a core value.
func (s *Settings) SetCore(key string, v any) error { return s.set("", key, v) }

// ListCore lists core keys with prefix.
func (s *Settings) ListCore(prefix string) ([]string, error) { return s.list("", prefix) }

// GetPlugin reads another plugin's value.
func (s *Settings) GetPlugin(plugin, key string) (any, error) {
	return s.get("plugin:"+plugin, key)
}

// SetPlugin writes another plugin's value.
func (s *Settings) SetPlugin(plugin, key string, v any) error {
	return s.set("plugin:"+plugin, key, v)
}

// ListPlugin lists another plugin's keys with prefix.
func (s *Settings) ListPlugin(plugin, prefix string) ([]string, error) {
	return s.list("plugin:"+plugin, prefix)
}

// RegisterDef records a definition.
func (s *Settings) RegisterDef(def sdk.ConfigDef) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d := def
	*s.defs = append(*s.defs, &d)
}

// Defs returns the definitions whose key has prefix.
func (s *Settings) Defs(prefix string) []*sdk.ConfigDef {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*sdk.ConfigDef
	for _, d := range *s.defs {
		if strings.HasPrefix(d.Key, prefix) {
			out = append(out, d)
		}
	}
	return out
}

// Dump returns every value, keyed "<namespace>.<key>" ("core." for core).
func (s *Settings) Dump() map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]any{}
	for ns, m := range s.values {
		name := strings.TrimPrefix(ns, "plugin:")
		if ns == "" {
			name = "core"
		}
		for k, v := range m {
			out[name+"."+k] = v
		}
	}
	return out
}

// Plugins returns the plugin namespaces that hold values.
func (s *Settings) Plugins() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for ns := range s.values {
		if p, ok := strings.CutPrefix(ns, "plugin:"); ok {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// DataDir returns the plugin's data directory: a test temporary directory
// when the settings came from a Harness, else "".
func (s *Settings) DataDir() string { return s.dataDir }
