package settings

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"slices"
)

// Gate is asked before a setting of its namespace is stored: a plugin
// whose settings live in its own code (a PKU harness preference) takes
// the value first, and an error refuses the change. The error's text is
// shown to whoever made the change. raw is the value the key will have:
// for a reset, its declared default, or JSON null when it has none (the
// plugin decides what null means to it, or refuses it).
//
// The plugin's answer is its taking of the value (preference.set has no
// check-only form), so a change of several keys (Apply) that one refuses
// gives each key already taken its previous value again, and so does a
// change the store then fails to save.
type Gate func(key string, raw json.RawMessage) error

// SetGate installs ns's gate (nil removes it). A running plugin process
// installs one for its preferences and removes it when it stops; without
// one (the CLI, the plugin not running) the value is stored, and the
// plugin takes it when it next starts. A reset of a namespace that ever
// had a gate (remembered in the store, so also in a process where the
// plugin has not started) is stored as JSON null rather than removed,
// so that the plugin's next start gives it null too instead of storing
// its old value again.
func (s *Service) SetGate(ns string, g Gate) {
	if g == nil {
		s.gates.Delete(ns)
		return
	}
	s.gates.Store(ns, g)
	ctx := context.Background()
	if _, ok, err := s.st.KVGet(ctx, Core, gatedKey+ns); err != nil || !ok {
		if err := s.st.KVSet(ctx, Core, gatedKey+ns, json.RawMessage("true")); err != nil {
			slog.Warn("settings: could not remember that a plugin keeps its own values", "namespace", ns, "err", err)
		}
	}
}

// gatedKey prefixes, in the core key-value storage (no plugin's), the
// namespaces that ever had a gate.
const gatedKey = "settings.gated:"

// gated reports whether ns has a gate.
func (s *Service) gated(ns string) bool {
	_, ok := s.gates.Load(ns)
	return ok
}

// keepsValues reports whether ns's plugin keeps its own values: it has,
// or once had, a gate.
func (s *Service) keepsValues(ns string) bool {
	if s.gated(ns) {
		return true
	}
	_, ok, err := s.st.KVGet(context.Background(), Core, gatedKey+ns)
	return err == nil && ok
}

// gate asks ns's gate, if any, about key.
func (s *Service) gate(ns, key string, raw json.RawMessage) error {
	v, ok := s.gates.Load(ns)
	if !ok {
		return nil
	}
	if err := v.(Gate)(key, raw); err != nil {
		return fmt.Errorf("%w: %s.%s: %w", ErrInvalid, ns, key, err)
	}
	return nil
}

// gateAll asks ns's gate about every key of change, in key order, with
// the value each will have (see resetTo for a reset). If any refuses, the
// keys that took theirs are given back their previous values, and the
// refusals are returned; otherwise undo does the same, for a change the
// store then fails to save. Without a gate it does nothing.
func (s *Service) gateAll(ns string, change map[string]json.RawMessage) (undo func(), bad FieldErrors) {
	undo = func() {}
	if !s.gated(ns) {
		return undo, nil
	}
	prev := map[string]json.RawMessage{}
	for key := range change {
		raw, ok, err := s.Value(ns, key)
		if err != nil || !ok {
			raw = json.RawMessage("null")
		}
		prev[key] = raw
	}
	var took []string
	bad = FieldErrors{}
	for _, key := range slices.Sorted(maps.Keys(change)) {
		if err := s.gate(ns, key, s.resetTo(ns, key, change[key])); err != nil {
			bad[key] = err.Error()
			continue
		}
		took = append(took, key)
	}
	undo = func() {
		for _, key := range took {
			if err := s.gate(ns, key, prev[key]); err != nil {
				slog.Warn("settings: the plugin did not take back its previous value after a change that was not saved", "namespace", ns, "key", key)
			}
		}
	}
	if len(bad) > 0 {
		undo()
		return func() {}, bad
	}
	return undo, nil
}

// resetTo is raw, or, for a reset (JSON null), the value the key goes
// back to: its declared default, or null.
func (s *Service) resetTo(ns, key string, raw json.RawMessage) json.RawMessage {
	if !isNull(raw) {
		return raw
	}
	if d, ok := s.def(ns, key); ok && d.Default != nil {
		if b, err := json.Marshal(d.Default); err == nil {
			return b
		}
	}
	return json.RawMessage("null")
}
