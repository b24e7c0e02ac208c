package knowledge

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestReadRemoveStayInsideTheFolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "kb")
	k, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := k.Add("笔记", "# 标题\n内容"); err != nil {
		t.Fatal(err)
	}
	if got, err := k.Read("笔记"); err != nil || got != "# 标题\n内容" {
		t.Fatalf("Read = %q %v", got, err)
	}
	outside := filepath.Join(filepath.Dir(dir), "secret.md")
	if err := os.WriteFile(outside, []byte("outside"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "escape.md")); err != nil {
		t.Fatal(err)
	}
	if got, err := k.Read("escape"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Read through a link out of the folder = %q %v", got, err)
	}
	for _, bad := range []string{"../secret", "..", "a/b", ".hidden", ""} {
		if _, err := k.Read(bad); !errors.Is(err, ErrName) {
			t.Errorf("Read(%q) = %v", bad, err)
		}
		if err := k.Remove(bad); !errors.Is(err, ErrName) {
			t.Errorf("Remove(%q) = %v", bad, err)
		}
	}
	if _, err := k.Read("missing"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Read(missing) = %v", err)
	}
	if err := k.Remove("escape"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(outside); err != nil {
		t.Fatalf("Remove followed the link: %v", err)
	}
	if err := k.Remove("笔记"); err != nil {
		t.Fatal(err)
	}
	if err := k.Remove("笔记"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Remove twice = %v", err)
	}
}

// A name CheckName accepts is one file directly inside the folder.
func FuzzCheckName(f *testing.F) {
	for _, s := range []string{"笔记", "..", "../x", "a/b", `a\b`, ".x", " ", "x\x00y", "..."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if CheckName(name) != nil {
			return
		}
		p := filepath.Join("/kb", name+Ext)
		if filepath.Dir(p) != "/kb" {
			t.Fatalf("%q leaves the folder: %s", name, p)
		}
	})
}
