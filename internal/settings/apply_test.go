package settings

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/internal/store"
	"github.com/hearth-agent/hearth/internal/store/storetest"
	"github.com/hearth-agent/hearth/sdk"
)

func TestApplyAllOrNoneAndAudited(t *testing.T) {
	ctx := context.Background()
	f := storetest.Open(t)
	s := New(f, t.TempDir())
	for _, d := range []sdk.ConfigDef{
		{Key: "city", Type: "string", Required: true},
		{Key: "units", Type: "string", Options: []string{"c", "f"}, Default: "c"},
		{Key: "days", Type: "number", Min: 1, Max: 7, Step: 1, Default: float64(3)},
		{Key: "alerts", Type: "boolean"},
		{Key: "api_key", Type: "string", Secret: true},
	} {
		if err := s.Register("weather", d); err != nil {
			t.Fatal(err)
		}
	}
	raw := func(s string) json.RawMessage { return json.RawMessage(s) }
	err := s.Apply(ctx, "api", "weather", map[string]json.RawMessage{
		"city": raw(`""`), "units": raw(`"k"`), "days": raw(`2.5`), "alerts": raw(`"yes"`),
		"api_key": raw(`42`), "note": raw(`{`),
	})
	var fe FieldErrors
	if !errors.As(err, &fe) || !errors.Is(err, ErrInvalid) || len(fe) != 6 {
		t.Fatalf("Apply(bad) = %v", err)
	}
	if strings.Contains(fe["api_key"], "42") {
		t.Fatalf("a secret's message quotes its value: %q", fe["api_key"])
	}
	if keys, _ := s.st.SettingKeys(ctx, "weather", ""); len(keys) != 0 {
		t.Fatalf("a refused change wrote %q", keys)
	}
	// One bad value keeps the good ones out too.
	if err := s.Apply(ctx, "api", "weather", map[string]json.RawMessage{"city": raw(`"北京"`), "days": raw(`9`)}); err == nil {
		t.Fatal("days 9 accepted")
	}
	if _, ok, _ := s.st.Setting(ctx, "weather", "city"); ok {
		t.Fatal("city written beside an invalid value")
	}
	if err := s.Apply(ctx, "api", "weather", map[string]json.RawMessage{
		"city": raw(`"北京"`), "days": raw(`5`), "api_key": raw(`"sk-very-secret-value"`)}); err != nil {
		t.Fatal(err)
	}
	if err := s.Apply(ctx, "api", "weather", map[string]json.RawMessage{"days": raw(`null`), "api_key": raw(`null`)}); err != nil {
		t.Fatal(err)
	}
	if v, _, _ := s.Value("weather", "days"); string(v) != "3" {
		t.Fatalf("days after reset = %s, want the default 3", v)
	}
	if _, ok, _ := s.Value("weather", "api_key"); ok {
		t.Fatal("the secret was not cleared")
	}
	if err := s.Apply(ctx, "api", "weather", map[string]json.RawMessage{"city": raw(`null`)}); err == nil {
		t.Fatal("a required key without a default was reset")
	}
	entries, err := f.Audit(ctx, store.AuditQuery{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	outcomes := map[string]int{}
	for _, e := range entries {
		if e.Actor == "api" && strings.HasPrefix(e.Tool, AuditTool+"weather.") {
			outcomes[e.Outcome]++
		}
		if strings.Contains(e.ArgsHash, "secret") {
			t.Fatal("a value in the audit log")
		}
	}
	if outcomes["written"] != 3 || outcomes["reset"] != 2 {
		t.Fatalf("audit outcomes = %v", outcomes)
	}
	if err := s.Apply(ctx, "api", "weather", map[string]json.RawMessage{"days": raw(`4`)}); err != nil {
		t.Fatal(err)
	}
	f.FailAfter("ApplySettings", 0, errors.New("disk is full"))
	if err := s.Apply(ctx, "api", "weather", map[string]json.RawMessage{"days": raw(`6`)}); err == nil {
		t.Fatal("a failed store write reported success")
	}
	if v, _, _ := s.Value("weather", "days"); string(v) != "4" {
		t.Fatalf("days after a failed write = %s", v)
	}
	if err := s.Apply(ctx, "api", "core", map[string]json.RawMessage{CoreDataDir: raw(`"/x"`)}); err == nil {
		t.Fatal("core.daemon.data_dir written")
	}
	if err := s.Apply(ctx, "api", "", map[string]json.RawMessage{"x": raw(`1`)}); !errors.Is(err, ErrForbidden) {
		t.Fatalf("empty namespace = %v", err)
	}
}

func FuzzApplyValue(f *testing.F) {
	for _, s := range []string{`1`, `"c"`, `null`, `true`, `{`, `[1,2]`, `1e400`, `"\u0000"`} {
		f.Add(s)
	}
	svc := New(storetest.Open(f), f.TempDir())
	svc.Register("p", sdk.ConfigDef{Key: "n", Type: "number", Min: 0, Max: 10, Step: 0.5})
	svc.Register("p", sdk.ConfigDef{Key: "o", Type: "options", Options: []string{"a", "b"}})
	f.Fuzz(func(t *testing.T, v string) {
		for _, key := range []string{"n", "o", "free"} {
			err := svc.Apply(context.Background(), "api", "p", map[string]json.RawMessage{key: json.RawMessage(v)})
			var fe FieldErrors
			if err != nil && !errors.As(err, &fe) {
				t.Fatalf("Apply(%s=%q) = %v, not a FieldErrors", key, v, err)
			}
			if err == nil && !json.Valid([]byte(v)) {
				t.Fatalf("Apply accepted invalid JSON %q", v)
			}
		}
	})
}
