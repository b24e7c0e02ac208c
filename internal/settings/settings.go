// Package settings is the host side of the SDK's SettingsAPI and KV:
// plugin settings and core settings in the store's settings table (a
// namespace per plugin, "core" for Hearth's own), the settings plugins
// declare for the UI (ConfigDef, kept in memory, registered again at each
// start), and each plugin's private key-value storage.
//
// A value is any JSON. Set checks it against the plugin's declaration, if
// any (type, options, min/max), and a stored value is checked again when
// it is read (it may predate the declaration). A secret setting
// (ConfigDef.Secret, the type password or secret, or a key named like a
// secret whatever its declaration) is readable by its own plugin only:
// other plugins, Dump and the CLI get Mask. It is writable by its own
// plugin only, too; a plugin's write of another plugin's setting is
// recorded in the audit log (who, which plugin, which key; never a
// secret's value). No plugin has the namespace "core" or another name
// reserved for Hearth itself.
package settings

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/hearth-agent/hearth/internal/names"
	"github.com/hearth-agent/hearth/internal/store"
	"github.com/hearth-agent/hearth/sdk"
)

// Core is the namespace of Hearth's own settings.
const Core = "core"

// CoreDataDir is the core setting HomeAgent plugins read to find where to
// keep their files; it is answered, never stored.
const CoreDataDir = "core.daemon.data_dir"

// CoreDataDirShort is the same answer under the name some HomeAgent
// plugins use (daemon.data_dir, without the namespace).
const CoreDataDirShort = "daemon.data_dir"

// Mask replaces a secret's value wherever another party sees it.
const Mask = "******"

// Errors callers branch on.
var (
	// ErrInvalid wraps a value that does not fit its declaration.
	ErrInvalid = errors.New("invalid setting value")
	// ErrForbidden wraps a write of another plugin's secret, and a
	// plugin's use of a namespace that is not a plugin's (core).
	ErrForbidden = errors.New("not allowed")
)

// AuditTool is the prefix of the audit log's tool column for a plugin's
// write of another plugin's setting: settings:<plugin>.<key>.
const AuditTool = "settings:"

// Store keeps settings, their declarations and the plugins' key-value
// storage; *store.Store is the one Hearth uses. Values and declarations
// are JSON.
type Store interface {
	// Setting returns a setting's value; ok is false if it is not set.
	Setting(ctx context.Context, namespace, key string) (value json.RawMessage, ok bool, err error)
	// SetSetting stores a setting's value.
	SetSetting(ctx context.Context, namespace, key string, value json.RawMessage) error
	// SettingKeys returns a namespace's keys that start with prefix, sorted.
	SettingKeys(ctx context.Context, namespace, prefix string) ([]string, error)
	// AllSettings returns every setting by namespace and key.
	AllSettings(ctx context.Context) (map[string]map[string]json.RawMessage, error)
	// SetSettingDef stores a setting's declaration.
	SetSettingDef(ctx context.Context, namespace, key string, def json.RawMessage) error
	// SettingDefs returns every declaration by namespace and key.
	SettingDefs(ctx context.Context) (map[string]map[string]json.RawMessage, error)
	// KVGet returns a plugin's value; ok is false if there is none.
	KVGet(ctx context.Context, plugin, key string) (value json.RawMessage, ok bool, err error)
	// KVSet stores a plugin's value.
	KVSet(ctx context.Context, plugin, key string, value json.RawMessage) error
	// KVDelete removes a plugin's value; a missing one is not an error.
	KVDelete(ctx context.Context, plugin, key string) error
	// AppendAudit adds an entry to the audit log (writes of another
	// plugin's settings are recorded there).
	AppendAudit(ctx context.Context, e store.AuditEntry) error
}

var _ Store = (*store.Store)(nil)

// Service holds the settings of every plugin.
type Service struct {
	st      Store
	dataDir string

	mu   sync.RWMutex
	defs map[string]map[string]sdk.ConfigDef // namespace, key

	gates  sync.Map // namespace → Gate (gate.go)
	warned sync.Map // namespace, key and value hash of a stored value found invalid, warned once
}

