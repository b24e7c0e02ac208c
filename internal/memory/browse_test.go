package memory

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/hearth-agent/hearth/sdk"
)

func entryNames(es []EntityEntry) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.Name)
	}
	return out
}

func TestBrowseRenameDeletePurgeAll(t *testing.T) {
	ctx := context.Background()
	g, _, _ := open(t, openStore(t, t.TempDir()))
	if err := g.Commit(all, []sdk.Triple{
		{Subject: "小明", Relation: "住在", Object: "北京"},
		{Subject: "小明", Relation: "喜欢", Object: "茶"},
		{Subject: "Alice", Relation: "knows", Object: "小明"},
	}); err != nil {
		t.Fatal(err)
	}
	list, total, err := g.Entities(ctx, all, "", 0, 2)
	if err != nil || total != 4 || !slices.Equal(entryNames(list), []string{"小明", "Alice"}) || list[0].Scope != "global" {
		t.Fatalf("Entities = %q %d %v", entryNames(list), total, err)
	}
	e, rels, err := g.Entity(ctx, all, "小明")
	if err != nil || e.MentionCount != 3 || len(rels) != 3 {
		t.Fatalf("Entity = %+v %v %v", e, rels, err)
	}
	if _, _, err := g.Entity(ctx, all, "nobody"); !errors.Is(err, ErrNoEntity) {
		t.Fatalf("Entity(nobody) = %v", err)
	}
	if err := g.Rename(ctx, all, "小明", "Alice"); !errors.Is(err, ErrExists) {
		t.Fatalf("Rename onto another entity = %v", err)
	}
	if err := g.Rename(ctx, all, "小明", "王小明"); err != nil {
		t.Fatal(err)
	}
	if _, rels, err := g.Entity(ctx, all, "王小明"); err != nil || len(rels) != 3 {
		t.Fatalf("renamed entity = %v %v", rels, err)
	}
	if ents, _, _ := g.Recall(all, []string{"王小明"}, 1); len(ents) == 0 || ents[0].Name != "王小明" {
		t.Fatalf("a renamed entity is not recalled by its new name: %v", names(ents))
	}
	if ok, err := g.DeleteRelation(ctx, all, sdk.Relation{SourceName: "王小明", RelationType: "喜欢", TargetName: "茶"}); !ok || err != nil {
		t.Fatalf("DeleteRelation = %v %v", ok, err)
	}
	if rels, total, err := g.Relations(ctx, all, "", 0, 10); err != nil || total != 2 || len(rels) != 2 {
		t.Fatalf("Relations = %v %d %v", rels, total, err)
	}
	if err := g.Delete(ctx, all, "Alice"); err != nil {
		t.Fatal(err)
	}
	if err := g.Delete(ctx, all, "Alice"); !errors.Is(err, ErrNoEntity) {
		t.Fatalf("Delete twice = %v", err)
	}
	if n, err := g.PurgeAll(ctx, all, false); err != nil || n != 3 {
		t.Fatalf("PurgeAll = %d %v", n, err)
	}
	if _, _, err := g.Entity(ctx, all, "北京"); !errors.Is(err, ErrNoEntity) {
		t.Fatalf("a soft-purged entity is still shown: %v", err)
	}
	if _, total, _ := g.Entities(ctx, all, "", 0, 10); total != 0 {
		t.Fatalf("%d entities left", total)
	}
}

func TestDocsListGetDelete(t *testing.T) {
	ctx := context.Background()
	_, d, _ := open(t, openStore(t, t.TempDir()))
	for _, doc := range []*sdk.Doc{{ID: "b", Title: "天气", Content: "明天北京下雨"}, {ID: "a", Title: "x", Content: "y"}} {
		if err := d.Insert(all, doc); err != nil {
			t.Fatal(err)
		}
	}
	list, total, err := d.List(ctx, all, 0, 10)
	if err != nil || total != 2 || len(list) != 2 || list[0].ID != "a" {
		t.Fatalf("List = %+v %v", list, err)
	}
	if doc, err := d.Get(ctx, all, "b"); err != nil || doc.Title != "天气" {
		t.Fatalf("Get = %+v %v", doc, err)
	}
	if err := d.Delete(ctx, all, "b"); err != nil {
		t.Fatal(err)
	}
	if err := d.Delete(ctx, all, "b"); !errors.Is(err, ErrNoDoc) {
		t.Fatalf("Delete twice = %v", err)
	}
	if hits := d.Query(all, "北京", 5); len(hits) != 0 {
		t.Fatalf("a deleted document is still found: %+v", hits)
	}
}
