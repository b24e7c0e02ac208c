package knowledge

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/hearth-agent/hearth/internal/datadir"
	"github.com/hearth-agent/hearth/internal/scope"
)

// Two plugins and two groups never see each other's entries; the
// owner's hand-written files are seen by every view.
func TestScopesAndWriters(t *testing.T) {
	dir := t.TempDir()
	k := open(t, dir, nil)
	g1, g2 := scope.Chat("tg", "group:1"), scope.Chat("tg", "group:2")
	a1, a2 := scope.For("alpha", g1, false), scope.For("alpha", g2, false)
	b1 := scope.For("beta", g1, false)
	shared1 := scope.For("gamma", g1, true)
	if err := k.Add(a1, "secret", "alpha in group one: apricot"); err != nil {
		t.Fatal(err)
	}
	if err := k.Add(a2, "secret", "alpha in group two: avocado"); err != nil {
		t.Fatal(err)
	}
	if err := k.Add(b1, "secret", "beta in group one: banana"); err != nil {
		t.Fatal(err)
	}
	if err := k.Add(scope.For("alpha", scope.Global, false), "public", "alpha everywhere: almond"); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "手写", "水果.md"), "hand-written: apricot avocado banana almond cherry")
	waitFor(t, k, "the hand-written file", func() bool { return len(k.Find(owner, "cherry", 1)) == 1 })

	fruits := "apricot avocado banana almond cherry"
	sees := func(v scope.View) []string {
		var out []string
		for _, h := range k.Find(v, fruits, 10) {
			out = append(out, h.Writer+"@"+string(h.Scope)+":"+h.Name)
		}
		slices.Sort(out)
		return out
	}
	hand := "@global:手写/水果"
	for _, c := range []struct {
		who  string
		v    scope.View
		want []string
	}{
		// A plugin sees its own entries only, not even the owner's notes.
		{"alpha in group 1", a1, []string{"alpha@chat:tg/group:1:secret", "alpha@global:public"}},
		{"alpha in group 2", a2, []string{"alpha@chat:tg/group:2:secret", "alpha@global:public"}},
		{"beta in group 1", b1, []string{"beta@chat:tg/group:1:secret"}},
		{"beta outside groups", scope.For("beta", scope.Global, false), nil},
		{"a sharing plugin in group 1", shared1, []string{hand, "alpha@chat:tg/group:1:secret", "alpha@global:public", "beta@chat:tg/group:1:secret"}},
		{"the owner", owner, []string{hand, "alpha@chat:tg/group:1:secret", "alpha@chat:tg/group:2:secret", "alpha@global:public", "beta@chat:tg/group:1:secret"}},
	} {
		if got := sees(c.v); !slices.Equal(got, c.want) {
			t.Errorf("%s sees %q, want %q", c.who, got, c.want)
		}
	}
	if got, _ := k.List(b1); !slices.Equal(got, []string{"secret"}) {
		t.Errorf("beta lists %q", got)
	}
	hits, _ := k.Search(b1, "apricot avocado", 10)
	for _, h := range hits {
		if h.Name == "secret" {
			t.Errorf("beta found alpha's text: %q", h.Content)
		}
	}

	// Plugins' entries are kept apart from the owner's tree.
	for _, e := range k.Entries(owner) {
		if e.Writer != "" && !slices.Contains([]string{".plugins"}, filepath.ToSlash(e.File)[:8]) {
			t.Errorf("plugin entry outside .plugins: %s", e.File)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "secret.md")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a plugin's entry in the owner's tree: %v", err)
	}

	// Only the writer (or the owner) changes an entry.
	aKey := Key{Scope: g1, Writer: "alpha", Name: "secret"}
	if err := k.Remove(b1, aKey); !errors.Is(err, ErrNotFound) {
		t.Errorf("beta removing alpha's entry = %v", err)
	}
	if err := k.Remove(shared1, aKey); !errors.Is(err, ErrDenied) {
		t.Errorf("a sharing plugin removing alpha's entry = %v", err)
	}
	if _, err := k.Put(b1, aKey, "overwritten"); !errors.Is(err, ErrDenied) {
		t.Errorf("beta writing alpha's entry = %v", err)
	}
	if _, err := k.Read(b1, aKey); !errors.Is(err, ErrNotFound) {
		t.Errorf("beta reading alpha's entry = %v", err)
	}
	handKey := Key{Scope: scope.Global, Name: "手写/水果"}
	if text, err := k.Read(b1, handKey); !errors.Is(err, ErrNotFound) {
		t.Errorf("beta reading the owner's file = %q %v", text, err)
	}
	if text, err := k.Read(shared1, handKey); err != nil || text == "" {
		t.Errorf("a sharing plugin reading the owner's file = %q %v", text, err)
	}
	if err := k.Remove(b1, handKey); !errors.Is(err, ErrNotFound) {
		t.Errorf("beta removing the owner's file = %v", err)
	}
	if err := k.Remove(shared1, handKey); !errors.Is(err, ErrDenied) {
		t.Errorf("a sharing plugin removing the owner's file = %v", err)
	}
	if text, err := k.Read(a1, aKey); err != nil || text != "alpha in group one: apricot" {
		t.Errorf("alpha reading its entry = %q %v", text, err)
	}
	if err := k.Remove(a2, aKey); !errors.Is(err, ErrNotFound) {
		t.Errorf("alpha in group 2 removing its group-1 entry = %v", err)
	}
	if err := k.Remove(owner, aKey); err != nil {
		t.Errorf("the owner removing alpha's entry = %v", err)
	}
	if got := sees(a1); slices.Contains(got, "alpha@chat:tg/group:1:secret") {
		t.Errorf("removed entry still found: %q", got)
	}

	// The owner adds to a group's scope: kept under .scopes, seen there.
	ownerG2 := owner
	ownerG2.Write = g2
	if err := k.Add(ownerG2, "规则", "group two rules: cherry"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".scopes", datadir.FileName(string(g2)), "规则.md")); err != nil {
		t.Fatal(err)
	}
	if got := names(k.Find(scope.For("gamma", g2, true), "rules", 5)); !slices.Equal(got, []string{"规则"}) {
		t.Errorf("a sharing plugin in group 2 finds %q", got)
	}
	if got := names(k.Find(shared1, "rules", 5)); len(got) != 0 {
		t.Errorf("a sharing plugin in group 1 finds group 2's rules: %q", got)
	}
	if got := names(k.Find(a2, "rules", 5)); len(got) != 0 {
		t.Errorf("alpha (not sharing) finds the owner's rules: %q", got)
	}
}

// A plugin's file edited by hand in its hidden folder is picked up too.
func TestPluginFolderIsWatched(t *testing.T) {
	dir := t.TempDir()
	k := open(t, dir, nil)
	v := scope.For("notes", scope.User("tg", "42"), false)
	if err := k.Add(v, "a/b", "first"); err != nil {
		t.Fatal(err)
	}
	e := k.Entries(owner)
	if len(e) != 1 || e[0].File != ".plugins/notes/user%3Atg%2F42/a/b.md" {
		t.Fatalf("Entries = %+v", e)
	}
	write(t, filepath.Join(dir, filepath.FromSlash(e[0].File)), "edited by hand: walnut")
	waitFor(t, k, "an edit in a plugin's folder", func() bool { return len(k.Find(v, "walnut", 1)) == 1 })
}
