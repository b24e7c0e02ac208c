package server

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/internal/scope"
	"github.com/hearth-agent/hearth/sdk"
)

func TestMemoryBrowseEditMergePurge(t *testing.T) {
	a := newTestApp(t)
	if err := a.Memory.Commit(scope.Everything(), []sdk.Triple{
		{Subject: "小明", Relation: "住在", Object: "北京"},
		{Subject: "小明", Relation: "喜欢", Object: "茶"},
		{Subject: "Xiao Ming", Relation: "works at", Object: "ACME/R&D"},
		{Subject: "Alice", Relation: "knows", Object: "小明"},
	}); err != nil {
		t.Fatal(err)
	}
	_, hs := newTestServer(t, a)
	must := func(want int, method, path, body string) string {
		t.Helper()
		code, b := adminCall(t, hs, method, path, body)
		if code != want {
			t.Fatalf("%s %s = %d, want %d: %s", method, path, code, want, b)
		}
		return b
	}
	esc := url.PathEscape

	page := decodeAs[EntityPage](t, must(200, "GET", "/v1/memory/entities?limit=2", ""))
	if page.Total != 6 || len(page.Entities) != 2 || page.Entities[0].Name != "小明" || page.Entities[0].Mentions != 3 {
		t.Fatalf("page = %+v", page)
	}
	page = decodeAs[EntityPage](t, must(200, "GET", "/v1/memory/entities?q="+url.QueryEscape("小")+"&offset=0", ""))
	if page.Total != 1 {
		t.Fatalf("search 小 = %+v", page)
	}
	d := decodeAs[EntityDetail](t, must(200, "GET", "/v1/memory/entities/"+esc("小明"), ""))
	if len(d.Relations) != 3 {
		t.Fatalf("detail = %+v", d)
	}
	// A name with a slash travels escaped.
	must(200, "GET", "/v1/memory/entities/"+esc("ACME/R&D"), "")

	d = decodeAs[EntityDetail](t, must(200, "PATCH", "/v1/memory/entities/"+esc("小明"), `{"type": "Person"}`))
	if d.Entity.Type != "Person" {
		t.Fatalf("after PATCH type: %+v", d)
	}
	must(409, "PATCH", "/v1/memory/entities/"+esc("小明"), `{"name": "Alice"}`)
	must(422, "PATCH", "/v1/memory/entities/"+esc("小明"), `{"name": " "}`)
	must(400, "PATCH", "/v1/memory/entities/"+esc("小明"), `{}`)
	must(400, "PATCH", "/v1/memory/entities/"+esc("小明"), `{"observations": ["x"]}`)
	must(404, "PATCH", "/v1/memory/entities/nobody", `{"type": "x"}`)

	m := decodeAs[MergeResult](t, must(200, "POST", "/v1/memory/entities/"+esc("Xiao Ming")+"/merge", `{"into": "小明"}`))
	if m.Entity.Mentions != 4 || len(m.Relations) != 4 || m.Moved != 1 {
		t.Fatalf("merge = %+v", m)
	}
	must(404, "GET", "/v1/memory/entities/"+esc("Xiao Ming"), "")
	must(404, "POST", "/v1/memory/entities/nobody/merge", `{"into": "小明"}`)
	must(404, "POST", "/v1/memory/entities/Alice/merge", `{"into": "nobody"}`)
	must(422, "POST", "/v1/memory/entities/Alice/merge", `{"into": "Alice"}`)

	d = decodeAs[EntityDetail](t, must(200, "PATCH", "/v1/memory/entities/"+esc("小明"), `{"name": "王小明"}`))
	if d.Entity.Name != "王小明" || d.Entity.Type != "Person" || len(d.Relations) != 4 {
		t.Fatalf("rename = %+v", d)
	}

	rels := decodeAs[RelationPage](t, must(200, "GET", "/v1/memory/relations?q="+url.QueryEscape("喜欢"), ""))
	if rels.Total != 1 {
		t.Fatalf("relations = %+v", rels)
	}
	q := "?source=" + url.QueryEscape("王小明") + "&relation=" + url.QueryEscape("喜欢") + "&target=" + url.QueryEscape("茶")
	must(204, "DELETE", "/v1/memory/relations"+q, "")
	must(404, "DELETE", "/v1/memory/relations"+q, "")
	must(400, "DELETE", "/v1/memory/relations?source=x", "")

	must(204, "DELETE", "/v1/memory/entities/Alice", "")
	must(404, "DELETE", "/v1/memory/entities/Alice", "")

	for _, bad := range []string{"limit=0", "limit=501", "offset=-1", "limit=x"} {
		must(400, "GET", "/v1/memory/entities?"+bad, "")
	}

	must(422, "POST", "/v1/memory/purge", `{}`)
	must(422, "POST", "/v1/memory/purge", `{"confirm": "yes"}`)
	must(422, "POST", "/v1/memory/purge", `{"confirm": "purge", "mode": "gentle"}`)
	p := decodeAs[PurgeResult](t, must(200, "POST", "/v1/memory/purge", `{"confirm": "purge", "name": "北京"}`))
	if p.Purged != 1 {
		t.Fatalf("purge by name = %+v", p)
	}
	p = decodeAs[PurgeResult](t, must(200, "POST", "/v1/memory/purge", `{"confirm": "purge"}`))
	if p.Purged != 3 {
		t.Fatalf("purge all = %+v", p)
	}
	st := decodeAs[MemoryStats](t, must(200, "GET", "/v1/memory", ""))
	if st.Entities != 0 || st.Relations != 0 {
		t.Fatalf("stats after purge = %+v", st)
	}
	if code, _ := adminCall(t, hs, "POST", "/v1/memory/purge", `{"confirm": "purge", "name": "`+strings.Repeat("x", DefaultMaxBody)+`"}`); code != http.StatusRequestEntityTooLarge {
		t.Fatalf("oversized purge = %d", code)
	}
}

