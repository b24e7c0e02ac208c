package knowledge

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hearth-agent/hearth/internal/search"
)

// corpus writes n files of about 1 KB, mixed Chinese and English, into
// dir (100 folders), deterministically: words drawn Zipf-like from a
// seeded vocabulary. It returns queries of 2 to 4 words drawn the same
// way.
func corpus(tb testing.TB, dir string, n int) []string {
	tb.Helper()
	r := rand.New(rand.NewPCG(13, 6))
	const han = "的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动同工也能下过子说产种面而方后多定行学法所民得经十三之进着等部度家电力里如水化高自二理起小物现实加量都两体制机当使点从业本去把性好应开它合还因由其些然前外天政四日那社义事平形相全表间样与关各重新线内数正心反你明看原又么利比或但质气第向道命此变条只没结解问意建月公无系军很情者最立代想已通并提直题党程展五果料象员革位入常文总次品式活设及管特件长求老头基资边流路级少图山统接知较将组见计别她手角期根论运农指几九区强放决西被干做必战先回则任取据处理"
	latin := strings.Fields("the of and to in is for on with as by at from that this it be are was or an which not have has can will more about home water garden recipe kitchen travel train ticket doctor medicine school music piano battery phone router network password coffee tea bread rice noodle weather rain snow winter summer market price budget invoice contract meeting project release version server backup")
	word := func() string {
		if r.IntN(2) == 0 {
			i := int(float64(len(latin)) * r.Float64() * r.Float64())
			return latin[i]
		}
		rs := []rune(han)
		a := int(float64(len(rs)) * r.Float64() * r.Float64())
		b := int(float64(len(rs)) * r.Float64() * r.Float64())
		return string(rs[a]) + string(rs[b])
	}
	for i := range n {
		var b strings.Builder
		fmt.Fprintf(&b, "# %s %s %d\n\n", word(), word(), i)
		for b.Len() < 1000 {
			b.WriteString(word())
			b.WriteByte(' ')
		}
		p := filepath.Join(dir, fmt.Sprintf("d%02d", i%100), fmt.Sprintf("n%06d.md", i))
		if i < 100 {
			os.MkdirAll(filepath.Dir(p), 0o700)
		}
		if err := os.WriteFile(p, []byte(b.String()), 0o600); err != nil {
			tb.Fatal(err)
		}
	}
	qs := make([]string, 500)
	for i := range qs {
		w := make([]string, 2+r.IntN(3))
		for j := range w {
			w[j] = word()
		}
		qs[i] = strings.Join(w, " ")
	}
	return qs
}

// BenchmarkKnowledgeSearch100k searches a folder of 100,000 real files
// (1,000 without HEARTH_BENCH_FULL=1) through the owner's view: it reports the build
// (the first reconcile, reading every file), the reconcile of a second
// Open on the same index (stat only), and the p50 and p99 of searches
// (k = 10), and the p50 of the same searches on the index alone.
func BenchmarkKnowledgeSearch100k(b *testing.B) {
	n := 1000 // HEARTH_BENCH_FULL=1 for the real size (CI runs it once, under -race)
	if os.Getenv("HEARTH_BENCH_FULL") == "1" && !testing.Short() {
		n = 100_000
	}
	dir := b.TempDir()
	qs := corpus(b, dir, n)
	idx := search.NewIndex()
	start := time.Now()
	k1, err := Open(dir, &Options{Index: idx})
	if err != nil {
		b.Fatal(err)
	}
	<-k1.Ready()
	build := time.Since(start)
	k1.Close()
	start = time.Now()
	k, err := Open(dir, &Options{Index: idx})
	if err != nil {
		b.Fatal(err)
	}
	defer k.Close()
	<-k.Ready()
	reconcile := time.Since(start)
	if got := len(k.Entries(owner)); got != n {
		b.Fatalf("%d entries, want %d", got, n)
	}
	b.ResetTimer()
	var lat []time.Duration
	for i := 0; b.Loop(); i++ {
		t := time.Now()
		k.Find(owner, qs[i%len(qs)], 10)
		lat = append(lat, time.Since(t))
	}
	b.StopTimer()
	// The same queries on the index alone (Query): what the knowledge
	// layer adds.
	var direct []time.Duration
	for i := range len(lat) {
		t := time.Now()
		idx.Query(qs[i%len(qs)], 10, nil)
		direct = append(direct, time.Since(t))
	}
	slices.Sort(direct)
	b.ReportMetric(float64(direct[len(direct)/2].Microseconds())/1000, "index-p50-ms")
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
	b.ReportMetric(build.Seconds(), "build-s")
	b.ReportMetric(reconcile.Seconds(), "reconcile-s")
}
