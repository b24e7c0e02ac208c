package memory

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hearth-agent/hearth/internal/scope"
	"github.com/hearth-agent/hearth/sdk"
)

func contents(list []TextEntry) []string {
	var out []string
	for _, e := range list {
		out = append(out, e.Content)
	}
	return out
}

func TestTextMemoryOneFolderPerScopeOneFileADay(t *testing.T) {
	dir := t.TempDir()
	m, err := NewText(dir)
	if err != nil {
		t.Fatal(err)
	}
	day1 := time.Date(2026, 11, 29, 23, 0, 0, 0, time.Local).UnixMilli()
	day2 := time.Date(2026, 11, 30, 8, 0, 0, 0, time.Local).UnixMilli()
	g1, g2 := scope.Chat("qq", "group:1"), scope.Chat("qq", "group:2")
	a1, b1, a2 := scope.For("a", g1, false), scope.For("b", g1, false), scope.For("a", g2, false)
	for _, c := range []struct {
		v scope.View
		e sdk.TextEvent
	}{
		{a1, sdk.TextEvent{Role: "user", Content: "晚安", Timestamp: day1, Channel: "qq"}},
		{a1, sdk.TextEvent{Role: "user", Content: "早上好", Timestamp: day2}},
		{b1, sdk.TextEvent{Role: "assistant", Content: "早！", Timestamp: day2}},
		{a2, sdk.TextEvent{Role: "user", Content: "another group", Timestamp: day2}},
	} {
		if err := m.Append(c.v, c.e); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "chat%3Aqq%2Fgroup%3A1", "2026-11-29.jsonl")); err != nil {
		t.Fatalf("group 1's folder: %v", err)
	}
	for _, c := range []struct {
		v    scope.View
		day  string
		want []string
	}{
		{a1, "2026-11-30", []string{"早上好"}},
		{b1, "2026-11-30", []string{"早！"}},
		{scope.For("b", g1, true), "2026-11-30", []string{"早上好", "早！"}},
		{a2, "2026-11-30", []string{"another group"}},
		{a1, "2026-11-29", []string{"晚安"}},
		{scope.For("a", "", false), "2026-11-30", nil},
	} {
		got, err := m.Read(c.v, c.day)
		if err != nil || !slices.Equal(contents(got), c.want) {
			t.Errorf("%s/%s reads %q %v, want %q", c.v.Writer, c.v.Write, contents(got), err, c.want)
		}
	}
	all, _ := m.Read(scope.Everything(), "2026-11-30")
	if len(all) != 3 || all[0].Writer == "" || all[0].Scope == "" {
		t.Fatalf("everything: %+v", all)
	}
	if days, err := m.Days(a1); err != nil || !slices.Equal(days, []string{"2026-11-29", "2026-11-30"}) {
		t.Fatalf("days %q %v", days, err)
	}
	if _, err := m.Read(a1, "../x"); err == nil {
		t.Fatal("a path read as a day")
	}
}

// A line cut short by a crash is skipped, and the next append starts a
// line of its own, so it is not lost with it.
func TestTextMemoryTornLineSkipped(t *testing.T) {
	dir := t.TempDir()
	m, _ := NewText(dir)
	v := scope.For("a", scope.Owner, false)
	at := time.Date(2026, 11, 30, 8, 0, 0, 0, time.Local).UnixMilli()
	for _, c := range []string{"one", "two"} {
		if err := m.Append(v, sdk.TextEvent{Role: "user", Content: c, Timestamp: at}); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, "owner", "2026-11-30.jsonl")
	data, _ := os.ReadFile(path)
	cut := bytes.LastIndex(data[:len(data)-1], []byte("\n")) + 10 // in the middle of "two"'s line
	if err := os.Truncate(path, int64(cut)); err != nil {
		t.Fatal(err)
	}
	if got, err := m.Read(v, "2026-11-30"); err != nil || !slices.Equal(contents(got), []string{"one"}) {
		t.Fatalf("after the cut: %q %v", contents(got), err)
	}
	if err := m.Append(v, sdk.TextEvent{Role: "user", Content: "three", Timestamp: at}); err != nil {
		t.Fatal(err)
	}
	if got, _ := m.Read(v, "2026-11-30"); !slices.Equal(contents(got), []string{"one", "three"}) {
		t.Fatalf("after the next append: %q", contents(got))
	}
}

