package search

import (
	"testing"
	"time"
)

// BenchmarkSearchWithin100k runs the corpus's queries (k = 10), one per
// iteration, through SearchWithin with a filter passing a tenth and a
// thousandth of the documents, and a tenth through a map of tags (as the
// memory owners filter), and reports the latency percentiles.
func BenchmarkSearchWithin100k(b *testing.B) {
	c := benchCorpus(b)
	x := benchIndex(b, c)
	tags := map[uint32]bool{4: true}
	for _, f := range []struct {
		name  string
		allow func(Meta) bool
	}{
		{"tenth", passTenth},
		{"thousandth", func(m Meta) bool { return m.Stamp%1000 == 3 }},
		{"tenth-map", func(m Meta) bool { return tags[m.Tag] }},
	} {
		b.Run(f.name, func(b *testing.B) {
			lat := make([]time.Duration, 0, 4096)
			i, found := 0, 0
			for b.Loop() {
				q := c.queries[i%len(c.queries)]
				i++
				start := time.Now()
				hits := x.SearchWithin(q, 10, f.allow)
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
