package pluginhost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/hearth-agent/hearth/internal/settings"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/wire"
)

// The PKU harness parts of a child plugin's manifest (docs/pku-wire.md):
// preferences become Hearth settings kept in step with the plugin's own
// get and set, dynamic tool descriptions are asked for when a request is
// built, data sources are checked against the plugin's tools, and
// model providers are listed as not supported yet, and speech
// providers' transcribe and OCR providers' recognize run (pku_speech.go).

// describeTTL is how long a dynamic description's answer is reused.
const describeTTL = 30 * time.Second

// describeDeadline bounds one tool.describe call; the stage deadline may
// be shorter.
const describeDeadline = 5 * time.Second

// secretLike are preference names the seed forbids: preferences are read
// and changed by the assistant, so keys and passwords never are one.
var secretLike = lazyRegexp(`(?i)token|passw|secret|api[_-]?key|credential`)

// preferenceKinds maps a preference's kind to the settings type Hearth
// declares it with.
var preferenceKinds = map[string]string{"boolean": "boolean", "choice": "string", "text": "string", "list": "list"}

// maxDescription is kernel.MaxDescription (the kernel cuts every
// description there; pluginhost does not import the kernel).
const maxDescription = 4 << 10

// describer returns the DescriptionFunc of a tool whose description is
// dynamic: the plugin's tool.describe answer, reused for describeTTL, the
// last good text (else fallback) when the plugin fails or is slow.
func (p *Process) describer(conn *wire.Conn, tool, fallback string) func() string {
	var mu sync.Mutex
	last, at := fallback, time.Time{}
	return func() string {
		mu.Lock()
		defer mu.Unlock()
		if !at.IsZero() && time.Since(at) < describeTTL {
			return last
		}
		ctx, cancel := context.WithTimeout(context.Background(), min(describeDeadline, p.opts.StageTimeout))
		defer cancel()
		var res wire.TextResult
		err := conn.Call(ctx, wire.MethodToolDescribe, wire.ToolDescribeParams{Tool: tool}, &res)
		at = time.Now() // a failure is not asked again at once either: one slow plugin must not slow every request
		if err != nil {
			p.log.Warn("tool description failed; using the last one", "tool", tool, "err", err)
			return last
		}
		if res.Text != "" {
			// Kept for describeTTL: no more than the kernel uses.
			last = truncateText(res.Text, maxDescription)
		}
		return last
	}
}

// checkPKU refuses what the PKU parts of a manifest cannot mean: a
// preference of an unknown kind or named like a secret, a data source of
// a tool the plugin did not register or without a ttl, an OCR or speech
// credentialFrom that names no provider of the plugin.
func checkPKU(m *wire.PKUManifest, tools []string) error {
	for _, name := range sortedKeys(m.Preferences) {
		pref := m.Preferences[name]
		if _, ok := preferenceKinds[pref.Kind]; !ok {
			return fmt.Errorf("preference %s: kind %q, want choice, boolean, text or list", name, pref.Kind)
		}
		if secretLike().MatchString(name) {
			return fmt.Errorf("preference %s: preferences are not secret (the assistant reads and changes each one); keep keys and passwords out of them", name)
		}
	}
	for _, key := range sortedKeys(m.DataSources) {
		ds := m.DataSources[key]
		if !slices.Contains(tools, ds.Tool) {
			return fmt.Errorf("data source %s: %q is not a tool of this plugin", key, ds.Tool)
		}
		if ds.TTLMS <= 0 {
			return fmt.Errorf("data source %s: ttlMs must be positive", key)
		}
	}
	for _, key := range sortedKeys(m.Speech) {
		if from := m.Speech[key].CredentialFrom; from != "" && m.Providers[from].Name == "" {
			return fmt.Errorf("speech %s: credentialFrom %q is not a provider of this plugin", key, from)
		}
	}
	for _, key := range sortedKeys(m.OCR) {
		if from := m.OCR[key].CredentialFrom; m.Providers[from].Name == "" {
			return fmt.Errorf("ocr %s: credentialFrom %q is not a provider of this plugin", key, from)
		}
	}
	return nil
}

// applyPKU puts the PKU parts of the manifest in force after the
// handshake: it checks them, declares each preference as a setting,
// brings the plugin and Hearth's copy into step (a value stored in Hearth
// is given to the plugin, else the plugin's is stored) and asks the
// plugin first about every later change.
func (p *Process) applyPKU(conn *wire.Conn, w *wire.Manifest) error {
	p.mu.Lock()
	tools := p.toolNames
	p.toolNames = nil // the next run registers its own
	p.mu.Unlock()
	if w == nil {
		p.pku.Store(nil)
		return nil
	}
	m := w.PKUManifest
	if err := checkPKU(&m, tools); err != nil {
		return fmt.Errorf("manifest: %w", err)
	}
	sh := shown{name: w.Name, description: w.Description}
	if w.I18n != nil && w.I18n.En != nil {
		sh = shown{name: bilingual(w.Name, w.I18n.En.Name), description: bilingual(w.Description, w.I18n.En.Description)}
	}
	p.pku.Store(&pkuRun{m: &m, conn: conn, shown: sh})
	svc := p.opts.Settings
	if svc == nil {
		return nil
	}
	if w.Legacy != nil {
		p.adoptLegacy(svc, w.Legacy.PluginIDs, m.Preferences)
		p.adoptLegacyTools(w.Legacy.Tools, tools)
	}
	if len(m.Preferences) == 0 {
		return nil
	}
	for _, name := range sortedKeys(m.Preferences) {
		if svc.Secret(p.name, name) { // Hearth's own test of a secret's name, beyond secretLike
			return fmt.Errorf("manifest: preference %s: preferences are not secret (the assistant reads and changes each one); keep keys and passwords out of them", name)
		}
		if err := svc.Register(p.name, preferenceDef(name, m.Preferences[name], w.I18n)); err != nil {
			return fmt.Errorf("preference %s: %w", name, err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), p.opts.StageTimeout)
	defer cancel()
	for _, name := range sortedKeys(m.Preferences) {
		if err := p.syncPreference(ctx, conn, svc, name); err != nil {
			p.log.Warn("preference not in step with the plugin", "preference", name, "err", err)
		}
	}
	svc.SetGate(p.name, func(key string, raw json.RawMessage) error {
		if _, ok := m.Preferences[key]; !ok {
			return nil
		}
		select {
		case <-conn.Done():
			return nil // not running: the plugin takes it at its next start
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), p.opts.StageTimeout)
		defer cancel()
		return preferenceError(conn.Call(ctx, wire.MethodPreferenceSet, wire.PreferenceParams{Name: key, Value: raw}, nil))
	})
	return nil
}