// New returns the service over st; dataDir is Hearth's data directory.
// The declarations plugins made before are loaded from the store, so
// their checks and secrets hold before the plugins start again (and in
// processes that never start them, such as the CLI).
func New(st Store, dataDir string) *Service {
	s := &Service{st: st, dataDir: dataDir, defs: map[string]map[string]sdk.ConfigDef{}}
	stored, err := st.SettingDefs(context.Background())
	if err != nil {
		slog.Warn("settings: could not read the stored declarations", "err", err)
	}
	for ns, m := range stored {
		for key, raw := range m {
			var d sdk.ConfigDef
			if json.Unmarshal(raw, &d) == nil && d.Key == key {
				d.Secret = SecretDef(d)
				if s.defs[ns] == nil {
					s.defs[ns] = map[string]sdk.ConfigDef{}
				}
				s.defs[ns][key] = d
			}
		}
	}
	return s
}

// For returns plugin's view of the settings.
func (s *Service) For(plugin string) *Plugin { return &Plugin{s: s, name: plugin} }

// KV returns plugin's private key-value storage.
func (s *Service) KV(plugin string) sdk.KV { return kv{s.st, plugin} }

// Plugin is one plugin's SettingsAPI.
type Plugin struct {
	s    *Service
	name string
}

var _ sdk.SettingsAPI = (*Plugin)(nil)

func (s *Service) def(ns, key string) (sdk.ConfigDef, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	d, ok := s.defs[ns][key]
	return d, ok
}

// Value returns ns's setting as stored JSON, or its declared default; ok is
// false for neither. A stored value that does not fit the key's
// declaration (stored before the key was declared, or under an older
// declaration) is not returned: the default is, and the log says so once,
// naming the key, never the value. A stored JSON null (a reset the plugin
// is still to be told of, see Apply) is returned as null unless the key
// declares a default.
func (s *Service) Value(ns, key string) (json.RawMessage, bool, error) {
	v, ok, err := s.st.Setting(context.Background(), ns, key)
	if err != nil {
		return nil, false, err
	}
	d, declared := s.def(ns, key)
	if ok && declared && !isNull(v) && !s.fits(ns, key, d, v) {
		ok = false
	}
	if ok && !(isNull(v) && declared && d.Default != nil) {
		return v, true, nil
	}
	if declared && d.Default != nil {
		b, err := json.Marshal(d.Default)
		return b, err == nil, err
	}
	return nil, false, nil
}

// fits reports whether ns's stored raw fits its declaration d, warning
// once per value when it does not.
func (s *Service) fits(ns, key string, d sdk.ConfigDef, raw json.RawMessage) bool {
	var v any
	err := json.Unmarshal(raw, &v)
	if err == nil {
		err = check(d, v)
	}
	if err == nil {
		return true
	}
	if _, seen := s.warned.LoadOrStore(valueHash(ns, key, raw), true); !seen {
		args := []any{"namespace", ns, "key", key, "type", d.Type, "default", d.Default != nil}
		if !s.Secret(ns, key) {
			args = append(args, "err", err) // a check's message can quote the value
		}
		slog.Warn("settings: the stored value does not fit its declaration; using the default", args...)
	}
	return false
}

func (s *Service) get(ns, key string, masked bool) (any, error) {
	raw, ok, err := s.Value(ns, key)
	if err != nil {
		return nil, err
	}
	if !ok || isNull(raw) {
		return nil, fmt.Errorf("%s.%s: %w", ns, key, sdk.ErrNotFound)
	}
	if masked && s.Secret(ns, key) {
		return Mask, nil
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, fmt.Errorf("%s.%s: stored value is not JSON: %w", ns, key, err)
	}
	return v, nil
}

// Secret reports whether ns's key is secret: declared so (see
// SecretDef), or named like one (token, secret, password, api key; see
// sdk.SecretName) whether declared or not, so neither a key set before
// its plugin declared it nor one declared as a plain string ({Key:
// "api_key", Type: "string"}) is shown. Only a key declared boolean, or a
// number counting tokens (max_tokens), is exempt from its name.
func (s *Service) Secret(ns, key string) bool {
	if d, ok := s.def(ns, key); ok {
		return SecretDef(d)
	}
	return secretName(key)
}

// secretName reports whether key is named like a secret; see
// sdk.SecretName.
func secretName(key string) bool { return sdk.SecretName(key) }

