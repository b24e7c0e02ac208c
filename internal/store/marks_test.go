package store

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
)

// openAt writes a database at schema version upTo, as the Hearth that
// stopped there did, and returns its path.
func openAt(t *testing.T, upTo int) string {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), FileName)
	raw, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if _, err := raw.ExecContext(ctx, `CREATE TABLE schema_migrations (
		version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL DEFAULT (unixepoch()))`); err != nil {
		t.Fatal(err)
	}
	for _, m := range migrations {
		if m.Version > upTo {
			break
		}
		if _, err := raw.ExecContext(ctx, m.SQL); err != nil {
			t.Fatalf("migration %d: %v", m.Version, err)
		}
		if _, err := raw.ExecContext(ctx, `INSERT INTO schema_migrations(version, name) VALUES (?, ?)`, m.Version, m.Name); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := raw.ExecContext(ctx, `INSERT INTO mem_docs(scope, writer, id, title, content, created_at, updated_at)
		VALUES ('owner', '', 'fact-1', 'fact', 'Bob lives in Paris', 1, 1)`); err != nil {
		t.Fatal(err)
	}
	return path
}

// A database of the schema before the marks (12) opens, keeps its
// memory, and keeps marks from then on: a change queued by one open of
// the database is taken by the next, once.
func TestMarksMigrationFromSchema12(t *testing.T) {
	ctx := context.Background()
	path := openAt(t, 12)
	s, err := OpenFile(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if v, err := s.SchemaVersion(ctx); err != nil || v != migrations[len(migrations)-1].Version {
		t.Fatalf("schema version %d, %v", v, err)
	}
	if docs, err := s.DocsWithID(ctx, All, "fact-1"); err != nil || len(docs) != 1 || docs[0].Content != "Bob lives in Paris" {
		t.Fatalf("the old fact: %+v, %v", docs, err)
	}
	a, b, g := Chat{"web", "a"}, Chat{"web", "b"}, Chat{"qq", "group:g"}
	for _, c := range []struct {
		chat Chat
		conv string
	}{{a, "owner"}, {b, "owner"}, {g, "chat:qq/group:g"}} {
		if err := s.NoteShown(ctx, c.chat, c.conv, []string{"Bob lives in Paris"}); err != nil {
			t.Fatal(err)
		}
	}
	// An owner's entry changed: the owner's conversations shown it, not
	// the group's; b made the change itself.
	n, err := s.FactChanged(ctx, "Bob lives in Paris", "owner", b, "- mark", "Bob lives in Lyon")
	if err != nil || n != 1 {
		t.Fatalf("FactChanged: %d, %v", n, err)
	}
	s.Close()

	s, err = OpenFile(ctx, path) // another process, later
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, tc := range []struct {
		chat Chat
		want []string
	}{{a, []string{"- mark"}}, {a, nil}, {b, nil}, {g, nil}} {
		if got, err := s.TakeMarks(ctx, tc.chat); err != nil || !slices.Equal(got, tc.want) {
			t.Fatalf("TakeMarks(%v) = %q, %v; want %q", tc.chat, got, err, tc.want)
		}
	}
	// a now counts as shown the new text, b not (it was told in its
	// tool's result, and is no longer recorded as shown the old one).
	if n, err := s.FactChanged(ctx, "Bob lives in Lyon", "global", Chat{}, "- again", ""); err != nil || n != 1 {
		t.Fatalf("the corrected text: %d, %v", n, err)
	}
	// The group's copy of the old text changes in its scope only.
	if n, err := s.FactChanged(ctx, "Bob lives in Paris", "chat:qq/group:g", Chat{}, "- group", ""); err != nil || n != 1 {
		t.Fatalf("the group's fact: %d, %v", n, err)
	}
	if got, _ := s.TakeMarks(ctx, g); !slices.Equal(got, []string{"- group"}) {
		t.Fatalf("group marks %q", got)
	}
}

// What a conversation was shown, and the marks waiting for it, stay
// within their bounds: the oldest go first.
func TestMarksAreBounded(t *testing.T) {
	ctx := context.Background()
	s, err := OpenFile(ctx, filepath.Join(t.TempDir(), FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c := Chat{"web", "c"}
	var facts []string
	for i := range MaxShownPerChat + 10 {
		facts = append(facts, fmt.Sprintf("fact %d", i))
	}
	if err := s.NoteShown(ctx, c, "owner", facts); err != nil {
		t.Fatal(err)
	}
	var kept int
	if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM marks_shown WHERE channel = ? AND chat = ?`, c.Channel, c.Chat).Scan(&kept); err != nil {
		t.Fatal(err)
	}
	if kept != MaxShownPerChat {
		t.Fatalf("%d facts kept as shown, want %d", kept, MaxShownPerChat)
	}
	if n, _ := s.FactChanged(ctx, "fact 0", "", Chat{}, "- old", ""); n != 0 {
		t.Fatalf("the oldest fact, past the bound, still marked %d", n)
	}
	for i := range MaxPendingMarks + 5 {
		if err := s.NoteShown(ctx, c, "owner", []string{"x"}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.FactChanged(ctx, "x", "", Chat{}, fmt.Sprintf("- %d", i), ""); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.TakeMarks(ctx, c)
	if err != nil || len(got) != MaxPendingMarks || got[len(got)-1] != fmt.Sprintf("- %d", MaxPendingMarks+4) {
		t.Fatalf("%d marks (last %q), %v", len(got), got[len(got)-1:], err)
	}
}

// BenchmarkMarksPerTurn is what the marks add to a recalling turn: take
// the marks due (none: one read) and record the facts shown (8, in a
// conversation already holding its bound of shown facts).
func BenchmarkMarksPerTurn(b *testing.B) {
	ctx := context.Background()
	s, err := OpenFile(ctx, filepath.Join(b.TempDir(), FileName))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	c := Chat{"web", "c"}
	var facts []string
	for i := range MaxShownPerChat {
		facts = append(facts, fmt.Sprintf("person%d likes drink%d", i, i))
	}
	if err := s.NoteShown(ctx, c, "owner", facts); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := s.TakeMarks(ctx, c); err != nil {
			b.Fatal(err)
		}
		j := i % (MaxShownPerChat - 8)
		if err := s.NoteShown(ctx, c, "owner", facts[j:j+8]); err != nil {
			b.Fatal(err)
		}
		i += 8
	}
}

// Past MaxShownFacts recorded in all, the oldest go, whichever
// conversation they belong to.
func TestShownFactsBoundInAll(t *testing.T) {
	ctx := context.Background()
	s, err := OpenFile(ctx, filepath.Join(t.TempDir(), FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	old, other := Chat{"web", "old"}, Chat{"web", "new"}
	if err := s.NoteShown(ctx, old, "owner", []string{"an old fact"}); err != nil {
		t.Fatal(err)
	}
	// As if MaxShownFacts facts had been shown since.
	if _, err := s.w.ExecContext(ctx, `INSERT INTO marks_shown(fact, channel, chat, conv, seq) VALUES ('x', 'web', 'mid', 'owner', ?)`,
		MaxShownFacts); err != nil {
		t.Fatal(err)
	}
	if n, _ := s.FactChanged(ctx, "an old fact", "", Chat{}, "- l", ""); n != 1 {
		t.Fatal("the old fact is not recorded to begin with")
	}
	if err := s.NoteShown(ctx, old, "owner", []string{"an old fact"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.w.ExecContext(ctx, `UPDATE marks_shown SET seq = 1 WHERE fact = 'an old fact'`); err != nil {
		t.Fatal(err)
	}
	if err := s.NoteShown(ctx, other, "owner", []string{"a new fact"}); err != nil {
		t.Fatal(err)
	}
	if n, _ := s.FactChanged(ctx, "an old fact", "", Chat{}, "- l", ""); n != 0 {
		t.Fatal("a fact past the bound in all is still recorded as shown")
	}
	if n, _ := s.FactChanged(ctx, "a new fact", "", Chat{}, "- l", ""); n != 1 {
		t.Fatal("the newest fact was dropped")
	}
}
