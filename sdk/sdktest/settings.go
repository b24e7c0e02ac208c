package sdktest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/hearth-agent/hearth/sdk"
)

// Settings is an in-memory sdk.SettingsAPI for tests that answers as
// Hearth's host does: an unset key reads as its declared default, or as
// nil with an error wrapping sdk.ErrNotFound; a write is checked against
// its declaration (sdk.ConfigDef.Check); another plugin's secret (Secret
// or type password) reads as Mask; core.daemon.data_dir and
// daemon.data_dir answer the data directory and cannot be written; Dump
// is by namespace with secrets masked. Its zero value is not usable; call
// NewSettings.
type Settings struct {
	plugin string
	root   *string // the data directory; DataDir is <root>/plugin_data/<plugin>

	mu     *sync.Mutex
	values map[string]map[string]any           // namespace -> key -> value; "core" is Hearth's
	defs   map[string]map[string]sdk.ConfigDef // namespace -> key -> declaration
}

var _ sdk.SettingsAPI = (*Settings)(nil)

// Mask is what a secret reads as to anyone but its own plugin (the same
// text Hearth uses).
const Mask = "******"

// The core keys HomeAgent plugins read to find the data directory.
const (
	coreDataDir      = "core.daemon.data_dir"
	coreDataDirShort = "daemon.data_dir"
	coreNS           = "core"
)

// errInvalid is the refusal of a value that does not fit its declaration.
var errInvalid = errors.New("invalid setting value")

// NewSettings returns empty settings.
func NewSettings() *Settings {
	return &Settings{mu: &sync.Mutex{}, root: new(string),
		values: map[string]map[string]any{}, defs: map[string]map[string]sdk.ConfigDef{}}
}

// For returns a view of the same settings as seen by plugin.
func (s *Settings) For(plugin string) *Settings {
	c := *s
	c.plugin = plugin
	return &c
}

func (s *Settings) def(ns, key string) (sdk.ConfigDef, bool) {
	d, ok := s.defs[ns][key]
	return d, ok
}

func (s *Settings) get(ns, key string, masked bool) (any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.values[ns][key]
	d, declared := s.def(ns, key)
	if !ok && declared && d.Default != nil {
		v, ok = d.Default, true
	}
	if !ok {
		return nil, fmt.Errorf("%s.%s: %w", ns, key, sdk.ErrNotFound)
	}
	if masked && declared && d.IsSecret() {
		return Mask, nil
	}
	return v, nil
}

