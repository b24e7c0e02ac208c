package search

import (
	"fmt"
	"slices"
	"testing"
)

func TestQuery(t *testing.T) {
	x := NewIndex()
	x.Add("router1", "Router placement: keep the router high, away from the microwave, for better wireless throughput.")
	x.Add("router2", "Wireless throughput improves on a free channel; the router picks one at night.")
	x.Add("router3", "Mesh nodes extend wireless coverage and throughput upstairs.")
	x.Add("pork", "Braised pork belly with soy sauce and rock sugar.")
	x.Add("zh", "红烧肉的做法：五花肉焯水，加冰糖和酱油慢炖。")
	cases := map[string]string{
		"how do I improve the router's throughput": "router2",
		"braised pork": "pork",
		"红烧肉怎么做":       "zh",
		"the":          "",
	}
	for q, want := range cases {
		hits := x.Query(q, 3, nil)
		if want == "" {
			continue
		}
		if len(hits) == 0 || hits[0].ID != want {
			t.Errorf("Query(%q) = %v, want %s first", q, hits, want)
		}
	}
	if hits := x.Query("router", 0, nil); hits != nil {
		t.Errorf("k=0 gave %v", hits)
	}
	if hits := x.Query("  ", 5, nil); hits != nil {
		t.Errorf("empty query gave %v", hits)
	}
	// Feedback finds a document sharing no term with the query, ranked
	// after the ones that do.
	hits := x.Query("router", 5, nil)
	ids := hitIDs(hits)
	if len(ids) < 3 || !slices.Contains(ids, "router3") || ids[len(ids)-1] != "router3" {
		t.Errorf("Query(router) = %v, want router3 found last through feedback", hits)
	}
}

// TestQueryAllow checks that a filtered query never returns, nor expands
// with the terms of, a document allow refuses.
func TestQueryAllow(t *testing.T) {
	x := NewIndex()
	mine, theirs := x.Tag("mine"), x.Tag("theirs")
	for i := range 4 {
		x.Put(fmt.Sprintf("m%d", i), "router wireless throughput note", Meta{Tag: mine})
		x.Put(fmt.Sprintf("t%d", i), "router secretword secretword wireless", Meta{Tag: theirs})
	}
	x.Put("m-secret", "secretword alone", Meta{Tag: mine})
	allow := func(m Meta) bool { return m.Tag == mine }
	for _, h := range x.Query("router", 10, allow) {
		if h.ID[0] != 'm' || h.ID == "m-secret" {
			t.Errorf("filtered query found %v", h)
		}
	}
	if hits := x.Query("router", 10, func(Meta) bool { return false }); len(hits) != 0 {
		t.Errorf("nothing allowed, found %v", hits)
	}
}

func TestFuse(t *testing.T) {
	first := []Hit{{"a", 3}, {"b", 2}, {"c", 1}}
	second := []Hit{{"c", 9}, {"a", 8}}
	for _, f := range []string{"rrf", "interp"} {
		got := hitIDs(fuse(first, second, 2, queryOptions{fusion: f, lambda: 0.5}))
		if !slices.Equal(got, []string{"a", "c"}) {
			t.Errorf("%s fusion = %v", f, got)
		}
	}
	if got := hitIDs(fuse(first, second, 5, queryOptions{})); !slices.Equal(got, []string{"c", "a"}) {
		t.Errorf("no fusion = %v", got)
	}
}

