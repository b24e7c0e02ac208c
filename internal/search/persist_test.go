package search

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
)

func openT(t *testing.T, dir string) *Index {
	t.Helper()
	x, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// crash closes x's files as the end of its process would, without a
// Flush: the folder's lock goes with them.
func crash(x *Index) {
	if x.disk.log != nil {
		x.disk.log.Close()
	}
	x.disk.lock.Close()
}

func ids(hits []Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.ID)
	}
	return out
}

// TestPersistRoundTrip keeps documents, metas, tags and removals across
// Close and Open, through a log batch and through a snapshot.
func TestPersistRoundTrip(t *testing.T) {
	for _, snap := range []bool{false, true} {
		t.Run(fmt.Sprint("snapshot=", snap), func(t *testing.T) {
			dir := t.TempDir()
			x := openT(t, dir)
			a := x.Tag("k\x00global\x00")
			x.Put("k:weather", "天气预报：明天北京晴", Meta{Tag: a, Stamp: 42})
			x.Put("k:train", "从北京到上海的高铁", Meta{Tag: x.Tag("d\x00owner\x00"), Stamp: 7})
			x.Put("k:gone", "北京烤鸭", Meta{})
			x.Remove("k:gone")
			if snap {
				minLog = 0
				defer func() { minLog = 1 << 20 }()
			}
			if err := x.Close(); err != nil {
				t.Fatal(err)
			}
			y := openT(t, dir)
			defer y.Close()
			if m, ok := y.Meta("k:weather"); !ok || m != (Meta{Tag: a, Stamp: 42}) {
				t.Fatalf("Meta = %v %v", m, ok)
			}
			if y.Label(a) != "k\x00global\x00" || y.Tag("d\x00owner\x00") != 2 || y.Len() != 2 {
				t.Fatalf("labels %q, len %d", y.Label(a), y.Len())
			}
			if got := ids(y.Search("北京", 5)); !slices.Equal(got, []string{"k:train", "k:weather"}) && !slices.Equal(got, []string{"k:weather", "k:train"}) {
				t.Fatalf("Search = %v", got)
			}
			y.Put("k:more", "北京天气", Meta{})
			if got := ids(y.Search("天气", 5)); len(got) != 2 {
				t.Fatalf("after Put on an opened index: %v", got)
			}
		})
	}
}

// TestTornLog cuts the log at every length inside its last batch: Open
// gives the state of the Flush before, and appends after it survive.
func TestTornLog(t *testing.T) {
	dir := t.TempDir()
	x := openT(t, dir)
	x.Put("a", "apple pie", Meta{Stamp: 1})
	if err := x.Flush(); err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(dir, logName)
	fi, _ := os.Stat(logPath)
	before := fi.Size()
	x.Put("b", "banana bread", Meta{Stamp: 2})
	x.Remove("a")
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	full, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	for cut := before; cut < int64(len(full)); cut++ {
		if err := os.WriteFile(logPath, full[:cut], 0o600); err != nil {
			t.Fatal(err)
		}
		y := openT(t, dir)
		if y.Len() != 1 || len(y.Search("apple", 1)) != 1 || len(y.Search("banana", 1)) != 0 {
			t.Fatalf("cut at %d: len %d", cut, y.Len())
		}
		y.Put("c", "cherry", Meta{})
		if err := y.Close(); err != nil {
			t.Fatal(err)
		}
		z := openT(t, dir)
		if z.Len() != 2 || len(z.Search("cherry", 1)) != 1 {
			t.Fatalf("cut at %d: append after a torn batch lost (len %d)", cut, z.Len())
		}
		z.Close()
	}
}

// TestCorruptSnapshot flips bytes and cuts the snapshot: Open sets it
// aside and returns an empty, working index and ErrRebuild.
func TestCorruptSnapshot(t *testing.T) {
	dir := t.TempDir()
	x := openT(t, dir)
	x.Put("a", "apple pie", Meta{})
	minLog = 0
	err := x.Close()
	minLog = 1 << 20
	if err != nil {
		t.Fatal(err)
	}
	snap := filepath.Join(dir, snapName)
	good, _ := os.ReadFile(snap)
	for _, bad := range [][]byte{good[:len(good)/2], nil, append(slices.Clone(good[:10]), good[11:]...), func() []byte {
		p := slices.Clone(good)
		p[len(p)/2] ^= 1
		return p
	}()} {
		if err := os.WriteFile(snap, bad, 0o600); err != nil {
			t.Fatal(err)
		}
		y, err := Open(dir)
		if !errors.Is(err, ErrRebuild) || y == nil || y.Len() != 0 {
			t.Fatalf("Open of a corrupt snapshot: %v %v", y, err)
		}
		if _, err := os.Stat(snap + ".bad"); err != nil {
			t.Fatalf("corrupt snapshot not set aside: %v", err)
		}
		y.Put("b", "banana", Meta{})
		if err := y.Close(); err != nil {
			t.Fatal(err)
		}
		if z := openT(t, dir); z.Len() != 1 {
			t.Fatalf("rebuilt index not kept: %d", z.Len())
		} else {
			z.Close()
		}
	}
}

