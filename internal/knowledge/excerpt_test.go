package knowledge

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/internal/scope"
)

// TestExcerpt checks that an excerpt is the start of the entry, cut on a
// rune, marked when there is more, and that it reads a bounded prefix of
// a large file, not the file.
func TestExcerpt(t *testing.T) {
	// The files are there before Open, so no watcher event reads them
	// again while allocations are counted below.
	dir := t.TempDir()
	key := func(name string) Key { return Key{Scope: scope.Global, Name: name} }
	big := "# 大文件\n" + strings.Repeat("红烧肉的做法。", maxRead/len("红烧肉的做法。"))
	for name, text := range map[string]string{"big.md": big, "short.md": "三个字", "exact.md": strings.Repeat("é", 10)} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	k := open(t, dir, nil)
	for _, c := range []struct {
		name string
		n    int
		want string
	}{
		{"short", 10, "三个字"},
		{"short", 2, "三个…"},
		{"exact", 10, strings.Repeat("é", 10)},
		{"exact", 9, strings.Repeat("é", 9) + "…"},
		{"big", 8, "# 大文件\n红烧…"},
	} {
		if got, err := k.Excerpt(owner, key(c.name), c.n); err != nil || got != c.want {
			t.Errorf("Excerpt(%s, %d) = %q, %v; want %q", c.name, c.n, got, err, c.want)
		}
	}
	if _, err := k.Excerpt(owner, key("missing"), 10); !errors.Is(err, ErrNotFound) {
		t.Errorf("Excerpt of a missing entry: %v", err)
	}
	if _, err := k.Excerpt(scope.For("p", scope.Global, false), key("short"), 10); !errors.Is(err, ErrNotFound) {
		t.Errorf("Excerpt of an entry the view does not see: %v", err)
	}

	// Bounded: 20 excerpts of the 4 MiB file allocate far less than one
	// read of it.
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range 20 {
		if _, err := k.Excerpt(owner, key("big"), 200); err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
		t.Errorf("20 excerpts allocated %d bytes: the file was read whole", n)
	}
}

// BenchmarkExcerpt4MiB compares a search hit's excerpt of a 4 MiB entry
// with reading the entry whole, which is what the HTTP search did.
func BenchmarkExcerpt4MiB(b *testing.B) {
	dir := b.TempDir()
	text := strings.Repeat("红烧肉的做法。", maxRead/len("红烧肉的做法。"))
	if err := os.WriteFile(filepath.Join(dir, "big.md"), []byte(text), 0o600); err != nil {
		b.Fatal(err)
	}
	k := open(b, dir, nil)
	key := Key{Scope: scope.Global, Name: "big"}
	b.Run("excerpt", func(b *testing.B) {
		for range b.N {
			if _, err := k.Excerpt(owner, key, 200); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("read", func(b *testing.B) {
		for range b.N {
			if _, err := k.Read(owner, key); err != nil {
				b.Fatal(err)
			}
		}
	})
}
