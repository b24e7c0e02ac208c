package search

import (
	"slices"
	"testing"
	"time"
)

func TestCoverUnigrams(t *testing.T) {
	x := NewIndex()
	x.Add("a", "路由器的设置")
	x.Add("b", "网速")
	o := defaultQuery
	o.uniCovered = 0
	// 路由 is in the index and covers 路 and 由; 器 is covered by 由器;
	// 快 is in no pair the index holds (速快 is not), and 速 is covered
	// by 网速.
	terms := x.coverUnigrams(queryTerms("路由器网速快", o), o)
	want := map[string]float64{"路": 0, "由": 0, "器": 0, "网": 0, "速": 0, "快": 1, "路由": 1, "速快": 1}
	for _, tm := range terms {
		if w, ok := want[tm.Text]; ok && tm.Weight != w {
			t.Errorf("%s weighs %v, want %v", tm.Text, tm.Weight, w)
		}
	}
	// English terms are left alone.
	for _, tm := range x.coverUnigrams(queryTerms("router speed", o), o) {
		if tm.Weight != 1 {
			t.Errorf("%s weighs %v", tm.Text, tm.Weight)
		}
	}
}

func TestForQuery(t *testing.T) {
	o := defaultQuery
	o.runFbDocs, o.runFbTerms, o.runFbWeight, o.runFusion, o.runLambda = 7, 9, 0.25, "interp", 0.3
	zh := o.forQuery(queryTerms("红烧肉怎么做 pork", o))
	if zh.fbDocs != 7 || zh.fbTerms != 9 || zh.fbWeight != 0.25 || zh.fusion != "interp" || zh.lambda != 0.3 {
		t.Errorf("Chinese query options %+v", zh)
	}
	en := o.forQuery(queryTerms("braised pork 肉", o))
	if en.fbDocs != defaultQuery.fbDocs || en.fusion != defaultQuery.fusion {
		t.Errorf("English query options %+v", en)
	}
	if d := defaultQuery.forQuery(queryTerms("红烧肉", defaultQuery)); d != defaultQuery {
		t.Errorf("no Chinese settings, yet %+v", d)
	}
}

func TestCohesion(t *testing.T) {
	x := NewIndex()
	x.Add("a", "路由器")
	x.Add("b", "路由")
	x.Add("c", "网速更快")
	x.Add("d", "更新")
	x.Add("e", "更改")
	o := defaultQuery
	o.cohesion = 1
	w := map[string]float64{}
	for _, tm := range x.cohesion(queryTerms("路由网速更快", o), o) {
		w[tm.Text] = tm.Weight
	}
	// 路由 is in every document holding 路: whole weight. 速更 is in one
	// of the three documents holding 更 (the rarer character is 速).
	if w["路由"] != 1 || w["速更"] != 1 {
		t.Errorf("weights %v", w)
	}
	if w["更快"] != 1 {
		t.Errorf("更快 weighs %v", w["更快"])
	}
	x.Add("f", "速度")
	x.Add("g", "车速")
	for _, tm := range x.cohesion(queryTerms("网速更快", o), o) {
		w[tm.Text] = tm.Weight
	}
	// Now 速 is in three documents, 速更 in one of them.
	if w["速更"] < 0.33 || w["速更"] > 0.34 {
		t.Errorf("速更 weighs %v, want 1/3", w["速更"])
	}
}

// BenchmarkQueryP50 reports Query's median and 99th percentile time over
// 20,000 generated documents, half Chinese and half English queries.
func BenchmarkQueryP50(b *testing.B) {
	x := feedbackBenchIndex(20_000)
	queries := []string{"wireless router throughput", "红烧肉怎么做", "docker backup container", "国家发展", "flight hotel insurance", "学生的问题是什么"}
	var times []time.Duration
	i := 0
	for b.Loop() {
		q := queries[i%len(queries)]
		i++
		start := time.Now()
		x.Query(q, 10, nil)
		times = append(times, time.Since(start))
	}
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(times[len(times)*99/100].Microseconds())/1000, "p99-ms")
}
