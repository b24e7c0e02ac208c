package storetest

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// Cues fail the writes they name after letting n through, AnyWrite
// counts every write, reads pass, and Heal ends every cue.
func TestFaultyFailsOnCue(t *testing.T) {
	ctx := context.Background()
	f := Open(t)
	full := errors.New("disk full")
	f.FailAfter("SetSetting", 1, full)
	if err := f.SetSetting(ctx, "a", "k", []byte(`1`)); err != nil {
		t.Fatalf("first write: %v", err)
	}
	err := f.SetSetting(ctx, "a", "k", []byte(`2`))
	if !errors.Is(err, full) || !strings.HasPrefix(err.Error(), "SetSetting: ") {
		t.Fatalf("second write: %v", err)
	}
	if err := f.KVSet(ctx, "a", "k", []byte(`1`)); err != nil {
		t.Fatalf("another operation: %v", err)
	}
	if v, ok, err := f.Setting(ctx, "a", "k"); err != nil || !ok || string(v) != "1" {
		t.Fatalf("read %s %v %v, want the first value", v, ok, err)
	}

	f.Heal()
	f.FailAfter(AnyWrite, 2, nil)
	for i, write := range []func() error{
		func() error { return f.SetSetting(ctx, "a", "k", []byte(`3`)) },
		func() error { return f.KVDelete(ctx, "a", "k") },
		func() error { return f.SetOverride(ctx, "t", "ask") },
	} {
		if err := write(); (err != nil) != (i == 2) || (err != nil && !errors.Is(err, ErrInjected)) {
			t.Fatalf("write %d: %v", i+1, err)
		}
	}
	if n := f.Calls(AnyWrite); n != 6 {
		t.Fatalf("%d writes counted, want 6", n)
	}
	f.Heal()
	if err := f.SetOverride(ctx, "t", "ask"); err != nil {
		t.Fatalf("healed: %v", err)
	}
}
