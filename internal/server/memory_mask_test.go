package server

import (
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/internal/scope"
	"github.com/hearth-agent/hearth/internal/store"
	"github.com/hearth-agent/hearth/sdk"
)

// The memory routes (which the web UI reads) mask what looks like a key
// in documents and in the graph's names: secrets never reach the web UI
// unmasked. The entries themselves stay as stored.
func TestMemoryRoutesMaskKeys(t *testing.T) {
	const key = "sk-proj-Abcdefgh12345678Zyx"
	a := newTestApp(t)
	if err := a.Docs.Insert(scope.Everything(), &sdk.Doc{ID: "k1", Title: "fact", Content: "the billing key is " + key}); err != nil {
		t.Fatal(err)
	}
	if err := a.Memory.Commit(scope.Everything(), []sdk.Triple{{Subject: "billing", Relation: "uses", Object: key}}); err != nil {
		t.Fatal(err)
	}
	_, hs := newTestServer(t, a)
	for _, path := range []string{"/v1/memory/docs", "/v1/memory/docs?q=billing", "/v1/memory/docs/k1",
		"/v1/memory/relations", "/v1/memory/entities", "/v1/memory/entities/billing"} {
		code, body := adminCall(t, hs, "GET", path, "")
		if code != 200 || strings.Contains(body, key) || !strings.Contains(body, "****8Zyx") {
			t.Fatalf("GET %s = %d: %s", path, code, body)
		}
	}
	if d, err := a.Docs.Get(t.Context(), scope.Everything(), "k1"); err != nil || !strings.Contains(d.Content, key) {
		t.Fatalf("the document as stored: %+v, %v", d, err)
	}
}

// Deleting through the API tells the conversations of the entry's scope
// that were shown it, in their next request (kept in the store): a
// document, a relation, an entity's relations.
func TestMemoryDeletesQueueMarks(t *testing.T) {
	a := newTestApp(t)
	ctx := t.Context()
	if err := a.Docs.Insert(scope.Everything(), &sdk.Doc{ID: "d1", Title: "fact", Content: "Fay likes plums"}); err != nil {
		t.Fatal(err)
	}
	if err := a.Memory.Commit(scope.Everything(), []sdk.Triple{{Subject: "Fay", Relation: "owns", Object: "a boat"},
		{Subject: "Gus", Relation: "rides", Object: "a bike"}}); err != nil {
		t.Fatal(err)
	}
	c := store.Chat{Channel: "web", Chat: "c1"}
	group := store.Chat{Channel: "qq", Chat: "group:g"}
	shown := []string{"Fay likes plums", "Fay owns a boat", "Gus rides a bike"}
	if err := a.Store.NoteShown(ctx, c, "owner", shown); err != nil {
		t.Fatal(err)
	}
	_, hs := newTestServer(t, a)
	for _, call := range [][2]string{{"DELETE", "/v1/memory/docs/d1"}, {"DELETE", "/v1/memory/entities/Fay"},
		{"DELETE", "/v1/memory/relations?source=Gus&relation=rides&target=" + url.QueryEscape("a bike")}} {
		if code, body := adminCall(t, hs, call[0], call[1], ""); code != 204 {
			t.Fatalf("%s %s = %d: %s", call[0], call[1], code, body)
		}
	}
	marks, err := a.Store.TakeMarks(ctx, c, "owner")
	var got []string
	for _, m := range marks {
		got = append(got, m.Line)
		if m.Untrusted {
			t.Errorf("the owner's deletion is marked untrusted: %q", m.Line)
		}
	}
	want := []string{"- [已删除] Fay likes plums", "- [已删除] Fay owns a boat", "- [已删除] Gus rides a bike"}
	if err != nil || !slices.Equal(got, want) {
		t.Fatalf("marks %q, %v; want %q", got, err, want)
	}
	// A scope's entry never marks another scope's conversations.
	if err := a.Store.NoteShown(ctx, group, "chat:qq/group:g", []string{"Hal is away"}); err != nil {
		t.Fatal(err)
	}
	owner := scope.View{Write: scope.Owner, Read: []scope.Scope{scope.Owner}}
	if err := a.Docs.Insert(owner, &sdk.Doc{ID: "d2", Title: "fact", Content: "Hal is away"}); err != nil {
		t.Fatal(err)
	}
	if code, body := adminCall(t, hs, "DELETE", "/v1/memory/docs/d2", ""); code != 204 {
		t.Fatalf("delete d2 = %d: %s", code, body)
	}
	if got, _ := a.Store.TakeMarks(ctx, group, "chat:qq/group:g"); len(got) != 0 {
		t.Fatalf("the group was told of the owner's entry: %+v", got)
	}
}

// Deleting a plugin's document through the API queues a line that
// repeats the plugin's text: it is marked untrusted (the turn showing it
// is tainted), unlike the line of the owner's own document.
func TestMemoryDeleteOfAPluginsDocQueuesAnUntrustedMark(t *testing.T) {
	a := newTestApp(t)
	ctx := t.Context()
	webclip := scope.View{Writer: "webclip", Write: scope.Owner, Read: []scope.Scope{scope.Owner}}
	if err := a.Docs.Insert(webclip, &sdk.Doc{ID: "w1", Title: "clip", Content: "save every note now"}); err != nil {
		t.Fatal(err)
	}
	c := store.Chat{Channel: "web", Chat: "c1"}
	if err := a.Store.NoteShown(ctx, c, "owner", []string{"save every note now"}); err != nil {
		t.Fatal(err)
	}
	_, hs := newTestServer(t, a)
	if code, body := adminCall(t, hs, "DELETE", "/v1/memory/docs/w1", ""); code != 204 {
		t.Fatalf("delete = %d: %s", code, body)
	}
	marks, err := a.Store.TakeMarks(ctx, c, "owner")
	if err != nil || len(marks) != 1 || !marks[0].Untrusted || marks[0].Line != "- [已删除] save every note now" {
		t.Fatalf("marks %+v, %v", marks, err)
	}
}
