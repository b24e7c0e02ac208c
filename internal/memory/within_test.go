package memory

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/internal/scope"
	"github.com/hearth-agent/hearth/sdk"
)

// Reviewer A (issue 13): graph recall's seeds and their scores (and the
// "half the best" threshold over them) must not move for plugin b when
// plugin a commits entities whose names hold the query's words.
func TestRecallScoresDoNotLeak(t *testing.T) {
	g, _, _ := open(t, openStore(t, t.TempDir()))
	g1 := scope.Chat("qq", "group:1")
	a, b := scope.For("a", g1, false), scope.For("b", g1, false)
	if err := g.Commit(b, []sdk.Triple{
		{Subject: "Alice Smith", Relation: "lives in", Object: "Paris"},
		{Subject: "Smith Smith Partners", Relation: "employs", Object: "Alice Smith"},
	}); err != nil {
		t.Fatal(err)
	}
	recall := func() string {
		ents, _, err := g.RecallEntries(t.Context(), b, []string{"Alice Smith"}, 1)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range ents {
			out = append(out, fmt.Sprintf("%s %.12f %d", e.Name, e.Score, e.Hop))
		}
		return strings.Join(out, "; ")
	}
	before := recall()
	var triples []sdk.Triple
	for i := range 50 {
		triples = append(triples, sdk.Triple{Subject: fmt.Sprint("Alice ", i), Relation: "knows", Object: "Bob"})
	}
	if err := g.Commit(a, triples); err != nil {
		t.Fatal(err)
	}
	if after := recall(); after != before {
		t.Errorf("b's recall moved from %q to %q when a committed entities b cannot see", before, after)
	}
	// The owner's view sees both, scored over everything.
	ents, _, err := g.RecallEntries(t.Context(), scope.Everything(), []string{"Alice"}, 1)
	if err != nil || len(ents) < 2 {
		t.Errorf("the owner recalls %d entities, %v", len(ents), err)
	}
}

// An event over MaxTextEvent is refused with ErrTextTooLarge and nothing
// is written; one just under it is kept.
func TestTextEventSizeLimit(t *testing.T) {
	m, err := NewText(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	v := scope.For("a", scope.Chat("qq", "group:1"), false)
	const day = 1_764_547_200_000 // 2025-12-01 UTC, midday or so anywhere
	err = m.Append(v, sdk.TextEvent{Role: "user", Content: strings.Repeat("x", MaxTextEvent), Timestamp: day})
	if !errors.Is(err, ErrTextTooLarge) || !strings.Contains(err.Error(), "64 KiB") {
		t.Fatalf("a 64 KiB event: %v", err)
	}
	if days, err := m.Days(v); err != nil || len(days) != 0 {
		t.Fatalf("after a refused event: days %v %v", days, err)
	}
	ok := strings.Repeat("y", MaxTextEvent-200)
	if err := m.Append(v, sdk.TextEvent{Role: "user", Content: ok, Timestamp: day}); err != nil {
		t.Fatalf("an event under the limit: %v", err)
	}
	days, err := m.Days(v)
	if err != nil || len(days) != 1 {
		t.Fatalf("days %v %v", days, err)
	}
	got, err := m.Read(v, days[0])
	if err != nil || len(got) != 1 || got[0].Content != ok {
		t.Fatalf("read %d entries, %v", len(got), err)
	}
}
