package knowledge

import (
	"errors"
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

func TestEscape(t *testing.T) {
	for _, s := range []string{"global", "chat:tg/group:1", "user:微信/张三", "a.b", "%", ""} {
		e := escape(s)
		if strings.ContainsAny(e, "/.:") {
			t.Errorf("escape(%q) = %q", s, e)
		}
		if back, ok := unescape(e); !ok || back != s {
			t.Errorf("unescape(escape(%q)) = %q %v", s, back, ok)
		}
	}
	for _, bad := range []string{"%2", "%zz", "%2e", "%61", "A"} {
		if _, ok := unescape(bad); ok {
			t.Errorf("unescape(%q) accepted", bad)
		}
	}
}
