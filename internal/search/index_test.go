package search

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
)

// model is the brute-force reference: the documents as text, scored by
// BM25 from scratch on every search.
type model struct {
	docs map[string]modelDoc
}

type modelDoc struct {
	terms []string
	meta  Meta
}

func newModel() *model { return &model{docs: map[string]modelDoc{}} }

func (m *model) clone() *model {
	c := newModel()
	for id, d := range m.docs {
		c.docs[id] = d
	}
	return c
}

func (m *model) put(id, text string, meta Meta) {
	if id != "" {
		m.docs[id] = modelDoc{Tokens(text), meta}
	}
}

func (m *model) search(terms []Term, k int, allow func(Meta) bool) []Hit {
	if len(m.docs) == 0 || k <= 0 {
		return nil
	}
	n := float64(len(m.docs))
	total := 0
	for _, d := range m.docs {
		total += len(d.terms)
	}
	avg := float64(total) / n
	scores := map[string]float64{}
	found := map[string]bool{}
	done := map[string]bool{}
	for _, q := range terms {
		if done[q.Text] {
			continue
		}
		done[q.Text] = true
		if q.Weight == 0 {
			continue
		}
		df := 0
		for _, d := range m.docs {
			if slices.Contains(d.terms, q.Text) {
				df++
			}
		}
		if df == 0 {
			continue
		}
		idf := math.Log(1 + (n-float64(df)+0.5)/(float64(df)+0.5))
		for id, d := range m.docs {
			tf := 0
			for _, t := range d.terms {
				if t == q.Text {
					tf++
				}
			}
			if tf == 0 || (allow != nil && !allow(d.meta)) {
				continue
			}
			dl := float64(len(d.terms))
			f := float64(tf)
			scores[id] += q.Weight * idf * (f * (k1 + 1) / (f + k1*(1-b+b*dl/avg)))
			found[id] = true
		}
	}
	var hits []Hit
	for id := range found {
		hits = append(hits, Hit{id, scores[id]})
	}
	sort.Slice(hits, func(i, j int) bool {
		if hits[i].Score != hits[j].Score {
			return hits[i].Score > hits[j].Score
		}
		return hits[i].ID < hits[j].ID
	})
	if len(hits) > k {
		hits = hits[:k]
	}
	return hits
}

var (
	latinWords = []string{"alpha", "beta", "gamma", "delta", "weather", "api", "budget", "train", "v2", "x"}
	cjkRunes   = []rune("天气预报北京上海猫狗喜欢")
)

func randomText(r *rand.Rand) string {
	var s []rune
	for range r.IntN(12) {
		if r.IntN(2) == 0 {
			s = append(s, []rune(latinWords[r.IntN(len(latinWords))])...)
			s = append(s, ' ')
		} else {
			for range 1 + r.IntN(4) {
				s = append(s, cjkRunes[r.IntN(len(cjkRunes))])
			}
			s = append(s, '，')
		}
	}
	return string(s)
}

func randomQuery(r *rand.Rand) []Term {
	var q []Term
	for _, t := range Tokens(randomText(r)) {
		if len(q) == 6 {
			break
		}
		w := 1.0
		if r.IntN(3) == 0 {
			w = []float64{0, 0.5, 2, 0.25}[r.IntN(4)]
		}
		q = append(q, Term{t, w})
	}
	return q
}

// checkAgainst compares x with m on random queries, with and without a
// filter, and every document's terms and Meta.
func checkAgainst(t *testing.T, r *rand.Rand, x *Index, m *model, step string) {
	t.Helper()
	if x.Len() != len(m.docs) {
		t.Fatalf("%s: Len = %d, want %d", step, x.Len(), len(m.docs))
	}
	for id, d := range m.docs {
		want := slices.Compact(slices.Sorted(slices.Values(d.terms)))
		if got := x.DocTerms(id); !slices.Equal(got, want) && len(want)+len(got) > 0 {
			t.Fatalf("%s: DocTerms(%q) = %q, want %q", step, id, got, want)
		}
		if mt, ok := x.Meta(id); !ok || mt != d.meta {
			t.Fatalf("%s: Meta(%q) = %v %v, want %v", step, id, mt, ok, d.meta)
		}
	}
	for range 8 {
		q := randomQuery(r)
		k := 1 + r.IntN(6)
		var allow func(Meta) bool
		if r.IntN(2) == 0 {
			odd := r.IntN(2) == 0
			allow = func(m Meta) bool { return (m.Stamp%2 == 1) == odd }
		}
		got, want := x.SearchTerms(q, k, allow), m.search(q, k, allow)
		if !sameHits(got, want, m, q) {
			t.Fatalf("%s: SearchTerms(%v, %d)\n got %v\nwant %v", step, q, k, got, want)
		}
	}
}

// sameHits reports whether got ranks like want: the same scores (± 1e-9)
// in the same order, the same ids except among documents whose scores tie.
func sameHits(got, want []Hit, m *model, q []Term) bool {
	if len(got) != len(want) {
		return false
	}
	all := m.search(q, len(m.docs), nil)
	score := map[string]float64{}
	for _, h := range all {
		score[h.ID] = h.Score
	}
	seen := map[string]bool{}
	for i := range got {
		if math.Abs(got[i].Score-want[i].Score) > 1e-9 || seen[got[i].ID] {
			return false
		}
		seen[got[i].ID] = true
		if got[i].ID != want[i].ID {
			if s, ok := score[got[i].ID]; !ok || math.Abs(s-got[i].Score) > 1e-9 {
				return false
			}
		}
	}
	return true
}