// SetJSON stores ns's setting after checking it against its declaration.
func (s *Service) SetJSON(ns, key string, raw json.RawMessage) error {
	if key == "" {
		return fmt.Errorf("%w: empty key", ErrInvalid)
	}
	if ns == Core && (key == CoreDataDir || key == CoreDataDirShort) {
		return fmt.Errorf("%w: %s is read-only", ErrInvalid, key)
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		if s.Secret(ns, key) {
			return fmt.Errorf("%w: %s.%s is not JSON", ErrInvalid, ns, key) // the decoder's message can quote the value
		}
		return fmt.Errorf("%w: %s.%s is not JSON: %v", ErrInvalid, ns, key, err)
	}
	if d, ok := s.def(ns, key); ok {
		if err := check(d, v); err != nil && SecretDef(d) {
			return fmt.Errorf("%w: %s.%s: the value does not fit its declaration", ErrInvalid, ns, key) // no value in messages
		} else if err != nil {
			return fmt.Errorf("%w: %s.%s: %v", ErrInvalid, ns, key, err)
		}
	}
	prev := json.RawMessage("null")
	if s.gated(ns) {
		if v, ok, err := s.Value(ns, key); err == nil && ok {
			prev = v
		}
	}
	if err := s.gate(ns, key, raw); err != nil {
		return err
	}
	if err := s.st.SetSetting(context.Background(), ns, key, raw); err != nil {
		if s.gate(ns, key, prev) != nil { // the plugin took a value that was not saved: give it back the old one
			slog.Warn("settings: the plugin did not take back its previous value after a change that was not saved", "namespace", ns, "key", key)
		}
		return fmt.Errorf("saving %s.%s: %w", ns, key, err)
	}
	return nil
}

func (s *Service) set(ns, key string, v any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("%w: %s.%s cannot be encoded as JSON: %v", ErrInvalid, ns, key, err)
	}
	return s.SetJSON(ns, key, raw)
}

