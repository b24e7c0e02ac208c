package search

import (
	"cmp"
	"container/heap"
	"math"
	"slices"
	"sync"
)

// An accumulator holds one search's scores by document number. They are
// pooled, so a search allocates little more than its hits: a document's
// score counts only when its mark equals the search's epoch, so nothing
// needs clearing between searches.
type accumulator struct {
	scores  []float64
	mark    []uint32
	epoch   uint32
	touched []uint32
}

var accumulators sync.Pool

func getAccumulator(n int) *accumulator {
	a, _ := accumulators.Get().(*accumulator)
	if a == nil {
		a = &accumulator{}
	}
	if len(a.scores) < n {
		n += n / 8
		a.scores = make([]float64, n)
		a.mark = make([]uint32, n)
		a.epoch = 0
	}
	a.epoch++
	if a.epoch == 0 { // wrapped: old marks could match again
		clear(a.mark)
		a.epoch = 1
	}
	a.touched = a.touched[:0]
	return a
}

func (a *accumulator) add(d uint32, s float64) {
	if a.mark[d] != a.epoch {
		a.mark[d] = a.epoch
		a.scores[d] = s
		a.touched = append(a.touched, d)
		return
	}
	a.scores[d] += s
}

// SearchTerms returns the k best documents whose Meta allow accepts (all
// for a nil allow), best first, scored by BM25 with each term's score
// multiplied by its Weight; a term given twice counts once (with its
// first weight), and documents sharing no term with the query are not
// returned. Ties go by id. allow must not call the index.
func (x *Index) SearchTerms(terms []Term, k int, allow func(Meta) bool) []Hit {
	x.mu.RLock()
	defer x.mu.RUnlock()
	if x.live == 0 || k <= 0 {
		return nil
	}
	n := float64(x.live)
	avg := float64(x.total) / n
	a := getAccumulator(len(x.ids))
	defer accumulators.Put(a)
	qs := make([]qterm, 0, len(terms))
	prune := true
	for i, qt := range terms {
		if qt.Weight == 0 || slices.ContainsFunc(terms[:i], func(o Term) bool { return o.Text == qt.Text }) {
			continue
		}
		q := qterm{tid: x.seg.lookup(qt.Text), mem: x.mem[qt.Text]}
		df := len(q.mem)
		if q.tid >= 0 {
			df += int(x.df[q.tid])
		}
		if df == 0 {
			continue
		}
		idf := qt.Weight * math.Log(1+(n-float64(df)+0.5)/(float64(df)+0.5))
		q.sc = scorer{idf * (k1 + 1), k1 * (1 - b), k1 * b / avg}
		if q.sc.top <= 0 {
			prune = false // a negative weight: scores can fall
		}
		qs = append(qs, q)
	}
	if !prune {
		for _, q := range qs {
			x.addAll(a, q)
		}
		return x.top(a, k, allow)
	}
	// MaxScore: terms by their highest possible score, highest first. Once
	// the k-th best score so far beats all the rest could add, no other
	// document can enter; the rest only update the candidates, skipping
	// through their postings.
	slices.SortStableFunc(qs, func(p, q qterm) int { return cmp.Compare(q.sc.top, p.sc.top) })
	rest := 0.0
	for _, q := range qs {
		rest += q.sc.top
	}
	for j, q := range qs {
		if j > 0 && len(a.touched) >= k {
			margin := rest*(1+1e-9) + 1e-12
			if t, ok := x.threshold(a, k, allow); ok && t > margin {
				cands := a.candidates(t-margin, x.metas, allow)
				for _, q := range qs[j:] {
					x.addSkipping(a, q, cands)
				}
				a.touched = cands
				return x.top(a, k, nil)
			}
		}
		x.addAll(a, q)
		rest -= q.sc.top
	}
	return x.top(a, k, allow)
}

// qterm is a query term found in the index.
type qterm struct {
	tid int       // in the segment, or -1
	mem []posting // postings added since
	sc  scorer
}

// addAll adds q's score to every document that has it.
func (x *Index) addAll(a *accumulator, q qterm) {
	lens := x.lens
	if q.tid >= 0 {
		var buf [postingBlock]posting
		it := postingIter{p: x.seg.postings(q.tid)}
		for block := it.next(buf[:0]); len(block) > 0; block = it.next(buf[:0]) {
			for _, e := range block {
				if dl := lens[e.doc]; dl != 0 { // 0: removed
					a.add(e.doc, q.sc.score(e.tf, dl))
				}
			}
		}
	}
	for _, e := range q.mem {
		a.add(e.doc, q.sc.score(e.tf, lens[e.doc]))
	}
}

// uvarint decodes the unsigned varint at p[i:], inline: nearly all are
// one byte.
func uvarint(p []byte, i int) (uint32, int) {
	c := p[i]
	if c < 0x80 {
		return uint32(c), i + 1
	}
	v := uint32(c & 0x7f)
	for s := uint(7); ; s += 7 {
		i++
		c = p[i]
		v |= uint32(c&0x7f) << s
		if c < 0x80 {
			return v, i + 1
		}
	}
}