// feedbackBenchIndex indexes n generated documents of Chinese and English words
// drawn with a skewed distribution.
func feedbackBenchIndex(n int) *Index {
	zh := []rune("的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动同工也能下过子说产种面而方后多定行学法所民得经十三之进着等部度家电力里如水化高自二理起小物现实加量都两体制机当使点从业本去把性好应开它合还因由其些然前外天政四日那社义事平形相全表间样与关各重新线内数正心反你明看原又么利比或但质气第向道命此变条只没结解问意建月公无系军很情者最立代想已通并提直题党程展五果料象员革位入常文总次品式活设及管特件长求老头基资边流路级少图山统接知较将组见计别她手角期根论运农指几九区强放决西被干做必战先回则任取据处理府研")
	en := []string{"router", "wireless", "throughput", "garden", "tomato", "recipe", "pork", "vaccine", "appointment", "docker", "container", "backup", "budget", "travel", "flight", "hotel", "insurance", "vet", "car", "tyre", "oil", "service", "meeting", "project", "deadline", "password", "network", "channel", "mesh", "kitchen"}
	x := NewIndex()
	seed := uint32(1)
	next := func(m int) int {
		seed = seed*1664525 + 1013904223
		v := int(seed>>8) % m
		return v * v / m // skewed towards small
	}
	for i := range n {
		var b []rune
		for range 60 {
			b = append(b, zh[next(len(zh))])
		}
		b = append(b, ' ')
		for range 20 {
			b = append(b, []rune(en[next(len(en))]+" ")...)
		}
		x.Add(fmt.Sprintf("d%d", i), string(b))
	}
	return x
}

func BenchmarkQuery(b *testing.B) {
	x := feedbackBenchIndex(2000)
	queries := []string{"wireless router throughput", "红烧肉怎么做", "docker backup container", "国家发展"}
	for _, mode := range []string{"Search", "Query"} {
		b.Run(mode, func(b *testing.B) {
			i := 0
			for b.Loop() {
				q := queries[i%len(queries)]
				i++
				if mode == "Search" {
					x.Search(q, 10)
				} else {
					x.Query(q, 10, nil)
				}
			}
		})
	}
}

func FuzzQuery(f *testing.F) {
	f.Add("路由器怎么设置才能让网速更快", "提升无线吞吐量：路由器放高", "the router's wireless throughput", "路由器 wireless")
	f.Add("what is it", "iPhone15 v1.2.3", "C++ 的", "的了吗")
	f.Fuzz(func(t *testing.T, a, b, c, q string) {
		x := NewIndex()
		x.Add("a", a)
		x.Add("b", b)
		x.Add("c", c)
		x.Add("a2", a+" "+b)
		hits := x.Query(q, 3, nil)
		if len(hits) > 3 {
			t.Fatalf("%d hits for k=3", len(hits))
		}
		for i, h := range hits {
			if h.Score <= 0 || (i > 0 && h.Score > hits[i-1].Score) {
				t.Fatalf("hits %v", hits)
			}
		}
		for _, h := range x.Query(q, 10, func(m Meta) bool { return false }) {
			t.Fatalf("nothing allowed, found %v", h)
		}
		// The levers left off by default hold to the same rules.
		o := defaultQuery
		o.uniCovered, o.cohesion, o.runFbDocs, o.runFusion, o.runLambda = 0.5, 0.2, 5, "interp", 0.7
		hits = x.query(q, 3, nil, o)
		for i, h := range hits {
			if i >= 3 || h.Score <= 0 || (i > 0 && h.Score > hits[i-1].Score) {
				t.Fatalf("levers on: hits %v", hits)
			}
		}
	})
}

func TestExpansionBudget(t *testing.T) {
	x := NewIndex()
	for i := range 20 {
		x.Add(fmt.Sprintf("d%d", i), fmt.Sprintf("router common filler%d", i%3))
	}
	x.Add("r1", "router mesh common")
	x.Add("r2", "router mesh common")
	x.Add("z", "mesh")
	o := defaultQuery
	terms := queryTerms("router", o)
	fb := x.SearchTerms(terms, o.fbDocs, nil)
	has := func(exp []Term, t string) bool {
		return slices.ContainsFunc(exp, func(e Term) bool { return e.Text == t })
	}
	if exp := x.expansion(terms, fb, o); !has(exp, "common") {
		t.Fatalf("expansion %v, want common in it", exp)
	}
	o.fbPostings = 5 // "common" has 22 postings, "mesh" 3
	exp := x.expansion(terms, fb, o)
	if has(exp, "common") {
		t.Errorf("expansion %v over the postings budget", exp)
	}
	for _, e := range exp {
		if e.Weight <= 0 || e.Weight > o.fbWeight {
			t.Errorf("expansion term %v weighs outside (0, %v]", e, o.fbWeight)
		}
	}
}
