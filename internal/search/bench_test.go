package search

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"
)

// The index benchmarks at 100,000 documents (2,000 with -short); the
// command and the numbers are in docs/benchmarks.md.

var builtIndexes = map[int]*Index{}

func buildIndex(c *corpus) *Index {
	x := NewIndex()
	for i, d := range c.docs {
		x.Put(docID(i), d, docMeta(i))
	}
	return x
}

func benchIndex(b *testing.B, c *corpus) *Index {
	corporaMu.Lock()
	defer corporaMu.Unlock()
	if x := builtIndexes[len(c.docs)]; x != nil {
		return x
	}
	b.StopTimer()
	defer b.StartTimer()
	x := buildIndex(c)
	builtIndexes[len(c.docs)] = x
	return x
}

func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// BenchmarkBuild100k indexes the corpus into an empty index in memory
// and reports the rate and the index's heap beside the text's size.
func BenchmarkBuild100k(b *testing.B) {
	c := benchCorpus(b)
	for b.Loop() {
		b.StopTimer()
		before := heapInUse()
		b.StartTimer()
		start := time.Now()
		x := buildIndex(c)
		el := time.Since(start)
		b.StopTimer()
		heap := heapInUse() - before
		b.ReportMetric(float64(len(c.docs))/el.Seconds(), "docs/s")
		b.ReportMetric(float64(c.bytes)/1e6/el.Seconds(), "MB/s")
		b.ReportMetric(float64(heap)/1e6, "heapMB")
		b.ReportMetric(float64(c.bytes)/1e6, "textMB")
		b.ReportMetric(float64(heap)/float64(c.bytes), "heap/text")
		// After a full compaction, as after Open or a snapshot Flush.
		x.wmu.Lock()
		x.compact()
		x.wmu.Unlock()
		b.ReportMetric(float64(heapInUse()-before)/float64(c.bytes), "heap/text-compacted")
		runtime.KeepAlive(x)
		b.StartTimer()
	}
}

// BenchmarkQuery100k runs the corpus's queries (k = 10), one per
// iteration, unfiltered and with a filter passing a tenth of the
// documents, as plain BM25 (SearchFilter) and through Query, and reports
// the latency percentiles.
func BenchmarkQuery100k(b *testing.B) {
	c := benchCorpus(b)
	x := benchIndex(b, c)
	for _, f := range []struct {
		name  string
		allow func(Meta) bool
		query func(string, int, func(Meta) bool) []Hit
	}{
		{"all", nil, x.SearchFilter},
		{"tenth", passTenth, x.SearchFilter},
		{"feedback", nil, x.Query}, // the owners' entry point: query processing and feedback
		{"feedback-tenth", passTenth, x.Query},
	} {
		b.Run(f.name, func(b *testing.B) {
			lat := make([]time.Duration, 0, 4096)
			i, found := 0, 0
			for b.Loop() {
				q := c.queries[i%len(c.queries)]
				i++
				start := time.Now()
				hits := f.query(q, 10, f.allow)
				lat = append(lat, time.Since(start))
				found += len(hits)
			}
			if found == 0 && b.N > 20 {
				b.Fatal("nothing found")
			}
			reportLatency(b, lat)
		})
	}
}

func reportLatency(b *testing.B, lat []time.Duration) {
	slices.Sort(lat)
	pct := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))].Microseconds()) / 1000 }
	b.ReportMetric(pct(0.5), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
}

// BenchmarkOpen100k opens an index persisted by Flush (built once,
// outside the timing) and reports the files' size.
func BenchmarkOpen100k(b *testing.B) {
	c := benchCorpus(b)
	dir := b.TempDir()
	b.StopTimer()
	x, err := Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	for i, d := range c.docs {
		x.Put(docID(i), d, docMeta(i))
	}
	if err := x.Close(); err != nil {
		b.Fatal(err)
	}
	var size int64
	for _, name := range []string{snapName, logName} {
		if fi, err := os.Stat(filepath.Join(dir, name)); err == nil {
			size += fi.Size()
		}
	}
	b.StartTimer()
	for b.Loop() {
		y, err := Open(dir)
		if err != nil {
			b.Fatal(err)
		}
		if y.Len() != len(c.docs) {
			b.Fatalf("opened %d documents, want %d", y.Len(), len(c.docs))
		}
		y.Close()
	}
	b.ReportMetric(float64(size)/1e6, "fileMB")
}

// BenchmarkFlushSmall changes ten documents of the persisted corpus and
// flushes: the cost of a Flush when little changed.
func BenchmarkFlushSmall(b *testing.B) {
	c := benchCorpus(b)
	dir := b.TempDir()
	b.StopTimer()
	x, err := Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer x.Close()
	for i, d := range c.docs {
		x.Put(docID(i), d, docMeta(i))
	}
	if err := x.Flush(); err != nil {
		b.Fatal(err)
	}
	b.StartTimer()
	i := 0
	for b.Loop() {
		for range 10 {
			x.Put(docID(i%len(c.docs)), c.docs[(i+1)%len(c.docs)], docMeta(i))
			i++
		}
		if err := x.Flush(); err != nil {
			b.Fatal(err)
		}
	}
}
