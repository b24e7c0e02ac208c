package knowledge

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestAddListSearchAndHandEdits(t *testing.T) {
	dir := t.TempDir()
	k, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := k.Add("家里的 WiFi", "家里的无线网络名称是 HomeNet，密码贴在路由器背面。"); err != nil {
		t.Fatal(err)
	}
	if err := k.Add("垃圾分类", "周二和周五晚上倒厨余垃圾，可回收物周六早上。"); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"", "a/b", "..", ".hidden", `c:\x`} {
		if err := k.Add(bad, "x"); !errors.Is(err, ErrName) {
			t.Errorf("Add(%q) = %v", bad, err)
		}
	}
	names, err := k.List()
	if err != nil || !slices.Equal(names, []string{"垃圾分类", "家里的 WiFi"}) {
		t.Fatalf("List = %q %v", names, err)
	}
	hits, err := k.Search("无线网络密码", 3)
	if err != nil || len(hits) == 0 || hits[0].Name != "家里的 WiFi" {
		t.Fatalf("Search = %v %v", hits, err)
	}
	if hits, _ := k.Search("什么时候倒垃圾", 1); len(hits) != 1 || hits[0].Name != "垃圾分类" {
		t.Fatalf("Search garbage = %v", hits)
	}
	// A file written by hand is found; one deleted by hand is not.
	if err := os.WriteFile(filepath.Join(dir, "药.md"), []byte("布洛芬每次一片，饭后吃。"), 0o600); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, "垃圾分类.md"))
	if hits, _ := k.Search("布洛芬", 3); len(hits) != 1 || hits[0].Name != "药" {
		t.Fatalf("hand-written file: %v", hits)
	}
	if hits, _ := k.Search("厨余垃圾", 3); len(hits) != 0 {
		t.Fatalf("deleted file still found: %v", hits)
	}
	// Replacing an entry replaces what is found.
	if err := k.Add("家里的 WiFi", "新的网络叫 Hearth5G。"); err != nil {
		t.Fatal(err)
	}
	if hits, _ := k.Search("Hearth5G", 3); len(hits) != 1 || hits[0].Content != "新的网络叫 Hearth5G。" {
		t.Fatalf("replaced entry: %v", hits)
	}
}
