package settings

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
)

// A namespace's gate is asked before its settings are stored, by SetJSON
// and by Apply; its refusal stores nothing and reads as ErrInvalid; nil
// removes it.
func TestGate(t *testing.T) {
	svc, _ := newService(t)
	var asked []string
	svc.SetGate("pku", func(key string, raw json.RawMessage) error {
		asked = append(asked, key+"="+string(raw))
		if string(raw) == `"bad"` {
			return errors.New("the plugin refused it")
		}
		return nil
	})
	if err := svc.SetJSON("pku", "mode", json.RawMessage(`"ok"`)); err != nil {
		t.Fatal(err)
	}
	err := svc.SetJSON("pku", "mode", json.RawMessage(`"bad"`))
	if !errors.Is(err, ErrInvalid) || err.Error() != "invalid setting value: pku.mode: the plugin refused it" {
		t.Fatalf("%v", err)
	}
	if raw, _, _ := svc.Value("pku", "mode"); string(raw) != `"ok"` {
		t.Fatalf("stored %s", raw)
	}
	var fe FieldErrors
	if err := svc.Apply(context.Background(), "owner", "pku", map[string]json.RawMessage{"mode": json.RawMessage(`"bad"`)}); !errors.As(err, &fe) || fe["mode"] == "" {
		t.Fatalf("%v", err)
	}
	if err := svc.SetJSON("other", "mode", json.RawMessage(`"bad"`)); err != nil {
		t.Fatalf("another namespace was gated: %v", err)
	}
	svc.SetGate("pku", nil)
	if err := svc.SetJSON("pku", "mode", json.RawMessage(`"bad"`)); err != nil {
		t.Fatal(err)
	}
	if len(asked) != 3 {
		t.Fatalf("asked %v", asked)
	}
}
