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
