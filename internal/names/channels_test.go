package names

import (
	"context"
	"errors"
	"testing"
)

// The constants Hearth's channels are named by are all reserved, in any
// case, and so are the reserved plugin names.
func TestHearthChannelsAreReserved(t *testing.T) {
	for _, n := range append(HearthChannels(), ChannelTerminal, ChannelAsk, ChannelWeb, ChannelOpenAI,
		ChannelMCP, ChannelSettings, "OPENAI", "core") {
		if !IsReservedChannel(n) {
			t.Errorf("%q is not reserved", n)
		}
		if err := New().ClaimChannel(context.Background(), n, "p"); !errors.Is(err, ErrReserved) {
			t.Errorf("claim %q: %v", n, err)
		}
	}
	if IsReserved(ChannelOpenAI) {
		t.Error(`"openai" is reserved as a plugin name too`)
	}
}

// A channel belongs to its first claimer, and a channel named after
// another plugin is that plugin's.
func TestChannelClaims(t *testing.T) {
	r := New()
	if _, err := r.Claim("tg", "the plugin tg"); err != nil {
		t.Fatal(err)
	}
	if err := r.ClaimChannel(context.Background(), "TG", "squatter"); !errors.Is(err, ErrChannelTaken) {
		t.Fatalf("another plugin's name: %v", err)
	}
	if err := r.ClaimChannel(context.Background(), "tg", "tg"); err != nil {
		t.Fatalf("its own name: %v", err)
	}
	if err := r.ClaimChannel(context.Background(), "qq", "a"); err != nil {
		t.Fatal(err)
	}
	if err := r.ClaimChannel(context.Background(), "qq", "a"); err != nil {
		t.Fatalf("again: %v", err)
	}
	if err := r.ClaimChannel(context.Background(), "Qq", "b"); !errors.Is(err, ErrChannelTaken) {
		t.Fatalf("b: %v", err)
	}
	if _, err := r.Claim("qq", "the plugin qq"); !errors.Is(err, ErrTaken) {
		t.Fatalf("plugin name qq while a holds the channel: %v", err)
	}
	r.ReleaseChannel("qq", "b")
	if p, ok := r.ChannelOwner("qq"); !ok || p != "a" {
		t.Fatalf("b released a's channel: %q %v", p, ok)
	}
	r.ReleaseChannel("qq", "a")
	if err := r.ClaimChannel(context.Background(), "qq", "b"); err != nil {
		t.Fatalf("after release: %v", err)
	}
}