// syncPreference gives the plugin the value Hearth stored for a
// preference, or stores the plugin's when Hearth has none.
func (p *Process) syncPreference(ctx context.Context, conn *wire.Conn, svc *settings.Service, name string) error {
	raw, ok, err := svc.Value(p.name, name) // preferences declare no default
	if err != nil {
		return err
	}
	if ok {
		err := preferenceError(conn.Call(ctx, wire.MethodPreferenceSet, wire.PreferenceParams{Name: name, Value: raw}, nil))
		if err == nil || string(raw) != "null" {
			return err
		}
		// A reset the plugin refuses: it keeps its value, so Hearth
		// shows that one rather than null.
		p.log.Info("preference reset refused by the plugin; storing its value", "preference", name, "err", err)
	}
	var res wire.PreferenceResult
	if err := conn.Call(ctx, wire.MethodPreferenceGet, wire.PreferenceParams{Name: name}, &res); err != nil {
		return err
	}
	if len(res.Value) == 0 || string(res.Value) == "null" {
		return nil
	}
	return svc.SetJSON(p.name, name, res.Value)
}

// preferenceError is the plugin's refusal of a value as the user reads it.
func preferenceError(err error) error {
	var rerr *wire.Error
	if errors.As(err, &rerr) {
		return errors.New(rerr.Message)
	}
	return err
}

// preferenceDef is the settings declaration of a preference: its title
// and description in the original language, the English ones in
// Category-free form when the plugin gave them (shown by locale).
func preferenceDef(name string, pref wire.PreferenceDef, i18n *sdk.ManifestI18n) sdk.ConfigDef {
	d := sdk.ConfigDef{Key: name, Type: preferenceKinds[pref.Kind], DisplayName: pref.Title, Description: pref.Description}
	for _, o := range pref.Options {
		d.Options = append(d.Options, o.Value)
	}
	if i18n != nil && i18n.En != nil {
		if t, ok := i18n.En.Preferences[name]; ok && t.Title != "" && t.Title != d.DisplayName {
			d.DisplayName += " / " + t.Title
		}
	}
	return d
}

// PKU returns the PKU harness parts the plugin's manifest declared in its
// current run (nil for none): preferences, data sources, providers,
// speech and OCR.
func (p *Process) PKU() *wire.PKUManifest {
	if r := p.pku.Load(); r != nil {
		return r.m
	}
	return nil
}

// pkuRun is the PKU manifest of one run and the connection of that run.
type pkuRun struct {
	m    *wire.PKUManifest
	conn *wire.Conn
	shown
}

// shown is what people read of a plugin: the manifest's name and
// description, with the English after the original. The model reads only
// the original (PKU: text for the model is not translated).
type shown struct{ name, description string }

// bilingual is s, then " / " and en when en says something else.
func bilingual(s, en string) string {
	if en == "" || en == s {
		return s
	}
	if s == "" {
		return en
	}
	return s + " / " + en
}

// display is what people read of the plugin in this run.
func (p *Process) display() shown {
	if r := p.pku.Load(); r != nil {
		return r.shown
	}
	return shown{}
}

// noteTool records a tool the plugin registered in this run, which its
// data sources may name.
func (p *Process) noteTool(name string) {
	p.mu.Lock()
	p.toolNames = append(p.toolNames, name)
	p.mu.Unlock()
}

// Preference reads a preference from the running plugin, with its get.
func (p *Process) Preference(ctx context.Context, name string) (json.RawMessage, error) {
	r := p.pku.Load()
	if r == nil || r.m.Preferences[name].Kind == "" {
		return nil, fmt.Errorf("plugin %s has no preference %q", p.name, name)
	}
	var res wire.PreferenceResult
	if err := r.conn.Call(ctx, wire.MethodPreferenceGet, wire.PreferenceParams{Name: name}, &res); err != nil {
		return nil, preferenceError(err)
	}
	return res.Value, nil
}

// Unsupported lists, for people, the parts of the manifest this host
// loads but does not run yet: "provider <plugin>.<key>: not supported by
// this host yet", and so on.
func Unsupported(plugin string, m *wire.PKUManifest) []string {
	if m == nil {
		return nil
	}
	var out []string
	for _, k := range sortedKeys(m.Providers) {
		out = append(out, fmt.Sprintf("provider %s.%s (%s): %s", plugin, k, m.Providers[k].Name, wire.NotSupported))
	}
	for _, k := range sortedKeys(m.Speech) {
		// transcribe runs (pku_speech.go); a streaming-only provider
		// (live microphone PCM) has nothing to run here.
		if !m.Speech[k].HasTranscribe {
			out = append(out, fmt.Sprintf("speech %s.%s (%s): without transcribe: %s", plugin, k, m.Speech[k].Name, wire.NotSupported))
		}
	}
	// OCR providers' recognize runs too (pku_speech.go).
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