func (s *Settings) set(ns, key string, v any) error {
	if key == "" {
		return fmt.Errorf("%w: empty key", errInvalid)
	}
	if ns == coreNS && (key == coreDataDir || key == coreDataDirShort) {
		return fmt.Errorf("%w: %s is read-only", errInvalid, key)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if d, ok := s.def(ns, key); ok {
		// As JSON decodes it: Hearth stores JSON, so an int is a float64.
		if err := d.Check(jsonValue(v)); err != nil {
			if d.IsSecret() {
				return fmt.Errorf("%w: %s.%s: the value does not fit its declaration", errInvalid, ns, key)
			}
			return fmt.Errorf("%w: %s.%s: %w", errInvalid, ns, key, err)
		}
	}
	if s.values[ns] == nil {
		s.values[ns] = map[string]any{}
	}
	s.values[ns][key] = v
	return nil
}

// jsonValue is v as a JSON round trip gives it back, for Check.
func jsonValue(v any) any {
	switch n := v.(type) {
	case int:
		return float64(n)
	case int8:
		return float64(n)
	case int16:
		return float64(n)
	case int32:
		return float64(n)
	case int64:
		return float64(n)
	case uint:
		return float64(n)
	case uint32:
		return float64(n)
	case uint64:
		return float64(n)
	case float32:
		return float64(n)
	}
	return v
}

func (s *Settings) list(ns, prefix string) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	seen := map[string]bool{}
	for k := range s.values[ns] {
		seen[k] = true
	}
	for k := range s.defs[ns] {
		seen[k] = true
	}
	var out []string
	for k := range seen {
		if strings.HasPrefix(k, prefix) {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out, nil
}

// Get reads this plugin's value: stored, else its declared default, else
// nil and an error wrapping sdk.ErrNotFound, as in Hearth.
func (s *Settings) Get(key string) (any, error) { return s.get(s.plugin, key, false) }

// Set writes this plugin's value, checked against its declaration.
func (s *Settings) Set(key string, v any) error { return s.set(s.plugin, key, v) }

// List lists this plugin's keys with prefix: stored and declared.
func (s *Settings) List(prefix string) ([]string, error) { return s.list(s.plugin, prefix) }

// GetCore reads a core value; core.daemon.data_dir and daemon.data_dir
// answer the data directory.
func (s *Settings) GetCore(key string) (any, error) {
	if key == coreDataDir || key == coreDataDirShort {
		return *s.root, nil
	}
	return s.get(coreNS, key, false)
}

// SetCore writes a core value.
func (s *Settings) SetCore(key string, v any) error { return s.set(coreNS, key, v) }

// ListCore lists core keys with prefix.
func (s *Settings) ListCore(prefix string) ([]string, error) { return s.list(coreNS, prefix) }

// GetPlugin reads another plugin's value; its secrets read as Mask.
func (s *Settings) GetPlugin(plugin, key string) (any, error) {
	return s.get(plugin, key, plugin != s.plugin)
}

// SetPlugin writes another plugin's value.
func (s *Settings) SetPlugin(plugin, key string, v any) error {
	s.mu.Lock()
	d, ok := s.def(plugin, key)
	s.mu.Unlock()
	if plugin != s.plugin && ok && d.IsSecret() {
		return fmt.Errorf("%s.%s is a secret of plugin %s: not allowed", plugin, key, plugin)
	}
	return s.set(plugin, key, v)
}

// ListPlugin lists another plugin's keys with prefix.
func (s *Settings) ListPlugin(plugin, prefix string) ([]string, error) {
	return s.list(plugin, prefix)
}

// RegisterDef records a declaration of this plugin's; a password is
// recorded as a secret, as Hearth does.
func (s *Settings) RegisterDef(def sdk.ConfigDef) {
	if def.Key == "" {
		return
	}
	def.Secret = def.IsSecret()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.defs[s.plugin] == nil {
		s.defs[s.plugin] = map[string]sdk.ConfigDef{}
	}
	s.defs[s.plugin][def.Key] = def
}

// Defs returns this plugin's declarations whose key has prefix, sorted.
func (s *Settings) Defs(prefix string) []*sdk.ConfigDef {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*sdk.ConfigDef
	for k, d := range s.defs[s.plugin] {
		if strings.HasPrefix(k, prefix) {
			d := d
			out = append(out, &d)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

// Dump returns every value by namespace ("core" for Hearth's), declared
// defaults included and secrets masked, as Hearth's Dump does.
func (s *Settings) Dump() map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]any{}
	put := func(ns, key string, v any) {
		m, _ := out[ns].(map[string]any)
		if m == nil {
			m = map[string]any{}
			out[ns] = m
		}
		if d, ok := s.def(ns, key); ok && d.IsSecret() {
			v = Mask
		}
		m[key] = v
	}
	for ns, defs := range s.defs {
		for k, d := range defs {
			if d.Default != nil {
				put(ns, k, d.Default)
			}
		}
	}
	for ns, m := range s.values {
		for k, v := range m {
			put(ns, k, v)
		}
	}
	return out
}

// Plugins returns the plugin namespaces that hold values or declarations.
func (s *Settings) Plugins() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	set := map[string]bool{}
	for ns := range s.values {
		set[ns] = true
	}
	for ns := range s.defs {
		set[ns] = true
	}
	delete(set, coreNS)
	out := make([]string, 0, len(set))
	for ns := range set {
		out = append(out, ns)
	}
	sort.Strings(out)
	return out
}

// DataDir returns the plugin's data directory, <data dir>/plugin_data/
// <plugin>, created on first use, as Hearth's is; "" when the settings did
// not come from a Harness (or SetDataDir).
func (s *Settings) DataDir() string {
	if *s.root == "" {
		return ""
	}
	dir := filepath.Join(*s.root, "plugin_data", s.plugin)
	_ = os.MkdirAll(dir, 0o700)
	return dir
}

// SetDataDir sets the data directory every view of these settings
// answers (GetCore("core.daemon.data_dir")), under which DataDir is.
func (s *Settings) SetDataDir(dir string) { *s.root = dir }
