package names

import (
	"errors"
	"strings"
	"testing"
)

func TestClaimFirstComeKeepsIt(t *testing.T) {
	r := New()
	first, err := r.Claim("victim", "the real plugin")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"victim", "Victim", "VICTIM"} {
		_, err := r.Claim(name, "an impostor")
		var te *TakenError
		if !errors.As(err, &te) || !errors.Is(err, ErrTaken) || te.Owner != "the real plugin" {
			t.Fatalf("claim %q: %v", name, err)
		}
		if !strings.Contains(err.Error(), "already used by the real plugin") {
			t.Fatalf("message does not name the owner: %v", err)
		}
		if err := r.Check(name); !errors.Is(err, ErrTaken) {
			t.Fatalf("check %q: %v", name, err)
		}
	}
	if owner, ok := r.Owner("victim"); !ok || owner != "the real plugin" {
		t.Fatalf("owner = %q, %v", owner, ok)
	}

	first.Release()
	first.Release() // twice is harmless
	second, err := r.Claim("victim", "the next one")
	if err != nil {
		t.Fatal(err)
	}
	first.Release() // a stale claim cannot free the new owner's name
	if !second.Held() || first.Held() {
		t.Fatal("a released claim freed the name of the next owner")
	}
	if owner, _ := r.Owner("victim"); owner != "the next one" {
		t.Fatalf("owner = %q", owner)
	}
}

func TestReservedNamesAreNeverHandedOut(t *testing.T) {
	r := New()
	for _, name := range []string{"core", "Core", "hearth", "plugins", "plugin", "mcp", "system", "kernel",
		"policy", "settings", "memory", "knowledge", "llm", "user", "owner",
		// Hearth's own channels: a plugin named after one must not pass for it
		"terminal", "Terminal", "ask", "web", "http", "api", "scheduler", "cron"} {
		if _, err := r.Claim(name, "someone"); !errors.Is(err, ErrReserved) {
			t.Errorf("claim %q: %v", name, err)
		}
		if err := r.Check(name); !errors.Is(err, ErrReserved) {
			t.Errorf("check %q: %v", name, err)
		}
	}
	if _, err := r.Claim("", "someone"); err == nil {
		t.Error("an empty name was claimed")
	}
	if _, err := r.Claim("weather", "someone"); err != nil {
		t.Errorf("an ordinary name was refused: %v", err)
	}
}
