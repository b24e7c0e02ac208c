package search

import (
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
	lens := x.lens
	for i, qt := range terms {
		if qt.Weight == 0 || slices.ContainsFunc(terms[:i], func(o Term) bool { return o.Text == qt.Text }) {
			continue
		}
		tid := x.seg.lookup(qt.Text)
		mp := x.mem[qt.Text]
		df := len(mp)
		if tid >= 0 {
			df += int(x.df[tid])
		}
		if df == 0 {
			continue
		}
		idf := qt.Weight * math.Log(1+(n-float64(df)+0.5)/(float64(df)+0.5))
		sc := scorer{idf * (k1 + 1), k1 * (1 - b), k1 * b / avg}
		if tid >= 0 {
			p := x.seg.postings(tid)
			var d uint32
			for i := 0; i < len(p); {
				// Inline unsigned varints: nearly all are one byte.
				var v uint32
				for s := uint(0); ; s += 7 {
					c := p[i]
					i++
					v |= uint32(c&0x7f) << s
					if c < 0x80 {
						break
					}
				}
				d += v
				var tf uint32
				for s := uint(0); ; s += 7 {
					c := p[i]
					i++
					tf |= uint32(c&0x7f) << s
					if c < 0x80 {
						break
					}
				}
				dl := lens[d]
				if dl == 0 {
					continue // removed
				}
				a.add(d, sc.score(tf, dl))
			}
		}
		for _, e := range mp {
			a.add(e.doc, sc.score(e.tf, lens[e.doc]))
		}
	}
	return x.top(a, k, allow)
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
