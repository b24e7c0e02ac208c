package settings

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/hearth-agent/hearth/internal/store"
	"github.com/hearth-agent/hearth/sdk"
)

// A person's changes (the HTTP API and the web UI, on the owner's
// behalf): several keys at once, all or none, each checked more strictly
// than a plugin's own write (required and step too), and each recorded in
// the audit log.

// FieldErrors is why Apply refused a change: a message per key, none
// quoting a secret's value. It wraps ErrInvalid.
type FieldErrors map[string]string

func (e FieldErrors) Error() string {
	keys := slices.Sorted(maps.Keys(e))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + ": " + e[k]
	}
	return "invalid settings: " + strings.Join(parts, "; ")
}

// Unwrap makes errors.Is(err, ErrInvalid) true.
func (e FieldErrors) Unwrap() error { return ErrInvalid }

// ApplyStore is the part of the store Apply needs besides Store;
// *store.Store has it.
type ApplyStore interface {
	// ApplySettings stores set and removes remove's keys of a namespace
	// in one transaction.
	ApplySettings(ctx context.Context, namespace string, set map[string]json.RawMessage, remove []string) error
}

var _ ApplyStore = (*store.Store)(nil)

// Apply changes ns's settings for actor (who is named in the audit log):
// each value is checked against its key's declaration (type, options,
// min/max, step, required) and stored; a JSON null resets the key to its
// declared default (that is how a secret is cleared). If any value is
// invalid nothing is written and the error is a FieldErrors. ns's gate,
// if any, is asked about every key (a reset too) before anything is
// written; if it refuses one, it is given back the previous values of
// the others and the error is a FieldErrors (see Gate). ns is a
// plugin's namespace or Core. Every change is recorded in the audit log
// before it is made, with a hash of the value, never the value; a change
// whose record cannot be made is not made.
func (s *Service) Apply(ctx context.Context, actor, ns string, values map[string]json.RawMessage) error {
	if ns != Core {
		if err := CheckPlugin(ns); err != nil {
			return err
		}
	}
	ast, ok := s.st.(ApplyStore)
	if !ok {
		return errors.New("settings: this store cannot apply several settings at once")
	}
	bad := FieldErrors{}
	for key, raw := range values {
		if msg := s.checkChange(ns, key, raw); msg != "" {
			bad[key] = msg
		}
	}
	if len(bad) > 0 {
		return bad
	}
	// Every key is put to the plugin's gate before anything is stored; a
	// refusal of one gives the others back their previous values.
	undo, refused := s.gateAll(ns, values)
	if len(refused) > 0 {
		return refused
	}
	set := map[string]json.RawMessage{}   // written, as audited
	var reset []string                    // reset, as audited
	store := map[string]json.RawMessage{} // what the store keeps
	var remove []string                   // what it removes
	for key, raw := range values {
		switch {
		case !isNull(raw):
			set[key], store[key] = raw, raw
		case s.keepsValues(ns) && isNull(s.resetTo(ns, key, raw)):
			reset = append(reset, key)
			store[key] = raw // kept as null, so the plugin's next start is told too (see SetGate)
		default:
			reset = append(reset, key)
			remove = append(remove, key)
		}
	}
	sort.Strings(reset)
	sort.Strings(remove)
	for _, key := range slices.Sorted(maps.Keys(set)) {
		if err := s.auditChange(ctx, actor, ns, key, valueHash(ns, key, set[key]), "written"); err != nil {
			undo()
			return fmt.Errorf("%s.%s not written: recording it in the audit log failed: %w", ns, key, err)
		}
	}
	for _, key := range reset {
		if err := s.auditChange(ctx, actor, ns, key, "", "reset"); err != nil {
			undo()
			return fmt.Errorf("%s.%s not reset: recording it in the audit log failed: %w", ns, key, err)
		}
	}
	if err := ast.ApplySettings(ctx, ns, store, remove); err != nil {
		undo()
		for key := range values {
			s.auditChange(ctx, actor, ns, key, "", "error")
		}
		return fmt.Errorf("saving the settings of %s: %w", ns, err)
	}
	return nil
}

func isNull(raw json.RawMessage) bool { return strings.TrimSpace(string(raw)) == "null" }

// checkChange returns what is wrong with setting ns's key to raw, or "".
func (s *Service) checkChange(ns, key string, raw json.RawMessage) string {
	if strings.TrimSpace(key) == "" {
		return "empty key"
	}
	if ns == Core && (key == CoreDataDir || key == CoreDataDirShort) {
		return "read-only"
	}
	d, declared := s.def(ns, key)
	if isNull(raw) {
		if declared && d.Required && d.Default == nil {
			return "required: it has no default to go back to"
		}
		return ""
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return "not JSON"
	}
	if !declared {
		return ""
	}
	if msg := checkStrict(d, v); msg != "" {
		if SecretDef(d) {
			return "the value does not fit its declaration (" + d.Type + ")" // no value in messages
		}
		return msg
	}
	return ""
}

// checkStrict is check, plus required and step, plus options of a type
// other than string.
func checkStrict(d sdk.ConfigDef, v any) string {
	if err := check(d, v); err != nil {
		return err.Error()
	}
	switch x := v.(type) {
	case string:
		if d.Required && strings.TrimSpace(x) == "" {
			return "required: it may not be empty"
		}
		if !knownType(d) && len(d.Options) > 0 && !slices.Contains(d.Options, x) {
			return fmt.Sprintf("%q is not one of %q", x, d.Options)
		}
	case float64:
		if isNumeric(d) && d.Step > 0 {
			n := (x - d.Min) / d.Step
			if math.Abs(n-math.Round(n)) > 1e-9 {
				return fmt.Sprintf("%v is not a multiple of the step %v (from %v)", x, d.Step, d.Min)
			}
		}
	}
	if len(d.Options) > 0 {
		if _, ok := v.(string); !ok {
			return fmt.Sprintf("want one of %q", d.Options)
		}
	}
	return ""
}

// auditChange records actor's change of ns's key.
func (s *Service) auditChange(ctx context.Context, actor, ns, key, hash, outcome string) error {
	err := s.st.AppendAudit(ctx, store.AuditEntry{
		At: time.Now(), Channel: "settings", User: actor, Role: "owner", Actor: actor,
		Tool: AuditTool + ns + "." + key, Effect: string(sdk.EffectWrite), ArgsHash: hash,
		Decision: "allow", Rule: "the owner's change", DecidedBy: "settings", Outcome: outcome,
	})
	if err != nil {
		return fmt.Errorf("audit log: %w", err)
	}
	return nil
}
