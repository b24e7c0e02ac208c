package memory

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/internal/scope"
	"github.com/hearth-agent/hearth/sdk"
)

// Reviewer A (issue 13): a plugin must not learn from its own search
// scores what another writer stored. The shared index's statistics
// (document count, document frequency, average length) are those of every
// entry, so plugin b's score for its own document moves when plugin a
// stores documents holding the query's word: b can test whether a (or
// another group) ever wrote "divorce".
func TestScoresDoNotLeakOtherWritersDocuments(t *testing.T) {
	_, d, _ := open(t, openStore(t, t.TempDir()))
	g1 := scope.Chat("qq", "group:1")
	a, b := scope.For("a", g1, false), scope.For("b", g1, false)
	for i := range 3 {
		if err := d.Insert(b, &sdk.Doc{ID: fmt.Sprint("b", i), Content: fmt.Sprint("filler text number ", i)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := d.Insert(b, &sdk.Doc{ID: "probe", Content: "divorce lawyer"}); err != nil {
		t.Fatal(err)
	}
	score := func() float64 {
		hits, err := d.QueryEntries(t.Context(), b, "divorce", 5)
		if err != nil || len(hits) != 1 {
			t.Fatalf("b finds %+v %v", hits, err)
		}
		return hits[0].Score
	}
	before := score()
	for i := range 20 {
		if err := d.Insert(a, &sdk.Doc{ID: fmt.Sprint("a", i), Content: "divorce papers signed"}); err != nil {
			t.Fatal(err)
		}
	}
	if after := score(); after != before {
		t.Errorf("b's score for its own document moved from %v to %v when a wrote documents b cannot see", before, after)
	}
}

// Reviewer A (issue 13): a plugin flooding the shared index with
// documents and entities that match a word must not push another
// writer's own entries out of its results.
func TestFloodingDoesNotHideOtherWritersEntries(t *testing.T) {
	g, d, _ := open(t, openStore(t, t.TempDir()))
	g1 := scope.Chat("qq", "group:1")
	a, b := scope.For("a", g1, false), scope.For("b", g1, false)
	if err := d.Insert(b, &sdk.Doc{ID: "mine", Content: "alice birthday party planning notes and more words here"}); err != nil {
		t.Fatal(err)
	}
	if err := g.Commit(b, []sdk.Triple{{Subject: "Alice Smith", Relation: "lives in", Object: "Paris"}}); err != nil {
		t.Fatal(err)
	}
	var triples []sdk.Triple
	for i := range 2000 {
		if err := d.Insert(a, &sdk.Doc{ID: fmt.Sprint(i), Content: "alice birthday"}); err != nil {
			t.Fatal(err)
		}
		triples = append(triples, sdk.Triple{Subject: "Alice", Relation: "knows", Object: fmt.Sprint("Alice ", i)})
	}
	if err := g.Commit(a, triples); err != nil {
		t.Fatal(err)
	}
	if hits := d.Query(b, "alice birthday", 5); len(hits) != 1 || hits[0].ID != "mine" {
		t.Errorf("b finds %+v", hits)
	}
	ents, _, err := g.Recall(b, []string{"Alice"}, 1)
	if err != nil || len(ents) == 0 {
		t.Errorf("b recalls %+v %v after a flooded the graph", ents, err)
	}
}

// Reviewer A (issue 13): chat ids differing only by case (Matrix rooms
// "!AbC:x" and "!abc:x") must get two text memory folders, or on a disk
// that ignores case one chat's Days lists the other's days.
func TestTextFoldersDifferIgnoringCase(t *testing.T) {
	a, b := scope.Chat("matrix", "!AbC:srv"), scope.Chat("matrix", "!abc:srv")
	if da, db := ScopeDir(a), ScopeDir(b); strings.EqualFold(da, db) {
		t.Errorf("%s and %s share the folder %q / %q on a disk that ignores case", a, b, da, db)
	}
}