// TestIndexMatchesBruteForce runs random puts, replacements, removals
// and compactions against the brute-force model.
func TestIndexMatchesBruteForce(t *testing.T) {
	skipEvery = 2 // skips even in small postings
	defer func() { skipEvery = 64 }()
	for seed := range uint64(40) {
		r := rand.New(rand.NewPCG(seed, 7))
		x, m := NewIndex(), newModel()
		for step := range 120 {
			id := fmt.Sprintf("d%d", r.IntN(30))
			switch op := r.IntN(10); {
			case op < 6:
				meta := Meta{Tag: uint32(r.IntN(3)), Stamp: int64(r.IntN(100))}
				text := randomText(r)
				x.Put(id, text, meta)
				m.put(id, text, meta)
			case op < 8:
				x.Remove(id)
				delete(m.docs, id)
			case op < 9:
				x.wmu.Lock()
				x.compact()
				x.wmu.Unlock()
			default:
				checkAgainst(t, r, x, m, fmt.Sprintf("seed %d step %d", seed, step))
			}
		}
		checkAgainst(t, r, x, m, fmt.Sprintf("seed %d end", seed))
	}
}

// TestIndexMatchesBruteForceOnDisk adds Flush, Close and Open, and
// reopening without Close (a crash: what was not flushed is lost).
func TestIndexMatchesBruteForceOnDisk(t *testing.T) {
	skipEvery = 2
	defer func() { skipEvery = 64 }()
	for seed := range uint64(12) {
		r := rand.New(rand.NewPCG(seed, 11))
		dir := t.TempDir()
		x, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		m := newModel()
		flushed := m.clone()
		labels := []string{"k\x00global\x00", "d\x00chat:qq/1\x00plugA"}
		for step := range 150 {
			id := fmt.Sprintf("d%d", r.IntN(25))
			where := fmt.Sprintf("seed %d step %d", seed, step)
			switch op := r.IntN(14); {
			case op < 7:
				meta := Meta{Tag: x.Tag(labels[r.IntN(2)]), Stamp: int64(r.IntN(100))}
				text := randomText(r)
				x.Put(id, text, meta)
				m.put(id, text, meta)
			case op < 9:
				x.Remove(id)
				delete(m.docs, id)
			case op < 11:
				minLog = int64(r.IntN(2) * 1 << 20) // a snapshot or a log batch
				err := x.Flush()
				minLog = 1 << 20
				if err != nil {
					t.Fatal(err)
				}
				flushed = m.clone()
			case op < 12:
				if err := x.Close(); err != nil {
					t.Fatal(err)
				}
				if x, err = Open(dir); err != nil {
					t.Fatal(err)
				}
				flushed = m.clone()
			case op < 13:
				// Crash: the files are as of the last Flush.
				crash(x)
				if x, err = Open(dir); err != nil {
					t.Fatal(err)
				}
				m = flushed.clone()
			default:
				checkAgainst(t, r, x, m, where)
			}
			if x.Label(1) != "" && x.Tag(x.Label(1)) != 1 {
				t.Fatalf("%s: tags renumbered", where)
			}
		}
		checkAgainst(t, r, x, m, fmt.Sprintf("seed %d end", seed))
		x.Close()
	}
}

func TestWeightedTerms(t *testing.T) {
	x := NewIndex()
	x.Add("a", "apple banana")
	x.Add("b", "banana cherry")
	x.Add("c", "cherry durian")
	term := func(w string) string { return Tokens(w)[0] } // as analysed
	apple, cherry := term("apple"), term("cherry")
	plain := x.SearchTerms([]Term{{apple, 1}, {cherry, 1}}, 3, nil)
	heavy := x.SearchTerms([]Term{{apple, 1}, {cherry, 3}}, 3, nil)
	if len(plain) == 0 || len(heavy) == 0 || plain[0].ID != "a" || heavy[0].ID == "a" {
		t.Fatalf("plain %v, weighted %v", plain, heavy)
	}
	if got, want := x.DocTerms("b"), slices.Sorted(slices.Values(Tokens("banana cherry"))); !slices.Equal(got, want) {
		t.Fatalf("DocTerms = %q", got)
	}
	if x.DocTerms("zz") != nil {
		t.Fatal("DocTerms of a missing document")
	}
}

func TestUvarint(t *testing.T) {
	for _, v := range []uint32{0, 1, 127, 128, 300, 1 << 14, 1<<21 + 5, 1<<28 + 9, 1<<32 - 1} {
		p := binary.AppendUvarint([]byte{9}, uint64(v))
		if got, i := uvarint(p, 1); got != v || i != len(p) {
			t.Errorf("uvarint(%d) = %d at %d of %d", v, got, i, len(p))
		}
	}
}

// TestCandidates takes both ways to list the candidates in order.
func TestCandidates(t *testing.T) {
	for _, n := range []int{40, 4000} {
		a := getAccumulator(n)
		metas := make([]Meta, n)
		for _, d := range []uint32{30, 5, 17, 2, 33} {
			a.add(d, float64(d))
			metas[d].Stamp = int64(d)
		}
		got := a.candidates(4, metas, func(m Meta) bool { return m.Stamp != 17 })
		if !slices.Equal(got, []uint32{5, 30, 33}) {
			t.Errorf("n=%d: candidates = %v", n, got)
		}
	}
}
