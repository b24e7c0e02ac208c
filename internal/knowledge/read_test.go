package knowledge

import (
	"errors"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/internal/scope"
)

func TestReadRemoveStayInsideTheFolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "kb")
	k := open(t, dir, nil)
	if err := k.Add(owner, "笔记/一", "# 标题\n内容"); err != nil {
		t.Fatal(err)
	}
	key := func(name string) Key { return Key{Scope: scope.Global, Name: name} }
	if got, err := k.Read(owner, key("笔记/一")); err != nil || got != "# 标题\n内容" {
		t.Fatalf("Read = %q %v", got, err)
	}
	outside := filepath.Join(filepath.Dir(dir), "secret.md")
	if err := os.WriteFile(outside, []byte("outside"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "escape.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Dir(dir), filepath.Join(dir, "up")); err != nil {
		t.Fatal(err)
	}
	if got, err := k.Read(owner, key("escape")); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Read through a link out of the folder = %q %v", got, err)
	}
	if got, err := k.Read(owner, key("up/secret")); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Read through a linked folder = %q %v", got, err)
	}
	if err := k.Add(owner, "up/planted", "x"); err == nil {
		t.Fatal("Add wrote through a linked folder")
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(dir), "planted.md")); err == nil {
		t.Fatal("a file was written outside the folder")
	}
	for _, bad := range []string{"../secret", "..", "a/../../b", ".hidden", "", "/etc/passwd"} {
		if _, err := k.Read(owner, key(bad)); !errors.Is(err, ErrName) {
			t.Errorf("Read(%q) = %v", bad, err)
		}
		if err := k.Remove(owner, key(bad)); !errors.Is(err, ErrName) {
			t.Errorf("Remove(%q) = %v", bad, err)
		}
	}
	if _, err := k.Read(owner, key("missing")); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Read(missing) = %v", err)
	}
	if err := k.Remove(owner, key("escape")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(outside); err != nil {
		t.Fatalf("Remove followed the link: %v", err)
	}
	if err := k.Remove(owner, key("笔记/一")); err != nil {
		t.Fatal(err)
	}
	if err := k.Remove(owner, key("笔记/一")); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Remove twice = %v", err)
	}
}

// A name CheckName accepts is a file inside the folder, and names the
// entry it is the file of.
func FuzzCheckName(f *testing.F) {
	for _, s := range []string{"笔记", "..", "../x", "a/b", `a\b`, ".x", " ", "x\x00y", "...", "a/./b", "a/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if CheckName(name) != nil {
			return
		}
		p := filepath.Join("/kb", name+Ext)
		if !strings.HasPrefix(p, "/kb/") || strings.Contains(p, "/.") {
			t.Fatalf("%q leaves the folder or hides: %s", name, p)
		}
		if key, ok := locate(name + Ext); !ok || key.Name != name || key.Writer != "" || key.Scope != scope.Global {
			t.Fatalf("locate(%q) = %+v %v", name+Ext, key, ok)
		}
	})
}

// locate reads the paths of the folder (outside input: anyone may create
// files there): what it accepts maps back to the same file.
func FuzzLocate(f *testing.F) {
	for _, s := range []string{"a.md", "x/y.txt", ".plugins/w/global/n.md", ".plugins/w/chat%3Atg%2Fg/n.md",
		".scopes/owner/x.md", ".scopes/global/x.md", ".plugins/%2E/global/x.md", ".plugins/w/bad/x.md", "a/.b.md"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, rel string) {
		key, ok := locate(rel)
		if !ok {
			return
		}
		if CheckName(key.Name) != nil || !key.Scope.Valid() {
			t.Fatalf("locate(%q) = %+v", rel, key)
		}
		back, err := relOf(key, filepath.Ext(rel))
		if err != nil || back != rel {
			t.Fatalf("locate(%q) = %+v, back to %q %v", rel, key, back, err)
		}
	})
}

// Folders an earlier Hearth named keep working: entries under the
// literal names its escaping gave are found, read and written in place.
func TestExistingFoldersKeepTheirNames(t *testing.T) {
	dir := t.TempDir()
	files := map[string]Key{
		".plugins/%4Eotes/chat%3Aqq%2Fgroup%3A1/菜谱.md":                {Scope: "chat:qq/group:1", Writer: "Notes", Name: "菜谱"},
		".plugins/notes/global/a/b.md":                                {Scope: scope.Global, Writer: "notes", Name: "a/b"},
		".scopes/chat%3Atg%2F%21%41b%43/规则.md":                        {Scope: "chat:tg/!AbC", Name: "规则"},
		".scopes/user%3A%E5%BE%AE%E4%BF%A1%2F%E5%BC%A0%E4%B8%89/x.md": {Scope: "user:微信/张三", Name: "x"},
	}
	for rel := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("old"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	k := open(t, dir, nil)
	got := map[string]Key{}
	for _, e := range k.Entries(owner) {
		got[e.File] = e.Key
	}
	if !maps.Equal(got, files) {
		t.Fatalf("entries %v, want %v", got, files)
	}
	for rel, key := range files {
		if text, err := k.Read(owner, key); err != nil || text != "old" {
			t.Errorf("Read(%+v) = %q %v", key, text, err)
		}
		if _, err := k.Put(owner, key, "new"); err != nil {
			t.Fatal(err)
		}
		if b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel))); err != nil || string(b) != "new" {
			t.Errorf("Put(%+v) did not write %s: %q %v", key, rel, b, err)
		}
	}
	if n := len(k.Entries(owner)); n != len(files) {
		t.Fatalf("%d entries after writing, want %d", n, len(files))
	}
}
