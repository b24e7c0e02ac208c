package knowledge

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/hearth-agent/hearth/internal/scope"
	"github.com/hearth-agent/hearth/internal/search"
)

var owner = scope.Everything()

func open(t testing.TB, dir string, o *Options) *Base {
	t.Helper()
	k, err := Open(dir, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { k.Close() })
	<-k.Ready()
	return k
}

// waitFor waits until cond holds, looking again at each change of the
// index (no sleeps: the watcher signals what it applied).
func waitFor(t *testing.T, k *Base, what string, cond func() bool) {
	t.Helper()
	for {
		next := k.next()
		if cond() {
			return
		}
		select {
		case <-next:
		case <-k.done:
			t.Fatalf("the watcher ended while waiting for %s", what)
		}
	}
}

func names(hits []Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.Name)
	}
	return out
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestAddListSearch(t *testing.T) {
	dir := t.TempDir()
	k := open(t, dir, nil)
	if !k.Watching() {
		t.Fatal("not watching the folder")
	}
	if err := k.Add(owner, "家里的 WiFi", "家里的无线网络名称是 HomeNet，密码贴在路由器背面。"); err != nil {
		t.Fatal(err)
	}
	if err := k.Add(owner, "生活/垃圾分类", "# 垃圾分类\n周二和周五晚上倒厨余垃圾，可回收物周六早上。"); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"", "a//b", "..", "../x", "/abs", ".hidden", "a/.b", `c:\x`, "a\x00b", " a"} {
		if err := k.Add(owner, bad, "x"); err == nil {
			t.Errorf("Add(%q) accepted", bad)
		}
	}
	got, err := k.List(owner)
	if err != nil || !slices.Equal(got, []string{"家里的 WiFi", "生活/垃圾分类"}) {
		t.Fatalf("List = %q %v", got, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "生活", "垃圾分类.md")); err != nil {
		t.Fatalf("the owner's entry is not in the visible tree: %v", err)
	}
	hits, err := k.Search(owner, "无线网络密码", 3)
	if err != nil || len(hits) == 0 || hits[0].Name != "家里的 WiFi" {
		t.Fatalf("Search = %v %v", hits, err)
	}
	found := k.Find(owner, "什么时候倒垃圾", 1)
	if len(found) != 1 || found[0].File != "生活/垃圾分类.md" || found[0].Title != "垃圾分类" || found[0].Score <= 0 {
		t.Fatalf("Find = %+v", found)
	}
	if err := k.Add(owner, "家里的 WiFi", "新的网络叫 Hearth5G。"); err != nil {
		t.Fatal(err)
	}
	if hits, _ := k.Search(owner, "Hearth5G", 3); len(hits) != 1 || hits[0].Content != "新的网络叫 Hearth5G。" {
		t.Fatalf("replaced entry: %v", hits)
	}
	if hits, _ := k.Search(owner, "HomeNet", 3); len(hits) != 0 {
		t.Fatalf("old text still found: %v", hits)
	}
}

// Files written, edited, moved and removed by hand, at any depth, are
// picked up by the watcher, without a search looking at the folder.
func TestHandEditsAreWatched(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "早就在.md"), "启动前就有的文件：猕猴桃")
	k := open(t, dir, nil)
	if hits := k.Find(owner, "猕猴桃", 3); len(hits) != 1 {
		t.Fatalf("file present at Open: %v", hits)
	}
	find := func(q string) func() []string { return func() []string { return names(k.Find(owner, q, 5)) } }
	is := func(f func() []string, want ...string) func() bool {
		return func() bool { return slices.Equal(f(), want) }
	}

	write(t, filepath.Join(dir, "药.md"), "布洛芬每次一片，饭后吃。")
	waitFor(t, k, "a new file", is(find("布洛芬"), "药"))

	// A new folder tree: its files and later ones in it are found.
	write(t, filepath.Join(dir, "菜谱", "家常", "红烧肉.md"), "# 红烧肉\n五花肉，冰糖，生抽。")
	waitFor(t, k, "a file in a new folder", is(find("五花肉"), "菜谱/家常/红烧肉"))
	write(t, filepath.Join(dir, "菜谱", "家常", "番茄炒蛋.txt"), "番茄 鸡蛋 一勺糖")
	waitFor(t, k, "a .txt file in a watched subfolder", is(find("鸡蛋"), "菜谱/家常/番茄炒蛋"))

	// Edited: the new text is found, the old is not.
	write(t, filepath.Join(dir, "药.md"), "对乙酰氨基酚，发烧时吃。")
	waitFor(t, k, "an edit", func() bool {
		return len(find("布洛芬")()) == 0 && slices.Equal(find("乙酰氨基酚")(), []string{"药"})
	})

	// A folder renamed: found under its new name only.
	if err := os.Rename(filepath.Join(dir, "菜谱"), filepath.Join(dir, "recipes")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, k, "a renamed folder", is(find("五花肉"), "recipes/家常/红烧肉"))
	write(t, filepath.Join(dir, "recipes", "家常", "鱼香肉丝.md"), "木耳 胡萝卜 泡椒")
	waitFor(t, k, "a file in a renamed folder", is(find("泡椒"), "recipes/家常/鱼香肉丝"))

	// Hidden files and folders, and other extensions, are no entries.
	write(t, filepath.Join(dir, ".obsidian", "x.md"), "隐藏的猕猴桃")
	write(t, filepath.Join(dir, "notes.md.swp"), "猕猴桃")
	write(t, filepath.Join(dir, "z.md"), "一个标记")
	waitFor(t, k, "a marker after the hidden files", is(find("标记"), "z"))
	if got := find("猕猴桃")(); !slices.Equal(got, []string{"早就在"}) {
		t.Fatalf("hidden or foreign files indexed: %v", got)
	}

	// Removed: a file, then a whole folder.
	os.Remove(filepath.Join(dir, "药.md"))
	waitFor(t, k, "a removed file", is(find("乙酰氨基酚")))
	if err := os.RemoveAll(filepath.Join(dir, "recipes")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, k, "a removed folder", func() bool { return len(find("五花肉 泡椒 鸡蛋")()) == 0 })
	if got, _ := k.List(owner); !slices.Equal(got, []string{"z", "早就在"}) {
		t.Fatalf("List after removals = %q", got)
	}
}

