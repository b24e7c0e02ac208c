package store

import (
	"context"
	"errors"
	"testing"
)

func TestListSessionsAndMessages(t *testing.T) {
	ctx := context.Background()
	st, err := Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	b, err := st.Session(ctx, "terminal", "")
	if err != nil {
		t.Fatal(err)
	}
	a, err := st.Session(ctx, "web", "a") // opened later: first even within a millisecond
	if err != nil {
		t.Fatal(err)
	}
	if err := st.AppendMessages(ctx, a.ID, []Message{
		{Role: "user", Content: "what is the weather like today in a very long sentence that goes past eighty characters"},
		{Role: "assistant", Content: "sunny", ToolCalls: []byte(`[{"id":"x"}]`)},
	}); err != nil {
		t.Fatal(err)
	}
	list, err := st.ListSessions(ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].ID != a.ID || list[1].ID != b.ID {
		t.Fatalf("list %+v", list)
	}
	if got := list[0].Title; len([]rune(got)) != 80 || got[:12] != "what is the " {
		t.Fatalf("title %q", got)
	}
	if list[1].Title != "" || list[0].Updated.Before(list[1].Updated) {
		t.Fatalf("list %+v", list)
	}
	if l, _ := st.ListSessions(ctx, 1); len(l) != 1 {
		t.Fatalf("limit 1: %+v", l)
	}
	got, err := st.SessionByID(ctx, b.ID)
	if err != nil || got.Channel != "terminal" || got.ChatID != "" {
		t.Fatalf("SessionByID: %+v, %v", got, err)
	}
	if _, err := st.SessionByID(ctx, 999); !errors.Is(err, ErrNoSession) {
		t.Fatalf("unknown id: %v", err)
	}
	msgs, err := st.Messages(ctx, a.ID, 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 2 || msgs[0].Role != "user" || msgs[1].Content != "sunny" || string(msgs[1].ToolCalls) != `[{"id":"x"}]` || msgs[1].Created.IsZero() {
		t.Fatalf("messages %+v", msgs)
	}
	if msgs, _ := st.Messages(ctx, a.ID, 1); len(msgs) != 1 || msgs[0].Content != "sunny" {
		t.Fatalf("last message %+v", msgs)
	}
}

// Finding a session that exists is a read: it does not queue for the one
// write connection, which the turns' writes hold in turn.
func TestSessionFoundWithoutWriting(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	writes := 0
	s.w.wrote = func() { writes++ }
	first, err := s.Session(ctx, "web", "a")
	if err != nil {
		t.Fatal(err)
	}
	if writes != 1 {
		t.Fatalf("opening a new session wrote %d times, want 1", writes)
	}
	again, err := s.Session(ctx, "web", "a")
	if err != nil {
		t.Fatal(err)
	}
	if writes != 1 || again != first {
		t.Fatalf("finding it again: %+v, want %+v, and %d writes, want still 1", again, first, writes)
	}
	other, err := s.Session(ctx, "web", "b")
	if err != nil || other.ID == first.ID || writes != 2 {
		t.Fatalf("another chat: %+v, %v, %d writes; want a new session and 2 writes", other, err, writes)
	}
}