// threshold returns the k-th best score among the documents found so far
// that allow accepts; ok is false if there are fewer than k.
func (x *Index) threshold(a *accumulator, k int, allow func(Meta) bool) (float64, bool) {
	best := make([]float64, 0, k) // ascending
	for _, d := range a.touched {
		s := a.scores[d]
		if len(best) == k && s <= best[0] {
			continue
		}
		if allow != nil && !allow(x.metas[d]) {
			continue
		}
		i, _ := slices.BinarySearch(best, s)
		if len(best) == k {
			copy(best[:i-1], best[1:i])
			best[i-1] = s
		} else {
			best = slices.Insert(best, i, s)
		}
	}
	if len(best) < k {
		return 0, false
	}
	return best[0], true
}

// candidates returns, by number, the documents found whose score is above
// floor and that allow accepts.
func (a *accumulator) candidates(floor float64, metas []Meta, allow func(Meta) bool) []uint32 {
	var out []uint32
	keep := func(d uint32) bool { return a.scores[d] > floor && (allow == nil || allow(metas[d])) }
	if len(a.touched)*16 < len(metas) {
		for _, d := range a.touched {
			if keep(d) {
				out = append(out, d)
			}
		}
		slices.Sort(out)
		return out
	}
	// Many found: walking the numbers in order beats sorting them.
	for d := range uint32(len(metas)) {
		if a.mark[d] == a.epoch && keep(d) {
			out = append(out, d)
		}
	}
	return out
}

// addSkipping adds q's score to those of cands (increasing numbers) that
// have it, skipping postings blocks that hold none of them.
func (x *Index) addSkipping(a *accumulator, q qterm, cands []uint32) {
	if q.tid >= 0 {
		p := x.seg.postings(q.tid)
		sk := x.seg.skips(q.tid)
		var d, tf uint32 // the last decoded posting
		have := false
		i, bi := 0, 0
		for _, c := range cands {
			if !have || d < c {
				for bi < len(sk) && sk[bi].last < c {
					bi++
				}
				if bi < len(sk) && int(sk[bi].off) > i {
					i, have = int(sk[bi].off), false
					d = 0
					if bi > 0 {
						d = sk[bi-1].last
					}
				}
				for i < len(p) && (!have || d < c) {
					var v uint32
					v, i = uvarint(p, i)
					tf, i = uvarint(p, i)
					d += v
					have = true
				}
				if !have || d < c {
					break // no more postings
				}
			}
			if d == c {
				a.add(c, q.sc.score(tf, x.lens[c]))
			}
		}
	}
	j := 0
	for _, c := range cands {
		for j < len(q.mem) && q.mem[j].doc < c {
			j++
		}
		if j == len(q.mem) {
			break
		}
		if e := q.mem[j]; e.doc == c {
			a.add(c, q.sc.score(e.tf, x.lens[c]))
		}
	}
}

// scorer gives one term's BM25 score, idf·tf·(k1+1) / (tf + k1·(1-b+b·dl/avg)),
// with what does not depend on the document worked out once.
type scorer struct{ top, base, perLen float64 }

func (s scorer) score(tf, dl uint32) float64 {
	f := float64(tf)
	return s.top * f / (f + s.base + s.perLen*float64(dl))
}

// top picks the k best scored documents that allow accepts, best first.
func (x *Index) top(a *accumulator, k int, allow func(Meta) bool) []Hit {
	h := hitHeap{}
	for _, d := range a.touched {
		s := a.scores[d]
		if len(h) == k && !better(s, x.ids[d], h[0]) {
			continue
		}
		if allow != nil && !allow(x.metas[d]) {
			continue
		}
		hit := Hit{x.ids[d], s}
		if len(h) < k {
			heap.Push(&h, hit)
		} else {
			h[0] = hit
			heap.Fix(&h, 0)
		}
	}
	out := make([]Hit, len(h))
	for i := len(h) - 1; i >= 0; i-- {
		out[i] = heap.Pop(&h).(Hit)
	}
	return out
}

// better reports whether a document with score s and id beats h: a
// higher score, or the same score and a smaller id.
func better(s float64, id string, h Hit) bool {
	if s != h.Score {
		return s > h.Score
	}
	return id < h.ID
}

// hitHeap keeps the worst of the best hits found so far on top.
type hitHeap []Hit

func (h hitHeap) Len() int           { return len(h) }
func (h hitHeap) Less(i, j int) bool { return better(h[j].Score, h[j].ID, h[i]) }
func (h hitHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *hitHeap) Push(v any)        { *h = append(*h, v.(Hit)) }
func (h *hitHeap) Pop() any {
	old := *h
	v := old[len(old)-1]
	*h = old[:len(old)-1]
	return v
}