// TestStaleLogIgnored: a log from before the snapshot it sits beside
// (a crash between writing the snapshot and the new log) is ignored.
func TestStaleLogIgnored(t *testing.T) {
	dir := t.TempDir()
	x := openT(t, dir)
	x.Put("a", "apple", Meta{})
	x.Flush()
	old, _ := os.ReadFile(filepath.Join(dir, logName))
	x.Remove("a")
	x.Put("b", "banana", Meta{})
	minLog = 0
	err := x.Close()
	minLog = 1 << 20
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, logName), old, 0o600)
	y := openT(t, dir)
	defer y.Close()
	if y.Len() != 1 || len(y.Search("banana", 1)) != 1 {
		t.Fatalf("stale log replayed: len %d", y.Len())
	}
}

// FuzzSnapshot feeds the snapshot decoder (past its checksum) arbitrary
// bytes: an error or a segment searches, removals and compaction trust.
func FuzzSnapshot(f *testing.F) {
	x := NewIndex()
	x.Put("a", "天气预报 apple", Meta{Tag: x.Tag("l"), Stamp: -3})
	x.Put("b", "apple banana 北京", Meta{})
	x.wmu.Lock()
	x.compact()
	img := snapshot{gen: 1, seg: x.seg, ids: x.ids, lens: x.lens, metas: x.metas, labels: x.labels}
	x.wmu.Unlock()
	data := img.encode()
	f.Add(data[:len(data)-4])
	f.Add([]byte(snapMagic))
	f.Fuzz(func(t *testing.T, body []byte) {
		s, err := decodeSnapshot(body)
		if err != nil {
			return
		}
		y := NewIndex()
		y.install(s)
		for _, q := range []string{"apple", "天气", "北京 banana"} {
			y.Search(q, 3)
		}
		for _, id := range s.ids {
			y.DocTerms(id)
		}
		if len(s.ids) > 0 {
			y.Remove(s.ids[0])
		}
		y.wmu.Lock()
		y.compact()
		y.wmu.Unlock()
		y.Search("apple", 3)
	})
}

// FuzzLog feeds a log batch decoder arbitrary bytes.
func FuzzLog(f *testing.F) {
	d := &store{}
	d.logTag("l")
	d.logPut("a", 2, Meta{Tag: 1, Stamp: 5}, map[string]uint32{"apple": 1, "天气": 1})
	d.logRemove("a")
	f.Add(d.pending)
	f.Fuzz(func(t *testing.T, batch []byte) {
		x := NewIndex()
		x.apply(batch)
		x.Search("apple 天气", 3)
		x.wmu.Lock()
		x.compact()
		x.wmu.Unlock()
		x.Search("apple", 3)
	})
}

// TestConcurrentUse searches while other goroutines put, remove, compact
// and flush (run with -race).
func TestConcurrentUse(t *testing.T) {
	x := openT(t, t.TempDir())
	defer x.Close()
	var wg sync.WaitGroup
	for w := range 2 {
		wg.Go(func() {
			for i := range 300 {
				id := fmt.Sprintf("w%d-%d", w, i%40)
				x.Put(id, fmt.Sprintf("天气 weather %d 北京%d", i, i%7), Meta{Stamp: int64(i)})
				if i%5 == 0 {
					x.Remove(fmt.Sprintf("w%d-%d", w, (i+3)%40))
				}
				if i%50 == 0 {
					x.wmu.Lock()
					x.compact()
					x.wmu.Unlock()
				}
				if i%70 == 0 {
					if err := x.Flush(); err != nil {
						t.Error(err)
					}
				}
			}
		})
	}
	for range 2 {
		wg.Go(func() {
			for range 300 {
				for _, h := range x.SearchFilter("北京 weather", 5, func(m Meta) bool { return m.Stamp%2 == 0 }) {
					if h.Score <= 0 || h.ID == "" {
						t.Errorf("hit %v", h)
					}
				}
				x.DocTerms("w0-1")
				x.Each("w1", func(string, Meta) bool { return true })
			}
		})
	}
	wg.Wait()
}

// TestPendingOverrun: changes too many to keep as a log batch reach the
// disk as a snapshot.
func TestPendingOverrun(t *testing.T) {
	dir := t.TempDir()
	x := openT(t, dir)
	maxPending = 64
	defer func() { maxPending = 32 << 20 }()
	for i := range 20 {
		x.Put(fmt.Sprint("d", i), fmt.Sprintf("apple %d banana", i), Meta{Stamp: int64(i)})
	}
	if len(x.disk.pending) > 64 || !x.disk.overrun {
		t.Fatalf("pending %d bytes, overrun %v", len(x.disk.pending), x.disk.overrun)
	}
	if err := x.Flush(); err != nil {
		t.Fatal(err)
	}
	crash(x)
	y := openT(t, dir)
	defer y.Close()
	if y.Len() != 20 || len(y.Search("apple", 30)) != 20 {
		t.Fatalf("after reopening: %d", y.Len())
	}
}
