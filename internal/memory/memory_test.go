package memory

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/hearth-agent/hearth/internal/scope"
	"github.com/hearth-agent/hearth/internal/search"
	"github.com/hearth-agent/hearth/internal/store"
	"github.com/hearth-agent/hearth/internal/store/storetest"
	"github.com/hearth-agent/hearth/sdk"
)

func openStore(t testing.TB, dir string) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// open returns the graph and document memory on st sharing one new index.
func open(t testing.TB, st interface {
	GraphStore
	DocStore
}) (*Graph, *Docs, *search.Index) {
	t.Helper()
	idx := search.NewIndex()
	g, err := NewGraph(context.Background(), st, idx)
	if err != nil {
		t.Fatal(err)
	}
	d, err := NewDocs(context.Background(), st, idx)
	if err != nil {
		t.Fatal(err)
	}
	return g, d, idx
}

func names(es []sdk.Entity) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.Name)
	}
	return out
}

// all is the owner's view of everything.
var all = scope.Everything()

func TestGraphCommitRecallMergePurge(t *testing.T) {
	g, _, _ := open(t, openStore(t, t.TempDir()))
	ctx := context.Background()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(g.Commit(all, []sdk.Triple{
		{Subject: "小明", Relation: "住在", Object: "北京"},
		{Subject: "小明", Relation: "喜欢", Object: "猫"},
		{Subject: "北京", Relation: "属于", Object: "中国"},
		{Subject: "小明", Relation: "喜欢", Object: "猫"}, // again: one relation, more mentions
	}))
	must(g.SetType(ctx, all, "小明", "Person"))
	if err := g.Commit(all, []sdk.Triple{{Subject: "x", Relation: "", Object: "y"}}); err == nil {
		t.Fatal("a triple without a relation was stored")
	}
	ents, rels, err := g.Recall(all, []string{"小明"}, 1)
	must(err)
	if got := names(ents); len(got) != 3 || got[0] != "小明" || ents[0].Type != "Person" || ents[0].MentionCount != 3 {
		t.Fatalf("depth 1: %+v", ents)
	}
	if len(rels) != 2 {
		t.Fatalf("relations: %+v", rels)
	}
	ents, _, _ = g.Recall(all, []string{"明"}, 2)
	if len(ents) != 4 {
		t.Fatalf("depth 2 reaches 中国: %v", names(ents))
	}
	// Two names of one thing.
	must(g.Commit(all, []sdk.Triple{{Subject: "明明", Relation: "养了", Object: "猫"}}))
	moved, err := g.MergeEntities(all, "明明", "小明")
	must(err)
	if moved != 1 {
		t.Fatalf("moved %d", moved)
	}
	ents, rels, _ = g.Recall(all, []string{"小明"}, 1)
	if ents[0].MentionCount != 4 || len(rels) != 3 {
		t.Fatalf("after merge: %+v %+v", ents, rels)
	}
	if ents, _, _ := g.Recall(all, []string{"明明"}, 1); slices.Contains(names(ents), "明明") {
		t.Fatalf("a merged name is still found: %v", names(ents))
	}
	// Soft purge hides, a new mention restores; hard purge deletes.
	n, err := g.Purge(all, map[string]string{"name": "猫"}, "soft")
	must(err)
	if n != 1 {
		t.Fatalf("purged %d", n)
	}
	if ents, _, _ := g.Recall(all, []string{"猫"}, 1); len(ents) != 0 {
		t.Fatalf("softly purged still recalled: %v", names(ents))
	}
	info, _ := g.Introspect(all)
	if info["purged_entities"] != 1 {
		t.Fatalf("introspect %v", info)
	}
	must(g.Commit(all, []sdk.Triple{{Subject: "小明", Relation: "喜欢", Object: "猫"}}))
	if ents, _, _ := g.Recall(all, []string{"猫"}, 1); len(ents) == 0 {
		t.Fatal("a new mention did not restore the entity")
	}
	if n, err := g.Purge(all, map[string]string{"type": "Person"}, "hard"); err != nil || n != 1 {
		t.Fatalf("hard purge: %d %v", n, err)
	}
	if _, err := g.Purge(all, nil, "hard"); !errors.Is(err, ErrCriteria) {
		t.Fatalf("purge without criteria: %v", err)
	}
	if _, err := g.Purge(all, map[string]string{"color": "red"}, "soft"); !errors.Is(err, ErrCriteria) {
		t.Fatalf("unknown criterion: %v", err)
	}
}

func TestDocsSurviveAndSearchChinese(t *testing.T) {
	st := openStore(t, t.TempDir())
	_, d, _ := open(t, st)
	doc := &sdk.Doc{Title: "会议纪要", Content: "周三下午三点在三楼会议室讨论预算。"}
	if err := d.Insert(all, doc); err != nil || doc.ID == "" {
		t.Fatalf("insert: %v %q", err, doc.ID)
	}
	d.Insert(all, &sdk.Doc{ID: "recipe", Title: "红烧肉", Content: "五花肉切块，冰糖炒糖色。"})
	// A new process: a new index, filled from the store.
	_, d2, _ := open(t, st)
	hits := d2.Query(all, "预算会议", 2)
	if len(hits) == 0 || hits[0].ID != doc.ID || hits[0].Score <= 0 || hits[0].Title != "会议纪要" {
		t.Fatalf("query: %+v", hits)
	}
	d2.Remove(all, doc.ID)
	if hits := d2.Query(all, "预算", 2); len(hits) != 0 {
		t.Fatalf("removed document found: %+v", hits)
	}
	if d2.Stats(all)["documents"] != 1 {
		t.Fatalf("stats %v", d2.Stats(all))
	}
}

