package config

import (
	"strings"
	"testing"
)

func TestBuiltinPlugins(t *testing.T) {
	f, err := Parse("config.json", []byte(`{"disabled_plugins": ["a"], "plugins": {"b": {"enabled": false}, "c": {"config": {"k": "v", "n": 1}}, "d": {"enabled": true}}}`))
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]bool{"a": true, "b": true, "c": false, "d": false, "e": false} {
		if got := f.BuiltinDisabled(name); got != want {
			t.Errorf("BuiltinDisabled(%q) = %v", name, got)
		}
	}
	if c := f.BuiltinConfig("c"); c["k"] != "v" || c["n"] != 1.0 {
		t.Errorf("config %v", c)
	}
	if c := f.BuiltinConfig("e"); c != nil {
		t.Errorf("config of none %v", c)
	}
	if err := f.CheckBuiltins([]string{"b", "c", "d"}); err != nil {
		t.Error(err)
	}
	if err := f.CheckBuiltins([]string{"b"}); err == nil || !strings.Contains(err.Error(), `"c", "d" are not compiled into this Hearth (compiled in: b)`) {
		t.Errorf("unknown: %v", err)
	}
	for _, bad := range []string{`{"plugins": {"a": {"enabled": true}}, "disabled_plugins": ["a"]}`, `{"plugins": {"": {}}}`,
		`{"plugins": {"a": {"config": []}}}`, `{"plugins": {"a": {"settings": {}}}}`} {
		if _, err := Parse("config.json", []byte(bad)); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}
