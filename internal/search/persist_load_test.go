package search

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestLoadReadsWithoutWriting: a process that does not own the folder
// sees what the owner flushed (snapshot and log), a torn last batch
// included, and changes nothing on disk, even when it is used and
// flushed itself.
func TestLoadReadsWithoutWriting(t *testing.T) {
	dir := t.TempDir()
	if x, err := Load(filepath.Join(dir, "none")); err != nil || x.Len() != 0 {
		t.Fatalf("Load of no index = %v, %v", x, err)
	}
	owner := openT(t, dir)
	defer owner.Close()
	tag := owner.Tag("k\x00global\x00")
	owner.Put("k:weather", "天气预报：明天北京晴", Meta{Tag: tag, Stamp: 42})
	if err := owner.Flush(); err != nil {
		t.Fatal(err)
	}
	owner.Put("k:train", "从北京到上海的高铁", Meta{Stamp: 7})
	if err := owner.Flush(); err != nil { // a second log batch
		t.Fatal(err)
	}
	snap := func() map[string][]byte {
		out := map[string][]byte{}
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
			out[e.Name()] = b
		}
		return out
	}
	logPath := filepath.Join(dir, logName)
	whole, _ := os.ReadFile(logPath)
	if err := os.WriteFile(logPath, whole[:len(whole)-3], 0o600); err != nil { // the owner's last batch, torn
		t.Fatal(err)
	}
	before := snap()
	r, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if m, ok := r.Meta("k:weather"); !ok || m != (Meta{Tag: tag, Stamp: 42}) || r.Label(tag) != "k\x00global\x00" {
		t.Fatalf("loaded Meta = %v %v", m, ok)
	}
	if _, ok := r.Meta("k:train"); ok {
		t.Fatal("a torn batch was applied")
	}
	r.Put("k:local", "北京烤鸭", Meta{})
	if err := r.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if got := ids(r.Search("北京", 5)); !slices.Contains(got, "k:local") || !slices.Contains(got, "k:weather") {
		t.Fatalf("Search on the loaded index = %v", got)
	}
	after := snap()
	if len(before) != len(after) {
		t.Fatalf("files changed: %d -> %d", len(before), len(after))
	}
	for name, b := range before {
		if !bytes.Equal(b, after[name]) {
			t.Fatalf("Load changed %s", name)
		}
	}
	// Files that cannot be used: an empty index and ErrRebuild, nothing renamed.
	if err := os.WriteFile(filepath.Join(dir, snapName), []byte("garbage!"), 0o600); err != nil {
		t.Fatal(err)
	}
	if x, err := Load(dir); !errors.Is(err, ErrRebuild) || x == nil || x.Len() != 0 {
		t.Fatalf("Load of a corrupt index = %v, %v", x, err)
	}
	if _, err := os.Stat(filepath.Join(dir, snapName)); err != nil {
		t.Fatalf("Load moved the corrupt snapshot: %v", err)
	}
}
