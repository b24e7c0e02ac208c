package settings

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"reflect"
	"testing"

	"github.com/hearth-agent/hearth/internal/store"
	"github.com/hearth-agent/hearth/internal/store/storetest"
	"github.com/hearth-agent/hearth/sdk"
)

// fakePlugin keeps its own values as a PKU plugin does; its gate takes a
// value unless refuse says no, as preference.set does.
type fakePlugin struct {
	values  map[string]string
	refuse  func(key, raw string) bool
	stopped bool // not running: the gate stores without telling it, as pluginhost's does
}

func (p *fakePlugin) gate(key string, raw json.RawMessage) error {
	if p.stopped {
		return nil
	}
	if p.refuse != nil && p.refuse(key, string(raw)) {
		return errors.New("the plugin refused " + string(raw))
	}
	p.values[key] = string(raw)
	return nil
}

func gatedService(t testing.TB) (*Service, *storetest.Faulty, *fakePlugin) {
	t.Helper()
	f := storetest.Open(t)
	s := New(f, t.TempDir())
	for _, d := range []sdk.ConfigDef{
		{Key: "mode", Type: "string", Options: []string{"a", "b"}},
		{Key: "level", Type: "string"},
		{Key: "color", Type: "string", Default: "red"},
	} {
		if err := s.Register("pku", d); err != nil {
			t.Fatal(err)
		}
	}
	for key, raw := range map[string]string{"mode": `"a"`, "level": `"low"`, "color": `"blue"`} {
		if err := s.SetJSON("pku", key, json.RawMessage(raw)); err != nil {
			t.Fatal(err)
		}
	}
	p := &fakePlugin{values: map[string]string{"mode": `"a"`, "level": `"low"`, "color": `"blue"`}}
	s.SetGate("pku", p.gate)
	return s, f, p
}

func stored(t testing.TB, s *Service, key string) string {
	t.Helper()
	raw, ok, err := s.Value("pku", key)
	if err != nil {
		t.Fatal(err)
	}
	if !ok {
		return "<none>"
	}
	return string(raw)
}

func rawValues(m map[string]string) map[string]json.RawMessage {
	out := map[string]json.RawMessage{}
	for k, v := range m {
		out[k] = json.RawMessage(v)
	}
	return out
}

// A change of several keys through Apply (the HTTP API, the web UI) is
// all or nothing for the plugin too: when its gate refuses one key, the
// keys it already took get their previous values back and nothing is
// stored; when all are taken, all are stored.
func TestApplyGateAllOrNothing(t *testing.T) {
	ctx := context.Background()
	s, _, p := gatedService(t)
	p.refuse = func(key, raw string) bool { return raw == `"bad"` }
	before := maps.Clone(p.values)

	err := s.Apply(ctx, "owner", "pku", rawValues(map[string]string{"mode": `"b"`, "level": `"bad"`, "color": `"green"`}))
	var fe FieldErrors
	if !errors.As(err, &fe) || len(fe) != 1 || fe["level"] == "" {
		t.Fatalf("Apply = %v", err)
	}
	if !maps.Equal(p.values, before) {
		t.Fatalf("the plugin kept part of a refused change: %v, want %v", p.values, before)
	}
	if stored(t, s, "mode") != `"a"` || stored(t, s, "color") != `"blue"` {
		t.Fatal("a refused change was stored in part")
	}

	if err := s.Apply(ctx, "owner", "pku", rawValues(map[string]string{"mode": `"b"`, "level": `"high"`})); err != nil {
		t.Fatal(err)
	}
	if p.values["mode"] != `"b"` || p.values["level"] != `"high"` || stored(t, s, "mode") != `"b"` || stored(t, s, "level") != `"high"` {
		t.Fatalf("plugin %v, stored %s %s", p.values, stored(t, s, "mode"), stored(t, s, "level"))
	}
}

// A change the store fails to save, or whose audit record cannot be
// made, gives the plugin its previous values back; so does a plugin's
// own write (SetJSON) the store fails to save.
func TestApplyGateUndoneWhenNotSaved(t *testing.T) {
	ctx := context.Background()
	s, f, p := gatedService(t)
	before := maps.Clone(p.values)

	f.FailAfter("ApplySettings", 0, errors.New("database or disk is full"))
	if err := s.Apply(ctx, "owner", "pku", rawValues(map[string]string{"mode": `"b"`, "level": `"high"`})); err == nil {
		t.Fatal("Apply succeeded on a failing store")
	}
	if !maps.Equal(p.values, before) {
		t.Fatalf("after a failed save the plugin holds %v, want %v", p.values, before)
	}
	f.Heal()

	f.FailAfter("AppendAudit", 0, nil)
	if err := s.Apply(ctx, "owner", "pku", rawValues(map[string]string{"level": `"high"`})); !errors.Is(err, storetest.ErrInjected) {
		t.Fatalf("unaudited Apply = %v", err)
	}
	if !maps.Equal(p.values, before) {
		t.Fatalf("after an unaudited change the plugin holds %v, want %v", p.values, before)
	}
	f.Heal()

	f.FailAfter("SetSetting", 0, errors.New("database or disk is full"))
	if err := s.SetJSON("pku", "level", json.RawMessage(`"high"`)); err == nil {
		t.Fatal("SetJSON succeeded on a failing store")
	}
	if p.values["level"] != `"low"` || stored(t, s, "level") != `"low"` {
		t.Fatalf("after a failed write: plugin %s, stored %s", p.values["level"], stored(t, s, "level"))
	}
}

