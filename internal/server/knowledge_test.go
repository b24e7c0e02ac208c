package server

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/internal/scope"
)

func TestKnowledgeCreateReadSearchDelete(t *testing.T) {
	a := newTestApp(t)
	_, hs := newTestServer(t, a)
	esc := url.PathEscape
	if code, body := adminCall(t, hs, "PUT", "/v1/knowledge/"+esc("家里的 WiFi"), `{"content": "# WiFi\n网络名称是 HomeNet，密码贴在路由器背面。"}`); code != http.StatusCreated {
		t.Fatalf("create = %d %s", code, body)
	}
	if code, body := adminCall(t, hs, "PUT", "/v1/knowledge/"+esc("家里的 WiFi")+".md", "# WiFi\n密码在路由器背面。", "text/markdown; charset=utf-8"); code != http.StatusOK {
		t.Fatalf("replace with a Markdown body = %d %s", code, body)
	}
	if code, body := adminCall(t, hs, "PUT", "/v1/knowledge/trash", `{"content": "Tuesday and Friday evenings."}`); code != http.StatusCreated {
		t.Fatalf("create = %d %s", code, body)
	}
	code, body := adminCall(t, hs, "GET", "/v1/knowledge/"+esc("家里的 WiFi"), "")
	if e := decodeAs[KnowledgeEntry](t, body); code != 200 || e.Content != "# WiFi\n密码在路由器背面。" {
		t.Fatalf("read = %d %s", code, body)
	}
	code, body = adminCall(t, hs, "GET", "/v1/knowledge?limit=1", "")
	if p := decodeAs[KnowledgePage](t, body); code != 200 || p.Total != 2 || len(p.Entries) != 1 || p.Entries[0].Name != "trash" {
		t.Fatalf("list = %d %s", code, body)
	}
	code, body = adminCall(t, hs, "GET", "/v1/knowledge?q="+url.QueryEscape("路由器密码"), "")
	if p := decodeAs[KnowledgePage](t, body); code != 200 || len(p.Entries) == 0 || p.Entries[0].Name != "家里的 WiFi" || p.Entries[0].Excerpt == "" {
		t.Fatalf("search = %d %s", code, body)
	}
	if code, _ := adminCall(t, hs, "DELETE", "/v1/knowledge/trash", ""); code != 204 {
		t.Fatalf("delete = %d", code)
	}
	for _, m := range []string{"GET", "DELETE"} {
		if code, _ := adminCall(t, hs, m, "/v1/knowledge/trash", ""); code != 404 {
			t.Fatalf("%s deleted = %d", m, code)
		}
	}
	if code, _ := adminCall(t, hs, "PUT", "/v1/knowledge/big", `{"content": "`+strings.Repeat("x", DefaultMaxBody)+`"}`); code != http.StatusRequestEntityTooLarge {
		t.Fatalf("oversized JSON = %d", code)
	}
	if code, _ := adminCall(t, hs, "PUT", "/v1/knowledge/big", strings.Repeat("x", DefaultMaxBody+1), "text/markdown"); code != http.StatusRequestEntityTooLarge {
		t.Fatalf("oversized Markdown = %d", code)
	}
	if code, _ := adminCall(t, hs, "PUT", "/v1/knowledge/bad", "\xff\xfe", "text/plain"); code != http.StatusUnprocessableEntity {
		t.Fatalf("not UTF-8 = %d", code)
	}
	if _, err := os.Stat(filepath.Join(a.KB.Dir(), "big.md")); err == nil {
		t.Fatal("an oversized entry was written")
	}
}

