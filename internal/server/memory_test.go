package server

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/sdk"
)

func TestMemoryBrowseEditMergePurge(t *testing.T) {
	a := newTestApp(t)
	if err := a.Memory.Commit([]sdk.Triple{
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
		if err := a.Docs.Insert(d); err != nil {
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
