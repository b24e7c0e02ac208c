package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"
)

func openMem(t *testing.T) *Store {
	t.Helper()
	s, err := OpenFile(context.Background(), filepath.Join(t.TempDir(), "h.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func entityNames(list []Entity) []string {
	var out []string
	for _, e := range list {
		out = append(out, e.Name)
	}
	return out
}

func TestEntityAndRelationPages(t *testing.T) {
	ctx := context.Background()
	s := openMem(t)
	g := Key{Scope: "global"}
	if _, err := s.CommitTriples(ctx, g, []Triple{
		{"小明", "住在", "北京"}, {"小明", "喜欢", "Tea"}, {"Alice", "knows", "小明"}, {"Alice", "likes", "tea house"},
	}); err != nil {
		t.Fatal(err)
	}
	all, total, err := s.EntityPage(ctx, All, "", 0, 2)
	if err != nil || total != 5 || !slices.Equal(entityNames(all), []string{"小明", "Alice"}) {
		t.Fatalf("EntityPage first = %q %d %v", entityNames(all), total, err)
	}
	rest, _, err := s.EntityPage(ctx, All, "", 2, 10)
	if err != nil || !slices.Equal(entityNames(rest), []string{"Tea", "tea house", "北京"}) {
		t.Fatalf("EntityPage rest = %q %v", entityNames(rest), err)
	}
	tea, total, err := s.EntityPage(ctx, All, "TEA", 0, 10)
	if err != nil || total != 2 || len(tea) != 2 {
		t.Fatalf("EntityPage TEA = %q %d %v", entityNames(tea), total, err)
	}
	rels, total, err := s.RelationPage(ctx, All, "小明", 0, 10)
	if err != nil || total != 3 || len(rels) != 3 {
		t.Fatalf("RelationPage 小明 = %v %d %v", rels, total, err)
	}
	ok, err := s.DeleteRelation(ctx, Relation{g, "小明", "住在", "北京"})
	if err != nil || !ok {
		t.Fatalf("DeleteRelation = %v %v", ok, err)
	}
	if ok, err := s.DeleteRelation(ctx, Relation{g, "小明", "住在", "北京"}); err != nil || ok {
		t.Fatalf("DeleteRelation again = %v %v", ok, err)
	}
	if _, total, _ := s.RelationPage(ctx, All, "", 0, 10); total != 3 {
		t.Fatalf("after delete, %d relations", total)
	}
}

// The same name, relation or document id from two writers or in two
// scopes is two entries, and a selection sees only its owners'.
func TestMemoryEntriesPerOwner(t *testing.T) {
	ctx := context.Background()
	s := openMem(t)
	a, b := "plugin-a", "plugin-b"
	ka, kb, kc := Key{"chat:qq/g1", a}, Key{"chat:qq/g1", b}, Key{"chat:qq/g2", a}
	for _, k := range []Key{ka, kb, kc, ka} {
		if _, err := s.CommitTriples(ctx, k, []Triple{{"Alice", "likes", "tea"}}); err != nil {
			t.Fatal(err)
		}
	}
	onlyA := Visible{Scopes: []string{"global", "chat:qq/g1"}, Writer: &a}
	list, err := s.EntitiesNamed(ctx, onlyA, []string{"Alice"}, false)
	if err != nil || len(list) != 1 || list[0].Key != ka || list[0].Mentions != 2 {
		t.Fatalf("A in g1 sees %+v %v", list, err)
	}
	if all, _ := s.EntitiesNamed(ctx, All, []string{"Alice"}, false); len(all) != 3 {
		t.Fatalf("%d entries named Alice, want 3", len(all))
	}
	rels, err := s.RelationsTouching(ctx, onlyA, []string{"Alice", "tea"}, 10)
	if err != nil || len(rels) != 2 || rels[0].Key != ka || rels[1].Key != ka { // once from each end
		t.Fatalf("A's walk = %+v %v", rels, err)
	}
	gone, err := s.PurgeEntities(ctx, Visible{Scopes: []string{"chat:qq/g1"}, Writer: &b}, EntityFilter{}, true)
	if err != nil || len(gone) != 2 {
		t.Fatalf("B purged %+v %v", gone, err)
	}
	if c, _ := s.CountGraph(ctx, All); c.Entities != 4 || c.Relations != 2 {
		t.Fatalf("after B's purge %+v", c)
	}

	for _, k := range []Key{ka, kb} {
		if _, err := s.SaveDoc(ctx, Doc{Key: k, ID: "d", Title: "t", Content: string(k.Writer)}); err != nil {
			t.Fatal(err)
		}
	}
	d, err := s.SaveDoc(ctx, Doc{Key: ka, ID: "d", Title: "t2", Content: "again"})
	if err != nil || d.Version != 2 {
		t.Fatalf("resave %+v %v", d, err)
	}
	rids, err := s.DeleteDocs(ctx, Visible{Scopes: []string{"chat:qq/g1"}, Writer: &b}, "d")
	if err != nil || len(rids) != 1 {
		t.Fatalf("B deleted %v %v", rids, err)
	}
	left, err := s.DocsWithID(ctx, All, "d")
	if err != nil || len(left) != 1 || left[0].Key != ka || left[0].Content != "again" {
		t.Fatalf("left %+v %v", left, err)
	}
	// A new document never takes a removed one's row id.
	again, _ := s.SaveDoc(ctx, Doc{Key: kb, ID: "d", Title: "t", Content: "new"})
	if again.RID <= rids[0] {
		t.Fatalf("row id %d reused (removed %d)", again.RID, rids[0])
	}
}

func TestApplySettingsAllOrNone(t *testing.T) {
	ctx := context.Background()
	s := openMem(t)
	if err := s.SetSetting(ctx, "w", "old", json.RawMessage(`1`)); err != nil {
		t.Fatal(err)
	}
	if err := s.ApplySettings(ctx, "w", map[string]json.RawMessage{"a": json.RawMessage(`"x"`)}, []string{"old", "missing"}); err != nil {
		t.Fatal(err)
	}
	keys, err := s.SettingKeys(ctx, "w", "")
	if err != nil || !slices.Equal(keys, []string{"a"}) {
		t.Fatalf("keys = %q %v", keys, err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := s.ApplySettings(cctx, "w", map[string]json.RawMessage{"b": json.RawMessage(`2`)}, []string{"a"}); err == nil {
		t.Fatal("ApplySettings on a cancelled context succeeded")
	}
	if keys, _ := s.SettingKeys(ctx, "w", ""); !slices.Equal(keys, []string{"a"}) {
		t.Fatalf("a failed apply changed keys: %q", keys)
	}
}

// Migration 12 moves the memory an earlier Hearth kept (schema 9 here)
// to the global scope, written by the owner, with the walks' indexes,
// and the same names can then be written again by a plugin or in
// another scope as entries of their own.
func TestMigration12ScopesOldMemory(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), FileName)
	raw, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.ExecContext(ctx, schemaV9); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	s, err := OpenFile(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var idx []string
	rows, err := s.db.QueryContext(ctx, `SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name LIKE 'mem_%' AND sql IS NOT NULL ORDER BY name`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var n string
		rows.Scan(&n)
		idx = append(idx, n)
	}
	rows.Close()
	if want := []string{"mem_entities_by_name", "mem_relations_by_source", "mem_relations_by_target"}; !slices.Equal(idx, want) {
		t.Fatalf("indexes %q, want %q", idx, want)
	}
	old, err := s.EntitiesNamed(ctx, All, []string{"Alice", "Beijing", "Hearth"}, true)
	if err != nil || len(old) != 3 {
		t.Fatalf("old entities %+v %v", old, err)
	}
	for _, e := range old {
		if e.Key != (Key{Scope: "global"}) {
			t.Fatalf("old entity %+v not global and the owner's", e)
		}
	}
	for _, k := range []Key{{"global", "weather"}, {"chat:qq/group:1", ""}} {
		if _, err := s.CommitTriples(ctx, k, []Triple{{"Alice", "lives_in", "Beijing"}}); err != nil {
			t.Fatal(err)
		}
	}
	all, _ := s.EntitiesNamed(ctx, All, []string{"Alice"}, false) // by name, scope, writer
	if len(all) != 3 || all[0].Scope != "chat:qq/group:1" || all[1].Key != (Key{Scope: "global"}) || all[2].Writer != "weather" ||
		all[0].Mentions != 1 || all[1].Mentions != 2 || all[2].Mentions != 1 {
		t.Fatalf("Alice after two new writers: %+v", all)
	}
	if all[0].ID <= old[2].ID || all[2].ID <= old[2].ID {
		t.Fatalf("a new entity took an old id: %+v", all)
	}
	if d, err := s.SaveDoc(ctx, Doc{Key: Key{Scope: "global"}, ID: "d1", Title: "x", Content: "y"}); err != nil || d.Version != 2 {
		t.Fatalf("the old document saved again: %+v %v", d, err)
	}
}
