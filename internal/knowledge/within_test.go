package knowledge

import (
	"fmt"
	"testing"

	"github.com/hearth-agent/hearth/internal/scope"
	"github.com/hearth-agent/hearth/internal/search"
)

// Reviewer A (issue 13): a plugin's knowledge scores and the order of its
// hits must not move when another plugin stores entries with the query's
// words, or it could test whether anyone ever wrote "divorce".
func TestPluginScoresDoNotLeak(t *testing.T) {
	k := open(t, t.TempDir(), nil)
	g1 := scope.Chat("tg", "group:1")
	a, b := scope.For("alpha", g1, false), scope.For("beta", g1, false)
	for i := range 3 {
		if err := k.Add(b, fmt.Sprint("filler", i), fmt.Sprint("filler text number ", i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := k.Add(b, "probe", "divorce lawyer"); err != nil {
		t.Fatal(err)
	}
	if err := k.Add(b, "fees", "lawyer lawyer fees"); err != nil {
		t.Fatal(err)
	}
	find := func() string {
		return fmt.Sprint(k.Find(b, "divorce lawyer", 5))
	}
	before := find()
	for i := range 20 {
		if err := k.Add(a, fmt.Sprint("a", i), "divorce papers signed"); err != nil {
			t.Fatal(err)
		}
	}
	if after := find(); after != before {
		t.Errorf("beta's hits moved from %v to %v when alpha wrote entries beta cannot see", before, after)
	}
	if hits := k.Find(a, "divorce", 50); len(hits) != 20 {
		t.Errorf("alpha finds %d of its 20 entries", len(hits))
	}
}

// FindMatching re-checks each hit's entry against the view: an index
// document whose tag is out of step with the folder (here: alpha's entry
// indexed under beta's tag) is not shown to beta.
func TestFindRechecksTheView(t *testing.T) {
	k := open(t, t.TempDir(), nil)
	g1 := scope.Chat("tg", "group:1")
	a, b := scope.For("alpha", g1, false), scope.For("beta", g1, false)
	if err := k.Add(a, "secret", "alpha's secret: apricot"); err != nil {
		t.Fatal(err)
	}
	hits := k.Find(a, "apricot", 5)
	if len(hits) != 1 {
		t.Fatalf("alpha finds %+v", hits)
	}
	k.index.Put(idPrefix+hits[0].File, "apricot", search.Meta{Tag: k.tag(g1, "beta")})
	if got := k.Find(b, "apricot", 5); len(got) != 0 {
		t.Errorf("beta finds alpha's entry through a stale tag: %+v", got)
	}
	if got := k.FindMatching(owner, "apricot", 5, func(_ scope.Scope, w string) bool { return w == "beta" }); len(got) != 0 {
		t.Errorf("the owner narrowing to beta finds alpha's entry: %+v", got)
	}
}
