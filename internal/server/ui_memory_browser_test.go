package server

import (
	"slices"
	"testing"

	"github.com/hearth-agent/hearth/internal/scope"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// TestBrowserMemoryScopes: the memory page lists an entity and a document
// that two scopes (and two writers) hold under one name, each with its
// scope and writer; the scope filter narrows the list; showing, renaming
// and deleting one names its scope and writer, so the other is left.
func TestBrowserMemoryScopes(t *testing.T) {
	node := browserReady(t)
	e := startUI(t, nil, llmtest.Reply{Text: "hi"})
	private := scope.For("", scope.User("qq", "12345"), false)
	group := scope.For("notes", scope.Chat("qq", "group:678"), false)
	for _, c := range []struct {
		v       scope.View
		triples []sdk.Triple
	}{
		{scope.Everything(), []sdk.Triple{{Subject: "Bob", Relation: "knows", Object: "Carol"}}},
		{private, []sdk.Triple{{Subject: "Alice", Relation: "likes", Object: "tea"}}},
		{group, []sdk.Triple{{Subject: "Alice", Relation: "works_at", Object: "ACME"}}},
	} {
		if err := e.app.Memory.Commit(c.v, c.triples); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []struct {
		v   scope.View
		doc *sdk.Doc
	}{
		{private, &sdk.Doc{ID: "trip", Title: "Trip (private)", Content: "Just the two of us."}},
		{group, &sdk.Doc{ID: "trip", Title: "Trip (group)", Content: "The whole **group** goes."}},
	} {
		if err := e.app.Docs.Insert(d.v, d.doc); err != nil {
			t.Fatal(err)
		}
	}
	browse(t, node, e, "memory")

	// What the page left, seen from the server.
	ents, _, err := e.app.Memory.Entities(t.Context(), scope.Everything(), "Alice", 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 1 || ents[0].Name != "Alice Chen" || ents[0].Scope != scope.User("qq", "12345") || ents[0].Writer != "" {
		t.Fatalf("entities named Alice after the page: %+v", ents)
	}
	docs, total, err := e.app.Docs.List(t.Context(), scope.Everything(), 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	if total != 1 || docs[0].ID != "trip" || docs[0].Scope != scope.User("qq", "12345") {
		t.Fatalf("documents after the page: %d %+v", total, docs)
	}
}

// TestBrowserKnowledgeScopes: the knowledge page lists entries under
// their folders, the same name from the owner and from a plugin's group
// chat apart with their scope and writer; a search ranks its hits, each
// naming its file; deleting the group's entry leaves the owner's.
func TestBrowserKnowledgeScopes(t *testing.T) {
	node := browserReady(t)
	e := startUI(t, nil, llmtest.Reply{Text: "hi"})
	group := scope.For("notes", scope.Chat("qq", "group:678"), false)
	for _, c := range []struct {
		v             scope.View
		name, content string
	}{
		{scope.Everything(), "recipes/红烧肉", "# 红烧肉\n\n五花肉、冰糖、酱油，小火慢炖。"},
		{scope.Everything(), "recipes/dumplings", "# Dumplings\n\nPork and cabbage, 200 g flour."},
		{scope.Everything(), "wifi", "# Home WiFi\n\nThe password is on the router."},
		{group, "wifi", "# Group WiFi\n\nThe café's password is on the menu."},
	} {
		if err := e.app.KB.Add(c.v, c.name, c.content); err != nil {
			t.Fatal(err)
		}
	}
	browse(t, node, e, "knowledge")

	var left []string
	for _, k := range e.app.KB.Entries(scope.Everything()) {
		left = append(left, string(k.Scope)+" "+k.Writer+" "+k.Name)
	}
	slices.Sort(left)
	if want := []string{"global  recipes/dumplings", "global  recipes/红烧肉", "global  wifi"}; !slices.Equal(left, want) {
		t.Fatalf("entries after the page: %q, want %q", left, want)
	}
}
