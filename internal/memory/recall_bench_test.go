package memory

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hearth-agent/hearth/internal/scope"
	"github.com/hearth-agent/hearth/internal/store"
	"github.com/hearth-agent/hearth/sdk"
)

// graphNames returns n distinct entity names, half two English-looking
// words, half three Chinese characters, the same every run.
func graphNames(n int, rng *rand.Rand) []string {
	syll := strings.Fields("ka lo mi ne ru sa to vi den mar tin bel cor an el is ur on ha ze pol gri fen")
	han := []rune("王李张刘陈杨黄赵吴周徐孙马朱胡郭何林罗高郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘蒋蔡余杜叶程苏魏吕丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤明华国建文平志伟东海强晓生光林小红春秋山水天云风雨花月星河江湖北京上南西")
	word := func() string {
		var b strings.Builder
		for range 2 + rng.IntN(2) {
			b.WriteString(syll[rng.IntN(len(syll))])
		}
		return b.String()
	}
	seen := map[string]bool{}
	out := make([]string, 0, n)
	for len(out) < n {
		var name string
		if len(out)%2 == 0 {
			name = word() + " " + word()
		} else {
			name = string([]rune{han[rng.IntN(len(han))], han[rng.IntN(len(han))], han[rng.IntN(len(han))]})
		}
		if !seen[name] {
			seen[name] = true
			out = append(out, name)
		}
	}
	return out
}

// buildGraph fills st with the entities of names and rels relations
// between them (sources uniform, targets skewed toward a few hubs), in
// transactions of 10,000 triples.
func buildGraph(tb testing.TB, st *store.Store, names []string, rels int, rng *rand.Rand) {
	kinds := strings.Fields("knows likes lives_in works_at visited owns uses 认识 喜欢 住在 属于 去过")
	batch := make([]store.Triple, 0, 10000)
	flush := func() {
		if _, err := st.CommitTriples(context.Background(), store.Key{Scope: "global"}, batch); err != nil {
			tb.Fatal(err)
		}
		batch = batch[:0]
	}
	for i := range rels {
		src := names[i%len(names)] // every entity in at least one relation
		u := rng.Float64()
		dst := names[int(u*u*float64(len(names)))]
		if dst == src {
			dst = names[(i+1)%len(names)]
		}
		batch = append(batch, store.Triple{Subject: src, Relation: kinds[rng.IntN(len(kinds))], Object: dst})
		if len(batch) == cap(batch) {
			flush()
		}
	}
	if len(batch) > 0 {
		flush()
	}
}

// BenchmarkRecall100k recalls at depth 2 in a graph of 100,000 entities
// and 500,000 relations on a real SQLite file, one entity's name a
// query; it reports the build time and the p50 and p99 of one recall.
//
// Without HEARTH_BENCH_FULL=1 (as in CI, which runs it once under the
// race detector) the graph is 2,000 entities and 10,000 relations.
func BenchmarkRecall100k(b *testing.B) {
	entities, relations := 2000, 10_000
	if os.Getenv("HEARTH_BENCH_FULL") == "1" {
		entities, relations = 100_000, 500_000
	}
	rng := rand.New(rand.NewPCG(13, 5))
	names := graphNames(entities, rng)
	st := openStore(b, b.TempDir())
	start := time.Now()
	buildGraph(b, st, names, relations, rng)
	g, _, _ := open(b, st) // indexes the names
	build := time.Since(start)
	v := scope.For("", "", true)

	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	var reached, walked int
	for i := range b.N {
		q := names[(i*7919)%len(names)]
		t0 := time.Now()
		ents, rels, err := g.Recall(v, []string{q}, 2)
		lat = append(lat, time.Since(t0))
		if err != nil || len(ents) == 0 || !slices.ContainsFunc(ents, func(e sdk.Entity) bool { return e.Name == q }) {
			b.Fatalf("recall %q: %d entities, %v", q, len(ents), err)
		}
		reached, walked = reached+len(ents), walked+len(rels)
	}
	b.StopTimer()
	slices.Sort(lat)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	b.ReportMetric(ms(lat[len(lat)/2]), "p50-ms")
	b.ReportMetric(ms(lat[min(len(lat)-1, len(lat)*99/100)]), "p99-ms")
	b.ReportMetric(build.Seconds(), "build-s")
	b.ReportMetric(float64(reached)/float64(b.N), "entities/op")
	b.ReportMetric(float64(walked)/float64(b.N), "relations/op")
}

func TestGraphNamesAreStable(t *testing.T) {
	a := graphNames(50, rand.New(rand.NewPCG(13, 5)))
	b := graphNames(50, rand.New(rand.NewPCG(13, 5)))
	if !slices.Equal(a, b) || len(a) != 50 {
		t.Fatal(fmt.Sprint("names differ between runs: ", a[:3], b[:3]))
	}
}