func TestDocMemoryListSearchDelete(t *testing.T) {
	a := newTestApp(t)
	for _, d := range []*sdk.Doc{
		{ID: "w1", Title: "天气预报", Content: "明天北京有雨，记得带伞。"},
		{ID: "r1", Title: "Recipe", Content: "Boil the noodles for five minutes."},
	} {
		if err := a.Docs.Insert(scope.Everything(), d); err != nil {
			t.Fatal(err)
		}
	}
	_, hs := newTestServer(t, a)
	code, body := adminCall(t, hs, "GET", "/v1/memory/docs?limit=1", "")
	p := decodeAs[DocPage](t, body)
	if code != 200 || p.Total != 2 || len(p.Docs) != 1 || p.Docs[0].ID != "r1" {
		t.Fatalf("list = %d %+v", code, p)
	}
	code, body = adminCall(t, hs, "GET", "/v1/memory/docs?q="+url.QueryEscape("北京下雨"), "")
	p = decodeAs[DocPage](t, body)
	if code != 200 || len(p.Docs) == 0 || p.Docs[0].ID != "w1" || p.Docs[0].Score <= 0 {
		t.Fatalf("search = %d %+v", code, p)
	}
	if code, body := adminCall(t, hs, "GET", "/v1/memory/docs/w1", ""); code != 200 || !strings.Contains(body, "带伞") {
		t.Fatalf("get = %d %s", code, body)
	}
	if code, _ := adminCall(t, hs, "DELETE", "/v1/memory/docs/w1", ""); code != 204 {
		t.Fatalf("delete = %d", code)
	}
	for _, m := range []string{"GET", "DELETE"} {
		if code, _ := adminCall(t, hs, m, "/v1/memory/docs/w1", ""); code != 404 {
			t.Fatalf("%s deleted = %d", m, code)
		}
	}
}

// Entries show their scope and writer; ?scope= and ?writer= narrow every
// route; a name two scopes or writers have is ambiguous until narrowed.
func TestMemoryScopesAndWriters(t *testing.T) {
	a := newTestApp(t)
	g1, g2 := scope.Chat("qq", "group:1"), scope.Chat("qq", "group:2")
	for _, v := range []scope.View{scope.For("plugin-a", g1, false), scope.For("plugin-b", g1, false), scope.For("plugin-a", g2, false)} {
		if err := a.Memory.Commit(v, []sdk.Triple{{Subject: "Alice", Relation: "likes", Object: "tea"}}); err != nil {
			t.Fatal(err)
		}
		if err := a.Docs.Insert(v, &sdk.Doc{ID: "note", Title: "note", Content: "Alice likes tea, says " + v.Writer}); err != nil {
			t.Fatal(err)
		}
	}
	_, hs := newTestServer(t, a)
	must := func(want int, method, path, body string) string {
		t.Helper()
		code, b := adminCall(t, hs, method, path, body)
		if code != want {
			t.Fatalf("%s %s = %d, want %d: %s", method, path, code, want, b)
		}
		return b
	}
	sq := "scope=" + url.QueryEscape(string(g1))
	page := decodeAs[EntityPage](t, must(200, "GET", "/v1/memory/entities?q=Alice", ""))
	if page.Total != 3 {
		t.Fatalf("every scope: %+v", page)
	}
	page = decodeAs[EntityPage](t, must(200, "GET", "/v1/memory/entities?"+sq+"&writer=plugin-b", ""))
	if page.Total != 2 || page.Entities[0].Scope != string(g1) || page.Entities[0].Writer != "plugin-b" {
		t.Fatalf("group 1, plugin B: %+v", page)
	}
	must(409, "GET", "/v1/memory/entities/Alice", "")
	must(409, "GET", "/v1/memory/entities/Alice?"+sq, "")
	must(400, "GET", "/v1/memory/entities?scope=nowhere", "")
	d := decodeAs[EntityDetail](t, must(200, "GET", "/v1/memory/entities/Alice?"+sq+"&writer=plugin-a", ""))
	if d.Entity.Writer != "plugin-a" || len(d.Relations) != 1 || d.Relations[0].Scope != string(g1) {
		t.Fatalf("detail: %+v", d)
	}
	must(204, "DELETE", "/v1/memory/entities/Alice?"+sq+"&writer=plugin-a", "")
	if st := decodeAs[MemoryStats](t, must(200, "GET", "/v1/memory", "")); st.Entities != 5 || st.Relations != 2 || st.Documents != 3 {
		t.Fatalf("after one delete: %+v", st)
	}
	docs := decodeAs[DocPage](t, must(200, "GET", "/v1/memory/docs?q=tea&"+sq, ""))
	if len(docs.Docs) != 2 || docs.Docs[0].Scope != string(g1) {
		t.Fatalf("docs in group 1: %+v", docs)
	}
	must(409, "DELETE", "/v1/memory/docs/note", "")
	must(204, "DELETE", "/v1/memory/docs/note?scope="+url.QueryEscape(string(g2)), "")
	if st := decodeAs[MemoryStats](t, must(200, "GET", "/v1/memory", "")); st.Documents != 2 {
		t.Fatalf("after deleting group 2's note: %+v", st)
	}
	p := decodeAs[PurgeResult](t, must(200, "POST", "/v1/memory/purge?"+sq, `{"confirm": "purge"}`))
	if p.Purged != 3 { // B's Alice and tea, A's tea
		t.Fatalf("purge group 1: %+v", p)
	}
	if st := decodeAs[MemoryStats](t, must(200, "GET", "/v1/memory", "")); st.Entities != 2 {
		t.Fatalf("group 2 left: %+v", st)
	}
}
