package store

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"
)

func TestEntityAndRelationPages(t *testing.T) {
	ctx := context.Background()
	s, err := OpenFile(ctx, filepath.Join(t.TempDir(), "h.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.CommitTriples(ctx, []Triple{
		{"小明", "住在", "北京"}, {"小明", "喜欢", "Tea"}, {"Alice", "knows", "小明"}, {"Alice", "likes", "tea house"},
	}); err != nil {
		t.Fatal(err)
	}
	names := func(list []Entity) []string {
		var out []string
		for _, e := range list {
			out = append(out, e.Name)
		}
		return out
	}
	all, total, err := s.EntityPage(ctx, "", 0, 2)
	if err != nil || total != 5 || !slices.Equal(names(all), []string{"小明", "Alice"}) {
		t.Fatalf("EntityPage first = %q %d %v", names(all), total, err)
	}
	rest, _, err := s.EntityPage(ctx, "", 2, 10)
	if err != nil || !slices.Equal(names(rest), []string{"Tea", "tea house", "北京"}) {
		t.Fatalf("EntityPage rest = %q %v", names(rest), err)
	}
	tea, total, err := s.EntityPage(ctx, "TEA", 0, 10)
	if err != nil || total != 2 || len(tea) != 2 {
		t.Fatalf("EntityPage TEA = %q %d %v", names(tea), total, err)
	}
	rels, total, err := s.RelationPage(ctx, "小明", 0, 10)
	if err != nil || total != 3 || len(rels) != 3 {
		t.Fatalf("RelationPage 小明 = %v %d %v", rels, total, err)
	}
	ok, err := s.DeleteRelation(ctx, Relation{"小明", "住在", "北京"})
	if err != nil || !ok {
		t.Fatalf("DeleteRelation = %v %v", ok, err)
	}
	if ok, err := s.DeleteRelation(ctx, Relation{"小明", "住在", "北京"}); err != nil || ok {
		t.Fatalf("DeleteRelation again = %v %v", ok, err)
	}
	if _, total, _ := s.RelationPage(ctx, "", 0, 10); total != 3 {
		t.Fatalf("after delete, %d relations", total)
	}
}

func TestApplySettingsAllOrNone(t *testing.T) {
	ctx := context.Background()
	s, err := OpenFile(ctx, filepath.Join(t.TempDir(), "h.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
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