// A reset is put to the gate too, with the value the key goes back to:
// its default, or null when it has none. The plugin may refuse it (then
// nothing is reset). A reset to null is kept as null, not removed, so the
// plugin's next start is given null (pluginhost gives a PKU plugin the
// stored value at start) instead of storing its old value again; that
// holds when the plugin was not running to be told, and in a new process.
func TestApplyResetToldToThePluginAndKept(t *testing.T) {
	ctx := context.Background()
	s, f, p := gatedService(t)

	if err := s.Apply(ctx, "owner", "pku", rawValues(map[string]string{"color": `null`})); err != nil {
		t.Fatal(err)
	}
	if p.values["color"] != `"red"` || stored(t, s, "color") != `"red"` {
		t.Fatalf("reset to the default: plugin %s, stored %s", p.values["color"], stored(t, s, "color"))
	}

	p.refuse = func(key, raw string) bool { return key == "level" && raw == "null" }
	err := s.Apply(ctx, "owner", "pku", rawValues(map[string]string{"level": `null`, "mode": `"b"`}))
	var fe FieldErrors
	if !errors.As(err, &fe) || fe["level"] == "" {
		t.Fatalf("refused reset: %v", err)
	}
	if p.values["level"] != `"low"` || p.values["mode"] != `"a"` || stored(t, s, "level") != `"low"` {
		t.Fatalf("a refused reset changed something: plugin %v, stored %s", p.values, stored(t, s, "level"))
	}

	p.refuse = nil
	if err := s.Apply(ctx, "owner", "pku", rawValues(map[string]string{"mode": `null`})); err != nil {
		t.Fatal(err)
	}
	if p.values["mode"] != "null" || stored(t, s, "mode") != "null" {
		t.Fatalf("reset without a default: plugin %s, stored %s", p.values["mode"], stored(t, s, "mode"))
	}
	if v, err := s.For("pku").Get("mode"); !errors.Is(err, sdk.ErrNotFound) {
		t.Fatalf("the plugin's Get of a reset key = %v, %v", v, err)
	}

	p.stopped = true
	if err := s.Apply(ctx, "owner", "pku", rawValues(map[string]string{"level": `null`})); err != nil {
		t.Fatal(err)
	}
	next := New(f, t.TempDir()) // the process that starts the plugin next
	if raw, ok, err := next.Value("pku", "level"); err != nil || !ok || string(raw) != "null" {
		t.Fatalf("after a reset while the plugin was stopped its next start is given %s, %v, %v", raw, ok, err)
	}

	entries, err := f.Audit(ctx, store.AuditQuery{})
	if err != nil {
		t.Fatal(err)
	}
	resets := 0
	for _, e := range entries {
		if e.Outcome == "reset" {
			resets++
		}
	}
	if resets != 3 {
		t.Fatalf("%d resets in the audit log, want 3", resets)
	}
}

// A namespace that once had a gate keeps a reset as null in a process
// where its plugin has not started (no gate there), so the plugin's next
// start is told; a namespace that never had one has the key removed.
func TestResetKeptWhereThePluginHasNotStarted(t *testing.T) {
	ctx := context.Background()
	s, f, _ := gatedService(t)
	other := New(f, t.TempDir()) // the daemon before it started the plugin
	if err := other.Register("plain", sdk.ConfigDef{Key: "level", Type: "string"}); err != nil {
		t.Fatal(err)
	}
	if err := other.SetJSON("plain", "level", json.RawMessage(`"low"`)); err != nil {
		t.Fatal(err)
	}
	for _, ns := range []string{"pku", "plain"} {
		if err := other.Apply(ctx, "owner", ns, map[string]json.RawMessage{"level": json.RawMessage(`null`)}); err != nil {
			t.Fatal(err)
		}
	}
	if raw, ok, _ := s.Value("pku", "level"); !ok || string(raw) != "null" {
		t.Fatalf("pku.level = %s, %v; want null kept for the plugin's next start", raw, ok)
	}
	if raw, ok, _ := other.Value("plain", "level"); ok {
		t.Fatalf("plain.level = %s; want removed", raw)
	}
}

// FuzzApplyGated checks Apply's handling of a change a person sends (the
// HTTP API decodes it into raw values) against a gated plugin: it never
// panics, and after every change, taken or refused, the plugin holds
// what Hearth stored for each key it was ever told of.
func FuzzApplyGated(f *testing.F) {
	f.Add([]byte(`"b"`), []byte(`"bad"`), []byte(`null`))
	f.Add([]byte(`"a"`), []byte(`"x"`), []byte(`"y"`))
	f.Add([]byte(`null`), []byte(`null`), []byte(`{`))
	f.Add([]byte(`3`), []byte(`"bad"`), []byte(`"green"`))
	s, _, p := gatedService(f)
	p.refuse = func(key, raw string) bool { return raw == `"bad"` || (key == "mode" && raw == "null") }
	same := func(a, b string) bool {
		var x, y any
		return json.Unmarshal([]byte(a), &x) == nil && json.Unmarshal([]byte(b), &y) == nil && reflect.DeepEqual(x, y)
	}
	f.Fuzz(func(t *testing.T, mode, level, color []byte) {
		err := s.Apply(context.Background(), "owner", "pku", map[string]json.RawMessage{"mode": mode, "level": level, "color": color})
		var fe FieldErrors
		if err != nil && !errors.As(err, &fe) {
			t.Fatalf("Apply = %v", err)
		}
		for key, told := range p.values {
			if got := stored(t, s, key); !same(got, told) {
				t.Fatalf("after %v: %s: the plugin holds %s, Hearth %s", err, key, told, got)
			}
		}
	})
}