// Where the folder cannot be watched it is rescanned.
func TestRescanWhereWatchingFails(t *testing.T) {
	dir := t.TempDir()
	k := open(t, dir, &Options{noWatch: true, Rescan: 1})
	if k.Watching() {
		t.Fatal("watching although told it fails")
	}
	write(t, filepath.Join(dir, "a", "b.md"), "rescanned kiwi")
	waitFor(t, k, "a rescan", func() bool { return len(k.Find(owner, "kiwi", 1)) == 1 })
	os.Remove(filepath.Join(dir, "a", "b.md"))
	waitFor(t, k, "a rescan after removal", func() bool { return len(k.Find(owner, "kiwi", 1)) == 0 })
}

// Opening again on an index that has the folder's files reads only the
// files that changed meanwhile, and drops those removed.
func TestReconcileReadsOnlyChanges(t *testing.T) {
	dir := t.TempDir()
	idx := search.NewIndex()
	k1 := open(t, dir, &Options{Index: idx})
	for _, n := range []string{"same", "edited", "removed"} {
		if err := k1.Add(owner, n, "# "+n+"\nfirst text of "+n); err != nil {
			t.Fatal(err)
		}
	}
	plug := scope.For("weather", scope.Chat("tg", "g1"), false)
	if err := k1.Add(plug, "forecast", "rain tomorrow"); err != nil {
		t.Fatal(err)
	}
	k1.Close()
	write(t, filepath.Join(dir, "edited.md"), "second version, longer than before")
	os.Remove(filepath.Join(dir, "removed.md"))
	write(t, filepath.Join(dir, "new.md"), "brand new")

	k2 := open(t, dir, &Options{Index: idx})
	k2.mu.RLock()
	same, edited := k2.entries["same.md"], k2.entries["edited.md"]
	k2.mu.RUnlock()
	if same == nil || same.title != "" {
		t.Fatalf("the unchanged file was read again at Open: %+v", same)
	}
	if edited == nil || edited.title == "" {
		t.Fatalf("the edited file was not read: %+v", edited)
	}
	for q, want := range map[string][]string{"first": {"same"}, "second": {"edited"}, "brand": {"new"}, "removed": nil} {
		if got := names(k2.Find(owner, q, 5)); !slices.Equal(got, want) {
			t.Errorf("Find(%q) = %q, want %q", q, got, want)
		}
	}
	if got := k2.Find(plug, "rain", 1); len(got) != 1 || got[0].Writer != "weather" || got[0].Scope != scope.Chat("tg", "g1") {
		t.Fatalf("the plugin's entry after reopening: %+v", got)
	}
	if h := k2.Find(owner, "first", 1); len(h) != 1 || h[0].Title != "same" {
		t.Fatalf("title read on demand: %+v", h)
	}
}

// Closing while the start-up reconcile runs drops nothing from the
// shared index: a scan cut short proves no file gone.
func TestCloseDuringReconcileKeepsTheIndex(t *testing.T) {
	dir := t.TempDir()
	for i := range 300 {
		write(t, filepath.Join(dir, "f", fmt.Sprintf("%03d.md", i)), fmt.Sprintf("note %d", i))
	}
	idx := search.NewIndex()
	k := open(t, dir, &Options{Index: idx})
	k.Close()
	if idx.Len() != 300 {
		t.Fatalf("indexed %d, want 300", idx.Len())
	}
	k2, err := Open(dir, &Options{Index: idx})
	if err != nil {
		t.Fatal(err)
	}
	k2.Close() // at once: mid-scan, or just after
	if idx.Len() != 300 {
		t.Fatalf("%d left in the index after a reconcile cut short", idx.Len())
	}
}
