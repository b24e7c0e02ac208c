package app

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/hearth-agent/hearth/internal/scope"
	"github.com/hearth-agent/hearth/internal/search"
	"github.com/hearth-agent/hearth/sdk"
)

// The owner of the data directory keeps the search index on disk; the
// next process reads it instead of rebuilding it, and one that does not
// own the directory reads it without writing.
func TestSearchIndexPersists(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	open := func(mode PluginMode) *App {
		t.Helper()
		a, err := Open(ctx, &Options{DataDir: dir, Plugins: mode, Getenv: func(string) string { return "" }})
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	a := open(PluginsStart)
	if err := a.Docs.Insert(scope.Everything(), &sdk.Doc{ID: "trip", Title: "行程", Content: "三月去杭州看西湖"}); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	snap := filepath.Join(dir, "search", "index.snap")
	before, err := os.Stat(snap)
	if err != nil {
		t.Fatalf("no index on disk: %v", err)
	}
	if x, err := search.Load(filepath.Join(dir, "search")); err != nil || x.Len() != 1 {
		t.Fatalf("the index on disk holds %v documents (%v), want the one", x.Len(), err)
	}
	b := open(PluginsOff) // not the owner: reads it
	if got := b.Docs.Query(scope.Everything(), "西湖", 3); len(got) != 1 || got[0].Title != "行程" {
		t.Fatalf("query after reopening = %+v", got)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if after, err := os.Stat(snap); err != nil || !after.ModTime().Equal(before.ModTime()) || after.Size() != before.Size() {
		t.Fatalf("a process that does not own the directory wrote the index: %v", err)
	}
}
