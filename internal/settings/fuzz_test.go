package settings

import (
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/sdk"
)

// fuzzDefs are the declarations FuzzSetJSON sets values against; "note"
// and "password" (a secret by its name) are left undeclared.
var fuzzDefs = []sdk.ConfigDef{
	{Key: "unit", Type: "string", Options: []string{"c", "f"}},
	{Key: "city", Type: "string"},
	{Key: "days", Type: "number", Min: 1, Max: 7},
	{Key: "ratio", Type: "number"},
	{Key: "on", Type: "boolean"},
	{Key: "api_token", Type: "string", Secret: true},
	// HomeAgent's types.
	{Key: "limit", Type: "int", Max: 50},
	{Key: "verbose", Type: "bool"},
	{Key: "pass", Type: "password"}, // a secret without Secret
	{Key: "mode", Type: "select", Options: []string{"fast", "slow"}},
}

// fits states, independently of check, what a declared setting accepts.
func fits(d sdk.ConfigDef, v any) bool {
	switch d.Type {
	case "string", "password":
		s, ok := v.(string)
		return ok && (len(d.Options) == 0 || slices.Contains(d.Options, s))
	case "select":
		s, ok := v.(string)
		return ok && slices.Contains(d.Options, s)
	case "number":
		n, ok := v.(float64)
		return ok && (d.Min == d.Max || d.Min <= n && n <= d.Max)
	case "int":
		n, ok := v.(float64)
		return ok && n == float64(int64(n)) && d.Min <= n && n <= d.Max
	case "boolean", "bool":
		_, ok := v.(bool)
		return ok
	}
	return true
}

// FuzzSetJSON checks the decoder of settings values as the CLI and the
// web page hand them in: it never panics; a value it takes is JSON that
// fits its declaration, reads back as the same value and is taken again;
// a value it refuses is refused with ErrInvalid, the setting's name, and,
// for a secret, without the value.
func FuzzSetJSON(f *testing.F) {
	s, _ := newService(f)
	const ns = "weather"
	for _, d := range fuzzDefs {
		if err := s.Register(ns, d); err != nil {
			f.Fatal(err)
		}
	}
	keys := append([]string{"note", "password"}, func() (ks []string) {
		for _, d := range fuzzDefs {
			ks = append(ks, d.Key)
		}
		return
	}()...)
	// A secret's refusal says the same whatever the value was.
	secretRefusals := map[string]map[string]bool{}
	for _, key := range keys {
		if s.Secret(ns, key) {
			secretRefusals[key] = map[string]bool{}
			for _, v := range []string{`{`, `0`} {
				if err := s.SetJSON(ns, key, []byte(v)); err != nil {
					secretRefusals[key][err.Error()] = true
				}
			}
		}
	}
	for i := range keys {
		for _, raw := range []string{`"c"`, `"k"`, `3`, `9.5`, `-1e308`, `true`, `null`, `{"a":[1,"北京"]}`, `"\u00e9\ud800"`, `1e999`, `"secret-value"`, `tru`, ``, `50`, `51`, `2.5`, `"abc"`, `"fast"`} {
			f.Add(uint8(i), []byte(raw))
		}
	}
	f.Fuzz(func(t *testing.T, k uint8, raw []byte) {
		key := keys[int(k)%len(keys)]
		d, declared := s.def(ns, key)
		err := s.SetJSON(ns, key, raw)
		if err != nil {
			msg := err.Error()
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("refused without ErrInvalid: %v", err)
			}
			if !strings.Contains(msg, ns+"."+key) {
				t.Fatalf("refusal does not name %s.%s: %q", ns, key, msg)
			}
			if s.Secret(ns, key) && !secretRefusals[key][msg] {
				t.Fatalf("refusal of a secret is not one of the value-free messages: %q", msg)
			}
			var v any
			if json.Unmarshal(raw, &v) == nil && (!declared || fits(d, v)) {
				t.Fatalf("refused a value that fits: %s: %v", raw, err)
			}
			return
		}
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Fatalf("took a value that is not JSON: %q", raw)
		}
		if declared && !fits(d, v) {
			t.Fatalf("took %s, which does not fit %+v", raw, d)
		}
		stored, ok, err := s.Value(ns, key)
		if err != nil || !ok {
			t.Fatalf("reading back: %v %v", ok, err)
		}
		var back any
		if err := json.Unmarshal(stored, &back); err != nil || !reflect.DeepEqual(back, v) {
			t.Fatalf("read back %s (%v), set %s", stored, err, raw)
		}
		if err := s.SetJSON(ns, key, stored); err != nil {
			t.Fatalf("the value read back is refused: %v", err)
		}
	})
}
