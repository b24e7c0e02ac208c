package memory

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hearth-agent/hearth/internal/store"
	"github.com/hearth-agent/hearth/internal/store/storetest"
	"github.com/hearth-agent/hearth/sdk"
)

func openStore(t *testing.T, dir string) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func names(es []sdk.Entity) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.Name)
	}
	return out
}

func TestGraphCommitRecallMergePurge(t *testing.T) {
	g := NewGraph(openStore(t, t.TempDir()))
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(g.Commit([]sdk.Triple{
		{Subject: "小明", Relation: "住在", Object: "北京"},
		{Subject: "小明", Relation: "喜欢", Object: "猫"},
		{Subject: "北京", Relation: "属于", Object: "中国"},
		{Subject: "小明", Relation: "喜欢", Object: "猫"}, // again: one relation, more mentions
	}))
	must(g.SetType("小明", "Person"))
	if err := g.Commit([]sdk.Triple{{Subject: "x", Relation: "", Object: "y"}}); err == nil {
		t.Fatal("a triple without a relation was stored")
	}
	ents, rels, err := g.Recall([]string{"小明"}, 1)
	must(err)
	if got := names(ents); len(got) != 3 || got[0] != "小明" || ents[0].Type != "Person" || ents[0].MentionCount != 3 {
		t.Fatalf("depth 1: %+v", ents)
	}
	if len(rels) != 2 {
		t.Fatalf("relations: %+v", rels)
	}
	ents, _, _ = g.Recall([]string{"明"}, 2)
	if len(ents) != 4 {
		t.Fatalf("depth 2 reaches 中国: %v", names(ents))
	}
	// Two names of one thing.
	must(g.Commit([]sdk.Triple{{Subject: "明明", Relation: "养了", Object: "猫"}}))
	moved, err := g.MergeEntities("明明", "小明")
	must(err)
	if moved != 1 {
		t.Fatalf("moved %d", moved)
	}
	ents, rels, _ = g.Recall([]string{"小明"}, 1)
	if ents[0].MentionCount != 4 || len(rels) != 3 {
		t.Fatalf("after merge: %+v %+v", ents, rels)
	}
	// Soft purge hides, a new mention restores; hard purge deletes.
	n, err := g.Purge(map[string]string{"name": "猫"}, "soft")
	must(err)
	if n != 1 {
		t.Fatalf("purged %d", n)
	}
	if ents, _, _ := g.Recall([]string{"猫"}, 1); len(ents) != 0 {
		t.Fatalf("softly purged still recalled: %v", names(ents))
	}
	info, _ := g.Introspect()
	if info["purged_entities"] != 1 {
		t.Fatalf("introspect %v", info)
	}
	must(g.Commit([]sdk.Triple{{Subject: "小明", Relation: "喜欢", Object: "猫"}}))
	if ents, _, _ := g.Recall([]string{"猫"}, 1); len(ents) == 0 {
		t.Fatal("a new mention did not restore the entity")
	}
	if n, err := g.Purge(map[string]string{"type": "Person"}, "hard"); err != nil || n != 1 {
		t.Fatalf("hard purge: %d %v", n, err)
	}
	if _, err := g.Purge(nil, "hard"); !errors.Is(err, ErrCriteria) {
		t.Fatalf("purge without criteria: %v", err)
	}
	if _, err := g.Purge(map[string]string{"color": "red"}, "soft"); !errors.Is(err, ErrCriteria) {
		t.Fatalf("unknown criterion: %v", err)
	}
}

func TestTextMemoryOneFileADay(t *testing.T) {
	dir := t.TempDir()
	m := NewText(dir)
	day1 := time.Date(2026, 11, 29, 23, 0, 0, 0, time.Local).UnixMilli()
	day2 := time.Date(2026, 11, 30, 8, 0, 0, 0, time.Local).UnixMilli()
	for _, e := range []sdk.TextEvent{
		{Role: "user", Content: "晚安", Timestamp: day1, Channel: "qq"},
		{Role: "user", Content: "早上好", Timestamp: day2},
		{Role: "assistant", Content: "早！", Timestamp: day2},
	} {
		if err := m.Append(e); err != nil {
			t.Fatal(err)
		}
	}
	count := func(name string) (n int) {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			var e sdk.TextEvent
			if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
				t.Fatal(err)
			}
			n++
		}
		return n
	}
	if count("2026-11-29.jsonl") != 1 || count("2026-11-30.jsonl") != 2 {
		t.Fatal("events not split by day")
	}
}

func TestDocsSurviveAndSearchChinese(t *testing.T) {
	dir := t.TempDir()
	st := openStore(t, dir)
	d, err := NewDocs(st)
	if err != nil {
		t.Fatal(err)
	}
	doc := &sdk.Doc{Title: "会议纪要", Content: "周三下午三点在三楼会议室讨论预算。"}
	if err := d.Insert(doc); err != nil || doc.ID == "" {
		t.Fatalf("insert: %v %q", err, doc.ID)
	}
	d.Insert(&sdk.Doc{ID: "recipe", Title: "红烧肉", Content: "五花肉切块，冰糖炒糖色。"})
	// A new process: the index is rebuilt from the store.
	d2, err := NewDocs(st)
	if err != nil {
		t.Fatal(err)
	}
	hits := d2.Query("预算会议", 2)
	if len(hits) == 0 || hits[0].ID != doc.ID || hits[0].Score <= 0 || hits[0].Title != "会议纪要" {
		t.Fatalf("query: %+v", hits)
	}
	d2.Remove(doc.ID)
	if hits := d2.Query("预算", 2); len(hits) != 0 {
		t.Fatalf("removed document found: %+v", hits)
	}
	if d2.Stats()["documents"] != 1 {
		t.Fatalf("stats %v", d2.Stats())
	}
}

// A memory write the store refuses changes nothing: a document not saved
// is not found, one not removed still is, and triples not committed are
// not recalled.
func TestFailedWritesChangeNothing(t *testing.T) {
	f := storetest.Open(t)
	d, err := NewDocs(f)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Insert(&sdk.Doc{ID: "kept", Title: "红烧肉", Content: "五花肉切块"}); err != nil {
		t.Fatal(err)
	}
	f.FailAfter(storetest.AnyWrite, 0, nil)
	if err := d.Insert(&sdk.Doc{ID: "lost", Title: "会议纪要", Content: "讨论预算"}); !errors.Is(err, storetest.ErrInjected) {
		t.Fatalf("insert: %v", err)
	}
	d.Remove("kept")
	if hits := d.Query("预算", 2); len(hits) != 0 {
		t.Fatalf("a document the store refused is found: %+v", hits)
	}
	if hits := d.Query("五花肉", 2); len(hits) != 1 || hits[0].ID != "kept" {
		t.Fatalf("a document the store did not remove is gone: %+v", hits)
	}

	g := NewGraph(f)
	if err := g.Commit([]sdk.Triple{{Subject: "Alice", Relation: "lives_in", Object: "Beijing"}}); !errors.Is(err, storetest.ErrInjected) {
		t.Fatalf("commit: %v", err)
	}
	f.Heal()
	if ents, _, err := g.Recall([]string{"Alice"}, 1); err != nil || len(ents) != 0 {
		t.Fatalf("recalled %v, %v after a failed commit", ents, err)
	}
}
