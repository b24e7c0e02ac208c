package search

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// withinWorld is a random index holding the documents of "mine" beside
// others, with what it should hold.
type withinWorld struct {
	x     *Index
	dir   string // "" for an index in memory
	mine  map[string]string
	other map[string]string
}

func (w *withinWorld) allow(x *Index) func(Meta) bool {
	t := x.Tag("mine")
	return func(m Meta) bool { return m.Tag == t }
}

// check compares, on random queries, SearchWithin on w.x with the
// brute-force BM25 over mine alone and with SearchWithin on a fresh index
// holding mine alone (put in another order): the same hits, the same
// scores (± 1e-9).
func (w *withinWorld) check(t *testing.T, r *rand.Rand, where string) {
	t.Helper()
	alone, m := NewIndex(), newModel()
	ids := make([]string, 0, len(w.mine))
	for id := range w.mine {
		ids = append(ids, id)
	}
	r.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
	for _, id := range ids {
		alone.Put(id, w.mine[id], Meta{Tag: alone.Tag("mine")})
		m.put(id, w.mine[id], Meta{})
	}
	for range 8 {
		q := randomText(r)
		k := 1 + r.IntN(8)
		got := w.x.SearchWithin(q, k, w.allow(w.x))
		terms := queryTerms(q, defaultQuery)
		if want := m.search(terms, k, nil); !sameHits(got, want, m, terms) {
			t.Fatalf("%s: SearchWithin(%q, %d)\n got %v\nwant %v", where, q, k, got, want)
		}
		a := alone.SearchWithin(q, k, nil)
		if len(a) != len(got) {
			t.Fatalf("%s: %q: %v with others, %v alone", where, q, got, a)
		}
		for i := range got {
			if got[i].ID != a[i].ID || math.Abs(got[i].Score-a[i].Score) > 1e-9 {
				t.Fatalf("%s: %q: %v with others, %v alone", where, q, got, a)
			}
		}
	}
}

// TestSearchWithinIgnoresOtherDocuments runs random puts, replacements and
// removals of allowed and other documents, compactions, and on disk
// Flush, Close and Open, and checks that SearchWithin's hits and scores
// are those of the allowed documents alone.
func TestSearchWithinIgnoresOtherDocuments(t *testing.T) {
	skipEvery = 2
	defer func() { skipEvery = 64 }()
	for seed := range uint64(24) {
		r := rand.New(rand.NewPCG(seed, 13))
		w := &withinWorld{x: NewIndex(), mine: map[string]string{}, other: map[string]string{}}
		if seed%2 == 1 {
			w.dir = t.TempDir()
			x, err := Open(w.dir)
			if err != nil {
				t.Fatal(err)
			}
			w.x = x
		}
		other := w.x.Tag("other")
		for step := range 150 {
			id := fmt.Sprintf("d%d", r.IntN(40))
			where := fmt.Sprintf("seed %d step %d", seed, step)
			switch op := r.IntN(16); {
			case op < 8:
				text := randomText(r)
				delete(w.mine, id)
				delete(w.other, id)
				if r.IntN(3) == 0 {
					w.x.Put(id, text, Meta{Tag: w.x.Tag("mine"), Stamp: int64(step)})
					w.mine[id] = text
				} else {
					w.x.Put(id, text, Meta{Tag: other, Stamp: int64(step)})
					w.other[id] = text
				}
			case op < 10:
				w.x.Remove(id)
				delete(w.mine, id)
				delete(w.other, id)
			case op < 11:
				w.x.wmu.Lock()
				w.x.compact()
				w.x.wmu.Unlock()
			case op < 13 && w.dir != "":
				minLog = int64(r.IntN(2) * 1 << 20)
				err := w.x.Flush()
				minLog = 1 << 20
				if err != nil {
					t.Fatal(err)
				}
				if r.IntN(2) == 0 {
					if err := w.x.Close(); err != nil {
						t.Fatal(err)
					}
					x, err := Open(w.dir)
					if err != nil {
						t.Fatal(err)
					}
					w.x = x
				}
			default:
				w.check(t, r, where)
			}
		}
		w.check(t, r, fmt.Sprintf("seed %d end", seed))
		if w.dir != "" {
			w.x.Close()
		}
	}
}

// TestSearchWithinScoresDoNotMove is reviewer A's probe at the index: a
// document's score for a word does not move when documents the filter
// refuses are stored with that word, and the order of two allowed
// documents does not flip with the refused documents' statistics.
func TestSearchWithinScoresDoNotMove(t *testing.T) {
	x := NewIndex()
	mine, other := x.Tag("mine"), x.Tag("other")
	allow := func(m Meta) bool { return m.Tag == mine }
	x.Put("p1", "divorce lawyer", Meta{Tag: mine})
	x.Put("p2", "lawyer lawyer fees", Meta{Tag: mine})
	x.Put("f", "filler text", Meta{Tag: mine})
	before := x.SearchWithin("divorce lawyer", 5, allow)
	for i := range 50 {
		x.Put(fmt.Sprint("o", i), "divorce papers signed", Meta{Tag: other})
	}
	x.Remove("o3")
	after := x.SearchWithin("divorce lawyer", 5, allow)
	if fmt.Sprint(before) != fmt.Sprint(after) {
		t.Errorf("SearchWithin moved from %v to %v when refused documents were stored", before, after)
	}
	if len(after) != 2 || after[0].ID != "p1" {
		t.Errorf("hits %v", after)
	}
	if hits := x.SearchWithin("divorce", 5, func(Meta) bool { return false }); hits != nil {
		t.Errorf("nothing allowed, found %v", hits)
	}
	if hits := x.SearchWithin("the", 0, allow); hits != nil {
		t.Errorf("k = 0 found %v", hits)
	}
}
