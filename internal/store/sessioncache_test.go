package store

import (
	"context"
	"errors"
	"path/filepath"
	"strconv"
	"testing"
)

// Sessions are found by id and by channel and chat whether or not this
// store opened them: one another process opened (another Store on the
// same file) is read from the database and kept from then on.
func TestSessionsFound(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), FileName)
	a, err := OpenFile(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := OpenFile(ctx, path) // another process
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()

	if _, err := a.SessionOfID(ctx, 1); !errors.Is(err, ErrNoSession) {
		t.Fatalf("SessionOfID before any session: %v, want ErrNoSession", err)
	}
	if _, err := a.FindSession(ctx, "web", "x"); !errors.Is(err, ErrNoSession) {
		t.Fatalf("FindSession before any session: %v, want ErrNoSession", err)
	}
	mine, err := a.Session(ctx, "web", "mine")
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := b.Session(ctx, "web", "x")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []Session{mine, theirs} {
		if got, err := a.SessionOfID(ctx, want.ID); err != nil || got != want {
			t.Errorf("SessionOfID(%d) = %+v, %v; want %+v", want.ID, got, err, want)
		}
		if got, err := a.FindSession(ctx, want.Channel, want.ChatID); err != nil || got != want {
			t.Errorf("FindSession(%q) = %+v, %v; want %+v", want.ChatID, got, err, want)
		}
		if got, err := a.Session(ctx, want.Channel, want.ChatID); err != nil || got != want {
			t.Errorf("Session(%q) = %+v, %v; want %+v", want.ChatID, got, err, want)
		}
	}
	if _, err := a.SessionOfID(ctx, theirs.ID+1); !errors.Is(err, ErrNoSession) {
		t.Errorf("SessionOfID of no session: %v, want ErrNoSession", err)
	}
}

// The cache starts again when full; sessions are still found.
func TestSessionCacheBounded(t *testing.T) {
	var c sessionCache
	for i := range maxCachedSessions + 1 {
		c.add(Session{ID: int64(i + 1), Channel: "web", ChatID: strconv.Itoa(i)})
	}
	if len(c.byID) != 1 || len(c.byKey) != 1 {
		t.Fatalf("%d by id and %d by chat after %d, want 1 each", len(c.byID), len(c.byKey), maxCachedSessions+1)
	}
	if s, ok := c.get(maxCachedSessions + 1); !ok || s.ChatID != strconv.Itoa(maxCachedSessions) {
		t.Errorf("last added: %+v, %v", s, ok)
	}
	if _, ok := c.byChat("web", "0"); ok {
		t.Error("the first is still kept")
	}
}