// Names that would leave the knowledge folder are refused, however they
// are spelled, and nothing outside it is read, written or removed.
func TestKnowledgePathTraversal(t *testing.T) {
	a := newTestApp(t)
	_, hs := newTestServer(t, a)
	outside := filepath.Join(a.DataDir, "outside.md")
	if err := os.WriteFile(outside, []byte("private"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(a.KB.Dir(), "link.md")); err != nil {
		t.Fatal(err)
	}
	paths := []string{
		"/v1/knowledge/../outside",
		"/v1/knowledge/..%2Foutside",
		"/v1/knowledge/%2e%2e/outside",
		"/v1/knowledge/%2e%2e%2foutside",
		"/v1/knowledge/%2E%2E%2Foutside.md",
		"/v1/knowledge/..",
		"/v1/knowledge/%2e%2e",
		"/v1/knowledge/" + url.PathEscape(outside),
		"/v1/knowledge//etc/passwd",
		"/v1/knowledge/sub/../../outside",
		"/v1/knowledge/sub/.hidden",
		"/v1/knowledge/.hidden",
		"/v1/knowledge/..%5Coutside",
	}
	for _, p := range paths {
		for _, m := range []string{"GET", "PUT", "DELETE"} {
			body := ""
			if m == "PUT" {
				body = `{"content": "pwned"}`
			}
			code, resp := adminCall(t, hs, m, p, body)
			// 400 from the handler, or 307 from the router to the
			// cleaned path, which is not a knowledge route.
			if code != http.StatusBadRequest && code != http.StatusTemporaryRedirect {
				t.Errorf("%s %s = %d %s", m, p, code, resp)
			}
			if strings.Contains(resp, "private") {
				t.Errorf("%s %s showed the file outside: %s", m, p, resp)
			}
		}
	}
	if code, resp := adminCall(t, hs, "GET", "/v1/knowledge/link", ""); code != http.StatusNotFound || strings.Contains(resp, "private") {
		t.Errorf("GET through a link out of the folder = %d %s", code, resp)
	}
	if b, err := os.ReadFile(outside); err != nil || string(b) != "private" {
		t.Fatalf("the file outside changed: %q %v", b, err)
	}
	entries, _ := os.ReadDir(a.DataDir)
	for _, e := range entries {
		if strings.Contains(e.Name(), "pwned") || e.Name() == "etc" {
			t.Fatalf("something was written outside: %s", e.Name())
		}
	}
}

// The owner sees every scope's and writer's entries, each saying whose
// it is; ?scope= and ?writer= narrow and name them; names are paths.
func TestKnowledgeScopes(t *testing.T) {
	a := newTestApp(t)
	_, hs := newTestServer(t, a)
	g1 := scope.Chat("tg", "group:1")
	if err := a.KB.Add(scope.For("notes", g1, false), "菜谱/汤", "# 冬瓜汤\n冬瓜 排骨"); err != nil {
		t.Fatal(err)
	}
	if code, body := adminCall(t, hs, "PUT", "/v1/knowledge/"+url.PathEscape("菜谱")+"/"+url.PathEscape("汤"), `{"content": "# 番茄汤\n番茄 鸡蛋 冬瓜"}`); code != http.StatusCreated {
		t.Fatalf("create a nested entry = %d %s", code, body)
	}
	if _, err := os.Stat(filepath.Join(a.KB.Dir(), "菜谱", "汤.md")); err != nil {
		t.Fatal(err)
	}
	code, body := adminCall(t, hs, "GET", "/v1/knowledge", "")
	p := decodeAs[KnowledgePage](t, body)
	var who []string
	for _, e := range p.Entries {
		who = append(who, e.Writer+"@"+e.Scope+":"+e.Name+":"+e.Title)
	}
	if want := []string{"notes@chat:tg/group:1:菜谱/汤:冬瓜汤", "@global:菜谱/汤:番茄汤"}; code != 200 || !slices.Equal(who, want) {
		t.Fatalf("list = %d %q", code, who)
	}
	q := "/v1/knowledge?q=" + url.QueryEscape("冬瓜")
	if p := decodeAs[KnowledgePage](t, mustGet(t, hs, q)); len(p.Entries) != 2 || p.Entries[0].Excerpt == "" || p.Entries[0].Score <= 0 {
		t.Fatalf("search = %+v", p)
	}
	if p := decodeAs[KnowledgePage](t, mustGet(t, hs, q+"&scope="+url.QueryEscape(string(g1)))); len(p.Entries) != 1 || p.Entries[0].Writer != "notes" {
		t.Fatalf("search in a scope = %+v", p)
	}
	if p := decodeAs[KnowledgePage](t, mustGet(t, hs, "/v1/knowledge?writer=")); len(p.Entries) != 1 || p.Entries[0].Writer != "" {
		t.Fatalf("the owner's entries = %+v", p)
	}
	one := "/v1/knowledge/" + url.PathEscape("菜谱") + "/" + url.PathEscape("汤") + "?writer=notes&scope=" + url.QueryEscape(string(g1))
	if e := decodeAs[KnowledgeEntry](t, mustGet(t, hs, one)); e.Content != "# 冬瓜汤\n冬瓜 排骨" {
		t.Fatalf("a plugin's entry = %+v", e)
	}
	if code, _ := adminCall(t, hs, "GET", "/v1/knowledge?scope=nowhere", ""); code != http.StatusUnprocessableEntity {
		t.Fatalf("a bad scope = %d", code)
	}
	if code, _ := adminCall(t, hs, "DELETE", one, ""); code != http.StatusNoContent {
		t.Fatalf("delete a plugin's entry = %d", code)
	}
	if names, _ := a.KB.List(scope.For("notes", g1, false)); len(names) != 0 {
		t.Fatalf("the plugin still sees %q (it never sees the owner's notes)", names)
	}
	if names, _ := a.KB.List(scope.For("notes", g1, true)); !slices.Equal(names, []string{"菜谱/汤"}) {
		t.Fatalf("a sharing plugin sees %q (only the owner's should remain)", names)
	}
}

func mustGet(t *testing.T, hs *httptest.Server, path string) string {
	t.Helper()
	code, body := adminCall(t, hs, "GET", path, "")
	if code != http.StatusOK {
		t.Fatalf("GET %s = %d %s", path, code, body)
	}
	return body
}

// A search hit's excerpt is the start of its entry, 200 runes and "…",
// however large the file (TestExcerpt checks that only a prefix is read).
func TestKnowledgeSearchExcerptOfALargeFile(t *testing.T) {
	a := newTestApp(t)
	_, hs := newTestServer(t, a)
	text := "# 大文件\n" + strings.Repeat("红烧肉的做法：五花肉焯水。", 300_000) // 4 MiB
	if err := a.KB.Add(scope.Everything(), "big", text); err != nil {
		t.Fatal(err)
	}
	code, body := adminCall(t, hs, "GET", "/v1/knowledge?q="+url.QueryEscape("五花肉"), "")
	p := decodeAs[KnowledgePage](t, body)
	if code != 200 || len(p.Entries) != 1 {
		t.Fatalf("search = %d, %d entries", code, len(p.Entries))
	}
	want := string([]rune(text)[:excerptRunes]) + "…"
	if got := p.Entries[0].Excerpt; got != want {
		t.Fatalf("excerpt = %q, want %q", got, want)
	}
}