// Day files an earlier Hearth kept for every conversation at once move
// to the global scope, written by the owner.
func TestTextMemoryMovesOldDaysToGlobal(t *testing.T) {
	dir := t.TempDir()
	old := `{"role":"user","content":"old","timestamp":1,"channel":"qq"}` + "\n"
	os.WriteFile(filepath.Join(dir, "2026-11-30.jsonl"), []byte(old), 0o600)
	os.MkdirAll(filepath.Join(dir, "global"), 0o700)
	os.WriteFile(filepath.Join(dir, "global", "2026-11-30.jsonl"), []byte(`{"role":"user","content":"new","timestamp":2,"scope":"global","writer":""}`+"\n"), 0o600)
	os.WriteFile(filepath.Join(dir, "2026-11-29.jsonl"), []byte(old), 0o600)
	m, err := NewText(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := m.Read(scope.For("", "", false), "2026-11-30"); !slices.Equal(contents(got), []string{"new", "old"}) {
		t.Fatalf("merged day: %q", contents(got))
	}
	if got, _ := m.Read(scope.For("", "", false), "2026-11-29"); len(got) != 1 || got[0].Channel != "qq" {
		t.Fatalf("moved day: %+v", got)
	}
	if got, _ := m.Read(scope.For("a", "", false), "2026-11-29"); len(got) != 0 {
		t.Fatalf("a plugin sees the owner's old lines: %+v", got)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*.jsonl")); len(left) != 0 {
		t.Fatalf("left behind: %v", left)
	}
}

func TestScopeDirIsAFileName(t *testing.T) {
	long := scope.Chat("qq", string(bytes.Repeat([]byte("长"), 100)))
	for _, s := range []scope.Scope{scope.Global, scope.Owner, scope.User("qq", "../../etc"), scope.Chat("web", "a/b"), long} {
		name := ScopeDir(s)
		if name == "" || name == "." || name == ".." || len(name) > 200 || filepath.Base(name) != name {
			t.Errorf("%q -> %q", s, name)
		}
	}
	if ScopeDir(scope.Chat("qq", "a")) == ScopeDir(scope.Chat("qq", "A")) || ScopeDir(long) == ScopeDir(long+"x") {
		t.Error("two scopes share a folder")
	}
}

// Folders an earlier Hearth named keep working: the lines in a folder
// under the literal name its escaping gave (a long one cut short with a
// hash) are read, and new lines go into the same folder.
func TestTextFoldersKeepTheirNames(t *testing.T) {
	long := scope.Scope("chat:qq/" + strings.Repeat("长", 50))
	folders := map[scope.Scope]string{
		scope.Global:                   "global",
		"chat:qq/group:1":              "chat%3Aqq%2Fgroup%3A1",
		"chat:matrix/!AbC:example.org": "chat%3Amatrix%2F%21%41b%43%3Aexample%2Eorg",
		long:                           "chat%3Aqq%2F%E9%95%BF%E9%95%BF%E9%95%BF%E9%95%BF%E9%95%BF%E9%95%BF%E9%95%BF%E9%9~4fcf0664123b4d0f3517cb93435f2cc6",
	}
	dir := t.TempDir()
	for s, name := range folders {
		if got := ScopeDir(s); got != name {
			t.Errorf("ScopeDir(%q) = %q, want %q", s, got, name)
		}
		line := fmt.Sprintf(`{"role":"user","content":"old","timestamp":1,"scope":%q,"writer":""}`+"\n", s)
		if err := os.MkdirAll(filepath.Join(dir, name), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name, "2026-11-30.jsonl"), []byte(line), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	m, err := NewText(dir)
	if err != nil {
		t.Fatal(err)
	}
	ts := time.Date(2026, 11, 30, 12, 0, 0, 0, time.Local).UnixMilli()
	for s := range folders {
		v := scope.For("", s, false)
		if err := m.Append(v, sdk.TextEvent{Role: "user", Content: "new", Timestamp: ts}); err != nil {
			t.Fatal(err)
		}
		got, err := m.Read(scope.View{Write: s, Read: []scope.Scope{s}}, "2026-11-30")
		if err != nil || !slices.Equal(contents(got), []string{"old", "new"}) {
			t.Errorf("%s: %q %v", s, contents(got), err)
		}
	}
	if left, _ := os.ReadDir(dir); len(left) != len(folders) {
		t.Fatalf("folders %v, want the %d there were", left, len(folders))
	}
}

func FuzzReadLines(f *testing.F) {
	f.Add([]byte(`{"role":"user","content":"hi","timestamp":1,"scope":"global","writer":"a"}` + "\n{\"role\":"))
	f.Add([]byte("\n\n{}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		v := scope.For("a", "", false)
		got, err := readLines(bytes.NewReader(data), v, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range got {
			if !v.Sees(e.Writer, e.Scope) {
				t.Fatalf("shown a line the view does not see: %+v", e)
			}
		}
	})
}