// Starting on an index that already holds the memory (a persisted one)
// indexes again only what changed: a document whose version moved on,
// one added, an entity added; and drops what is gone.
func TestStartIndexesOnlyWhatChanged(t *testing.T) {
	ctx := context.Background()
	st := openStore(t, t.TempDir())
	g, d, idx := open(t, st)
	for _, id := range []string{"a", "b", "c"} {
		if err := d.Insert(all, &sdk.Doc{ID: id, Title: id, Content: "apple " + id}); err != nil {
			t.Fatal(err)
		}
	}
	if err := g.Commit(all, []sdk.Triple{{Subject: "Alice", Relation: "likes", Object: "apple"}}); err != nil {
		t.Fatal(err)
	}
	// Behind the index's back: b changes, c goes, d comes, an entity comes.
	k := store.Key{Scope: "global"}
	st.SaveDoc(ctx, store.Doc{Key: k, ID: "b", Title: "b", Content: "banana"})
	st.DeleteDocs(ctx, store.All, "c")
	st.SaveDoc(ctx, store.Doc{Key: k, ID: "d", Title: "d", Content: "durian"})
	st.CommitTriples(ctx, k, []store.Triple{{Subject: "Bob", Relation: "likes", Object: "durian"}})
	// Mark a's indexed text: it must survive the restart untouched.
	recA, _ := st.DocsWithID(ctx, store.All, "a")
	aID := indexID("d:", recA[0].RID)
	m, _ := idx.Meta(aID)
	idx.Put(aID, "marker", m)

	g2, err := NewGraph(ctx, st, idx)
	if err != nil {
		t.Fatal(err)
	}
	d2, err := NewDocs(ctx, st, idx)
	if err != nil {
		t.Fatal(err)
	}
	if hits := d2.Query(all, "marker", 1); len(hits) != 1 || hits[0].ID != "a" {
		t.Fatalf("unchanged document indexed again: %+v", hits)
	}
	for q, want := range map[string]string{"banana": "b", "durian": "d"} {
		if hits := d2.Query(all, q, 5); len(hits) != 1 || hits[0].ID != want {
			t.Fatalf("%s: %+v", q, hits)
		}
	}
	if hits := d2.Query(all, "apple", 5); len(hits) != 0 { // a is "marker", b changed, c gone
		t.Fatalf("apple: %+v", hits)
	}
	if ents, _, _ := g2.Recall(all, []string{"Bob"}, 1); !slices.Equal(names(ents), []string{"Bob", "durian"}) {
		t.Fatalf("an entity added behind the index's back: %v", names(ents))
	}
	n := 0
	idx.Each("", func(string, search.Meta) bool { n++; return true })
	if n != 3+4 { // a, b, d; Alice, apple, Bob, durian
		t.Fatalf("%d documents in the index", n)
	}
}

// A memory write the store refuses changes nothing: a document not saved
// is not found, one not removed still is, and triples not committed are
// not recalled.
func TestFailedWritesChangeNothing(t *testing.T) {
	f := storetest.Open(t)
	g, d, _ := open(t, f)
	if err := d.Insert(all, &sdk.Doc{ID: "kept", Title: "红烧肉", Content: "五花肉切块"}); err != nil {
		t.Fatal(err)
	}
	f.FailAfter(storetest.AnyWrite, 0, nil)
	if err := d.Insert(all, &sdk.Doc{ID: "lost", Title: "会议纪要", Content: "讨论预算"}); !errors.Is(err, storetest.ErrInjected) {
		t.Fatalf("insert: %v", err)
	}
	d.Remove(all, "kept")
	if hits := d.Query(all, "预算", 2); len(hits) != 0 {
		t.Fatalf("a document the store refused is found: %+v", hits)
	}
	if hits := d.Query(all, "五花肉", 2); len(hits) != 1 || hits[0].ID != "kept" {
		t.Fatalf("a document the store did not remove is gone: %+v", hits)
	}
	if err := g.Commit(all, []sdk.Triple{{Subject: "Alice", Relation: "lives_in", Object: "Beijing"}}); !errors.Is(err, storetest.ErrInjected) {
		t.Fatalf("commit: %v", err)
	}
	f.Heal()
	if ents, _, err := g.Recall(all, []string{"Alice"}, 1); err != nil || len(ents) != 0 {
		t.Fatalf("recalled %v, %v after a failed commit", ents, err)
	}
}

// A walk from an entity with many relations follows the latest
// RecallFanout of them each way, and stops at RecallReach entities.
func TestRecallIsBounded(t *testing.T) {
	g, _, _ := open(t, openStore(t, t.TempDir()))
	for i := range 40 {
		if err := g.Commit(all, []sdk.Triple{{Subject: "hub", Relation: "knows", Object: fmt.Sprintf("p%02d", i)}}); err != nil {
			t.Fatal(err)
		}
	}
	ents, rels, err := g.Recall(all, []string{"hub"}, 1)
	if err != nil || len(rels) != RecallFanout || len(ents) != RecallFanout+1 {
		t.Fatalf("depth 1: %d entities, %d relations, %v", len(ents), len(rels), err)
	}
	if !slices.Contains(names(ents), "p39") || slices.Contains(names(ents), "p00") {
		t.Fatalf("not the latest relations: %v", names(ents))
	}
	for i := range 40 { // each p owns ten things of its own
		for j := range 10 {
			if err := g.Commit(all, []sdk.Triple{{Subject: fmt.Sprintf("p%02d", i), Relation: "owns", Object: fmt.Sprintf("thing %d-%d", i, j)}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	ents, _, _ = g.Recall(all, []string{"hub"}, 3)
	if len(ents) != RecallReach {
		t.Fatalf("depth 3 reached %d entities, want %d", len(ents), RecallReach)
	}
}
