package memory

import (
	"fmt"
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
