package memory

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/hearth-agent/hearth/internal/scope"
	"github.com/hearth-agent/hearth/sdk"
)

// Two plugins (writers) in two groups (scopes): none sees another's
// entries through any method, the same name or id from two writers is
// two entries, and a plugin cannot merge, purge or remove another's.
func TestPluginsAndGroupsNeverSeeEachOther(t *testing.T) {
	ctx := context.Background()
	g, d, _ := open(t, openStore(t, t.TempDir()))
	g1, g2 := scope.Chat("qq", "group:1"), scope.Chat("qq", "group:2")
	a1, b1, a2 := scope.For("a", g1, false), scope.For("b", g1, false), scope.For("a", g2, false)
	views := map[string]scope.View{"a1": a1, "b1": b1, "a2": a2}
	for name, v := range views {
		if err := g.Commit(v, []sdk.Triple{{Subject: "Alice", Relation: "likes", Object: "tea " + name}}); err != nil {
			t.Fatal(err)
		}
		if err := d.Insert(v, &sdk.Doc{ID: "note", Title: "note", Content: "Alice likes tea " + name}); err != nil {
			t.Fatal(err)
		}
	}
	for name, v := range views {
		ents, rels, err := g.Recall(v, []string{"Alice", "tea"}, 2)
		if err != nil || len(ents) != 2 || len(rels) != 1 || rels[0].TargetName != "tea "+name {
			t.Errorf("%s recalls %+v %+v %v", name, ents, rels, err)
		}
		if info, _ := g.Introspect(v); info["entities"] != 2 || info["relations"] != 1 {
			t.Errorf("%s counts %v", name, info)
		}
		hits := d.Query(v, "Alice tea", 10)
		if len(hits) != 1 || hits[0].Content != "Alice likes tea "+name {
			t.Errorf("%s finds %+v", name, hits)
		}
		if n := d.Stats(v)["documents"]; n != 1 {
			t.Errorf("%s counts %v documents", name, n)
		}
	}
	// The owner sees every entry: the same name three times, once per
	// scope and writer.
	ents, _, err := g.RecallEntries(ctx, all, []string{"Alice"}, 1)
	var alices []Owner
	for _, e := range ents {
		if e.Name == "Alice" {
			alices = append(alices, e.Owner)
		}
	}
	if err != nil || len(alices) != 3 || !slices.Contains(alices, Owner{g2, "a"}) {
		t.Fatalf("the owner recalls %+v %v", ents, err)
	}
	if hits := d.Query(all, "Alice", 10); len(hits) != 3 {
		t.Fatalf("the owner finds %d notes", len(hits))
	}
	// A plugin sharing memory.shared sees every writer in its scopes, but
	// changes only its own.
	shared := scope.For("b", g1, true)
	if ents, _, _ := g.Recall(shared, []string{"Alice"}, 1); len(ents) != 4 { // A's and B's Alice and tea
		t.Fatalf("B shared recalls %v", names(ents))
	}
	if hits := d.Query(shared, "Alice", 10); len(hits) != 2 {
		t.Fatalf("B shared finds %+v", hits)
	}

	// B cannot merge, purge or remove A's entries, in its scope or not.
	if _, err := g.MergeEntities(b1, "tea a1", "Alice"); !errors.Is(err, ErrNoEntity) {
		t.Fatalf("B merged A's entity: %v", err)
	}
	if _, err := g.MergeEntities(shared, "tea a1", "Alice"); !errors.Is(err, ErrNoEntity) {
		t.Fatalf("B (shared) merged A's entity: %v", err)
	}
	for _, v := range []scope.View{b1, shared} {
		if n, err := g.Purge(v, map[string]string{"name": "tea a1"}, "hard"); err != nil || n != 0 {
			t.Fatalf("B purged A's entity: %d %v", n, err)
		}
		d.Remove(v, "note")
	}
	if ents, _, _ := g.Recall(a1, []string{"tea"}, 1); !slices.Contains(names(ents), "tea a1") {
		t.Fatalf("A's entity gone after B's purge: %v", names(ents))
	}
	if hits := d.Query(a1, "Alice", 10); len(hits) != 1 {
		t.Fatalf("A's note gone after B's remove: %+v", hits)
	}
	if hits := d.Query(b1, "Alice", 10); len(hits) != 0 {
		t.Fatalf("B's own note not removed: %+v", hits)
	}
	// A in group 1 cannot reach its own entries of group 2.
	if n, err := g.Purge(a1, map[string]string{"name": "Alice"}, "hard"); err != nil || n != 1 {
		t.Fatalf("A purged %d in group 1: %v", n, err)
	}
	if ents, _, _ := g.Recall(a2, []string{"Alice"}, 1); len(ents) != 2 {
		t.Fatalf("A's group 2 entries gone: %v", names(ents))
	}
	// The same id from two writers is two documents: replacing one
	// leaves the other.
	if err := d.Insert(a1, &sdk.Doc{ID: "note", Title: "note", Content: "changed"}); err != nil {
		t.Fatal(err)
	}
	if hits := d.Query(a2, "Alice tea", 10); len(hits) != 1 || hits[0].Content != "Alice likes tea a2" {
		t.Fatalf("A's group 2 note changed: %+v", hits)
	}
	// Outside any conversation a plugin writes to and reads global only.
	glob := scope.For("a", "", false)
	if ents, _, _ := g.Recall(glob, []string{"Alice"}, 1); len(ents) != 0 {
		t.Fatalf("global recalls a group's entries: %v", names(ents))
	}
	if err := g.Commit(glob, []sdk.Triple{{Subject: "Alice", Relation: "is", Object: "a friend"}}); err != nil {
		t.Fatal(err)
	}
	if ents, _, _ := g.Recall(a2, []string{"Alice"}, 1); len(ents) != 4 { // global's Alice and friend too
		t.Fatalf("group 2 does not see global: %v", names(ents))
	}
}

// Plugins writing and reading at once, each in its own group, end with
// exactly their own entries (run with -race).
func TestConcurrentWritersStayApart(t *testing.T) {
	g, d, _ := open(t, openStore(t, t.TempDir()))
	var wg sync.WaitGroup
	for i := range 6 {
		v := scope.For(fmt.Sprintf("p%d", i), scope.Chat("qq", fmt.Sprintf("group:%d", i)), false)
		wg.Go(func() {
			for j := range 10 {
				if err := g.Commit(v, []sdk.Triple{{Subject: "Alice", Relation: "met", Object: fmt.Sprintf("friend %d", j)}}); err != nil {
					t.Error(err)
				}
				if err := d.Insert(v, &sdk.Doc{ID: "note", Content: fmt.Sprintf("Alice met friend %d", j)}); err != nil {
					t.Error(err)
				}
				g.Recall(v, []string{"Alice"}, 2)
				d.Query(v, "Alice", 3)
			}
		})
	}
	wg.Wait()
	for i := range 6 {
		v := scope.For(fmt.Sprintf("p%d", i), scope.Chat("qq", fmt.Sprintf("group:%d", i)), false)
		ents, rels, err := g.Recall(v, []string{"Alice"}, 1)
		if err != nil || len(ents) != 11 || len(rels) != 10 {
			t.Errorf("p%d recalls %d entities, %d relations, %v", i, len(ents), len(rels), err)
		}
		if hits := d.Query(v, "Alice friend", 10); len(hits) != 1 || hits[0].Content != "Alice met friend 9" {
			t.Errorf("p%d finds %+v", i, hits)
		}
	}
}
