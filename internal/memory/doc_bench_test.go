package memory

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hearth-agent/hearth/internal/scope"
	"github.com/hearth-agent/hearth/sdk"
)

// BenchmarkDocsQuery searches 20,000 short mixed Chinese and English
// documents of one plugin in one group (the hits read back from SQLite
// in one query), through the plugin's view; it reports the p50 and p99
// of one query of the top 10.
func BenchmarkDocsQuery(b *testing.B) {
	const n = 20_000
	rng := rand.New(rand.NewPCG(7, 11))
	words := graphNames(4000, rng)
	_, d, _ := open(b, openStore(b, b.TempDir()))
	v := scope.For("notes", scope.Chat("qq", "group:1"), false)
	for i := range n {
		var text strings.Builder
		for range 12 {
			text.WriteString(words[rng.IntN(len(words))])
			text.WriteString("，")
		}
		if err := d.Insert(v, &sdk.Doc{Title: words[i%len(words)], Content: text.String()}); err != nil {
			b.Fatal(err)
		}
	}
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		q := words[(i*31)%len(words)] + " " + words[(i*17)%len(words)]
		t0 := time.Now()
		hits := d.Query(v, q, 10)
		lat = append(lat, time.Since(t0))
		if len(hits) == 0 {
			b.Fatalf("nothing found for %q", q)
		}
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[min(len(lat)-1, len(lat)*99/100)].Microseconds())/1000, "p99-ms")
}