// Keys returns ns's keys with prefix: those stored and those declared.
func (s *Service) Keys(ns, prefix string) ([]string, error) {
	keys, err := s.st.SettingKeys(context.Background(), ns, prefix)
	if err != nil {
		return nil, err
	}
	s.mu.RLock()
	for k := range s.defs[ns] {
		if strings.HasPrefix(k, prefix) && !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	s.mu.RUnlock()
	sort.Strings(keys)
	return keys, nil
}

// Register declares a setting of ns, and stores the declaration.
func (s *Service) Register(ns string, d sdk.ConfigDef) error {
	if d.Key == "" {
		return fmt.Errorf("%w: a declaration without a key", ErrInvalid)
	}
	d.Secret = SecretDef(d)
	raw, err := json.Marshal(d)
	if err != nil {
		return fmt.Errorf("%w: declaration of %s: %v", ErrInvalid, d.Key, err)
	}
	s.mu.Lock()
	if s.defs[ns] == nil {
		s.defs[ns] = map[string]sdk.ConfigDef{}
	}
	s.defs[ns][d.Key] = d
	s.mu.Unlock()
	return s.st.SetSettingDef(context.Background(), ns, d.Key, raw)
}

// Defs returns ns's declarations with prefix, sorted by key.
func (s *Service) Defs(ns, prefix string) []*sdk.ConfigDef {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []*sdk.ConfigDef
	for k, d := range s.defs[ns] {
		if strings.HasPrefix(k, prefix) {
			d := d
			out = append(out, &d)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

// Dump returns every setting by namespace, secrets masked, declared
// defaults included (in place of a stored value that does not fit its
// declaration, as Value).
func (s *Service) Dump() (map[string]any, error) {
	all, err := s.st.AllSettings(context.Background())
	if err != nil {
		return nil, err
	}
	out := map[string]any{}
	put := func(ns, key string, raw json.RawMessage) {
		m, _ := out[ns].(map[string]any)
		if m == nil {
			m = map[string]any{}
			out[ns] = m
		}
		if s.Secret(ns, key) {
			m[key] = Mask
			return
		}
		var v any
		if json.Unmarshal(raw, &v) == nil {
			m[key] = v
		}
	}
	for ns, values := range all {
		for k, raw := range values {
			if d, ok := s.def(ns, k); ok && !isNull(raw) && !s.fits(ns, k, d, raw) {
				delete(values, k) // its default, if any, is put below
				continue
			}
			put(ns, k, raw)
		}
	}
	s.mu.RLock()
	defs := map[string][]sdk.ConfigDef{}
	for ns, m := range s.defs {
		for _, d := range m {
			defs[ns] = append(defs[ns], d)
		}
	}
	s.mu.RUnlock()
	for ns, list := range defs {
		for _, d := range list {
			if _, stored := all[ns][d.Key]; !stored && d.Default != nil {
				raw, err := json.Marshal(d.Default)
				if err == nil {
					put(ns, d.Key, raw)
				}
			}
		}
	}
	return out, nil
}

// Namespaces returns the plugins that have settings or declarations.
func (s *Service) Namespaces() ([]string, error) {
	all, err := s.st.AllSettings(context.Background())
	if err != nil {
		return nil, err
	}
	set := map[string]bool{}
	for ns := range all {
		set[ns] = true
	}
	s.mu.RLock()
	for ns := range s.defs {
		set[ns] = true
	}
	s.mu.RUnlock()
	delete(set, Core)
	out := make([]string, 0, len(set))
	for ns := range set {
		out = append(out, ns)
	}
	sort.Strings(out)
	return out, nil
}

// CheckPlugin refuses, wrapping ErrForbidden, a namespace that is not a
// plugin's: empty, "core", or another name reserved for Hearth itself.
func CheckPlugin(ns string) error {
	if ns == "" {
		return fmt.Errorf("%w: no plugin named", ErrForbidden)
	}
	if names.IsReserved(ns) {
		return fmt.Errorf("%w: %q is not a plugin's namespace (Hearth's own settings are the core ones)", ErrForbidden, ns)
	}
	return nil
}

// WriteProtected reports whether ns's key may be written by ns only: a
// secret, declared so or named like one (whatever its declaration says).
func (s *Service) WriteProtected(ns, key string) bool {
	return s.Secret(ns, key) || secretName(key)
}

// SetForPlugin stores target's setting on behalf of plugin writer. A
// plugin's own setting is SetJSON. Another plugin's secret (see
// WriteProtected) is refused with ErrForbidden; any other write is
// recorded in the audit log before it is made (and refused if it cannot
// be), and its failure after. Refused secret writes are recorded too.
func (s *Service) SetForPlugin(writer, target, key string, raw json.RawMessage) error {
	if err := CheckPlugin(writer); err != nil {
		return err
	}
	if err := CheckPlugin(target); err != nil {
		return err
	}
	if target == writer {
		return s.SetJSON(target, key, raw)
	}
	if key == "" {
		return fmt.Errorf("%w: empty key", ErrInvalid)
	}
	if s.WriteProtected(target, key) {
		s.audit(writer, target, key, "", "deny", "denied", "secrets are writable by their own plugin only")
		return fmt.Errorf("%w: %s.%s is a secret of plugin %s; only that plugin may change it", ErrForbidden, target, key, target)
	}
	if err := s.audit(writer, target, key, valueHash(target, key, raw), "allow", "written", "another plugin's setting"); err != nil {
		return fmt.Errorf("%s.%s not written: recording it in the audit log failed: %w", target, key, err)
	}
	if err := s.SetJSON(target, key, raw); err != nil {
		s.audit(writer, target, key, valueHash(target, key, raw), "allow", "error", "another plugin's setting")
		return err
	}
	return nil
}

// audit records writer's write of target's key.
func (s *Service) audit(writer, target, key, hash, decision, outcome, rule string) error {
	err := s.st.AppendAudit(context.Background(), store.AuditEntry{
		At: time.Now(), Channel: "settings", User: writer, Role: "plugin", Actor: "plugin " + writer,
		Tool: AuditTool + target + "." + key, Effect: string(sdk.EffectWrite), ArgsHash: hash,
		Decision: decision, Rule: rule, DecidedBy: "settings", Outcome: outcome,
	})
	if err != nil {
		slog.Error("settings: writing the audit log failed", "plugin", writer, "target", target, "key", key, "err", err)
	}
	return err
}

// valueHash identifies a written value without showing it.
func valueHash(target, key string, raw json.RawMessage) string {
	h := sha256.New()
	h.Write([]byte(target + "\x00" + key + "\x00"))
	h.Write(raw)
	return hex.EncodeToString(h.Sum(nil))[:32]
}

// Get implements sdk.SettingsAPI.
func (p *Plugin) Get(key string) (any, error) {
	if err := CheckPlugin(p.name); err != nil {
		return nil, err
	}
	return p.s.get(p.name, key, false)
}

// Set implements sdk.SettingsAPI.
func (p *Plugin) Set(key string, value any) error {
	if err := CheckPlugin(p.name); err != nil {
		return err
	}
	return p.s.set(p.name, key, value)
}

// List implements sdk.SettingsAPI.
func (p *Plugin) List(prefix string) ([]string, error) {
	if err := CheckPlugin(p.name); err != nil {
		return nil, err
	}
	return p.s.Keys(p.name, prefix)
}

// GetCore implements sdk.SettingsAPI; core.daemon.data_dir is Hearth's
// data directory.
func (p *Plugin) GetCore(key string) (any, error) {
	if key == CoreDataDir || key == CoreDataDirShort {
		return p.s.dataDir, nil
	}
	return p.s.get(Core, key, false)
}

// SetCore implements sdk.SettingsAPI.
func (p *Plugin) SetCore(key string, value any) error { return p.s.set(Core, key, value) }

// ListCore implements sdk.SettingsAPI.
func (p *Plugin) ListCore(prefix string) ([]string, error) { return p.s.Keys(Core, prefix) }

// GetPlugin implements sdk.SettingsAPI: another plugin's secrets are
// masked, and Hearth's core settings are not a plugin's.
func (p *Plugin) GetPlugin(plugin, key string) (any, error) {
	if err := CheckPlugin(plugin); err != nil {
		return nil, err
	}
	return p.s.get(plugin, key, plugin != p.name)
}

// SetPlugin implements sdk.SettingsAPI: another plugin's secrets are
// read-only, and every write of another plugin's setting is audited (see
// Service.SetForPlugin).
func (p *Plugin) SetPlugin(plugin, key string, value any) error {
	raw, err := json.Marshal(value)
	if err != nil {
		return fmt.Errorf("%w: %s.%s cannot be encoded as JSON: %v", ErrInvalid, plugin, key, err)
	}
	return p.s.SetForPlugin(p.name, plugin, key, raw)
}

// ListPlugin implements sdk.SettingsAPI.
func (p *Plugin) ListPlugin(plugin, prefix string) ([]string, error) {
	if err := CheckPlugin(plugin); err != nil {
		return nil, err
	}
	return p.s.Keys(plugin, prefix)
}

// RegisterDef implements sdk.SettingsAPI.
func (p *Plugin) RegisterDef(def sdk.ConfigDef) {
	err := CheckPlugin(p.name)
	if err == nil {
		err = p.s.Register(p.name, def)
	}
	if err != nil {
		sdkLog(p.name, err)
	}
}

// Defs implements sdk.SettingsAPI.
func (p *Plugin) Defs(prefix string) []*sdk.ConfigDef { return p.s.Defs(p.name, prefix) }

// Dump implements sdk.SettingsAPI: every namespace's values, secrets
// masked.
func (p *Plugin) Dump() map[string]any {
	d, err := p.s.Dump()
	if err != nil {
		sdkLog(p.name, err)
	}
	return d
}

// Plugins implements sdk.SettingsAPI.
func (p *Plugin) Plugins() []string {
	list, err := p.s.Namespaces()
	if err != nil {
		sdkLog(p.name, err)
	}
	return list
}

// DataDir implements sdk.SettingsAPI: the plugin's own directory, created
// on first use.
func (p *Plugin) DataDir() string {
	dir := filepath.Join(p.s.dataDir, "plugin_data", p.name)
	_ = os.MkdirAll(dir, 0o700)
	return dir
}

// kv is one plugin's key-value storage.
type kv struct {
	st     Store
	plugin string
}

func (k kv) Get(ctx context.Context, key string, v any) (bool, error) {
	raw, ok, err := k.st.KVGet(ctx, k.plugin, key)
	if err != nil || !ok {
		return false, err
	}
	return true, json.Unmarshal(raw, v)
}

func (k kv) Set(ctx context.Context, key string, v any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("kv %q: the value cannot be encoded as JSON: %w", key, err)
	}
	return k.st.KVSet(ctx, k.plugin, key, raw)
}

func (k kv) Delete(ctx context.Context, key string) error { return k.st.KVDelete(ctx, k.plugin, key) }

// sdkLog reports an error of a SettingsAPI method that cannot return one.
func sdkLog(plugin string, err error) {
	slog.Warn("settings", "plugin", plugin, "err", err)
}
