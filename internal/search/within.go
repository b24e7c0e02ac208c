package search

import (
	"math"
	"sync"
)

// Search within a part of the index: the scores a plugin sees must not
// tell it anything about the documents it cannot see. Query and
// SearchTerms score with the statistics of the whole index (document
// count, average length, document frequencies), so a plugin's scores,
// and with several query words the order of its own results, would move
// when another plugin or another group stored documents holding the
// query's words. SearchWithin computes every statistic over the allowed
// documents only.

// SearchWithin returns the k best documents for a query text whose Meta
// allow accepts (all for a nil allow), best first, ties by id, scored by
// BM25 over the processed query (the analysis and query processing of
// Query: stop words and question words dropped; no feedback) with the
// document count, average length and each term's document frequency
// counted over the documents allow accepts only. Two indexes holding the
// same allowed documents give the same hits with the same scores, whatever
// else they hold. allow is called once per document of the index (it
// must not depend on anything but its Meta, and must not call the index);
// the postings of every query term are walked in full, so a search costs
// more than SearchTerms on a large index.
func (x *Index) SearchWithin(query string, k int, allow func(Meta) bool) []Hit {
	if k <= 0 {
		return nil
	}
	terms := queryTerms(query, defaultQuery)
	if len(terms) == 0 {
		return nil
	}
	x.mu.RLock()
	defer x.mu.RUnlock()
	if x.live == 0 {
		return nil
	}
	w := getWithin(len(x.ids))
	defer withins.Put(w)
	n, total := x.allowed(w.ok, allow)
	if n == 0 {
		return nil
	}
	avg := float64(total) / float64(n)
	a := getAccumulator(len(x.ids))
	defer accumulators.Put(a)
	for _, qt := range terms {
		if qt.Weight == 0 {
			continue
		}
		w.post = x.allowedPostings(w.post[:0], qt.Text, w.ok)
		df := len(w.post)
		if df == 0 {
			continue
		}
		idf := qt.Weight * math.Log(1+(float64(n)-float64(df)+0.5)/(float64(df)+0.5))
		sc := scorer{idf * (k1 + 1), k1 * (1 - b), k1 * b / avg}
		for _, p := range w.post {
			a.add(p.doc, sc.score(p.tf, x.lens[p.doc]))
		}
	}
	return x.top(a, k, nil)
}

// allowed marks in ok (by document number) the live documents allow
// accepts and returns their number and total length. The caller holds a
// read lock.
func (x *Index) allowed(ok []bool, allow func(Meta) bool) (n int, total int64) {
	for d, id := range x.ids {
		yes := id != "" && (allow == nil || allow(x.metas[d]))
		ok[d] = yes
		if yes {
			n++
			total += int64(x.lens[d])
		}
	}
	return n, total
}

// allowedPostings appends to out the postings of term t of the documents
// marked in ok, in no particular order. The caller holds a read lock.
func (x *Index) allowedPostings(out []posting, t string, ok []bool) []posting {
	if tid := x.seg.lookup(t); tid >= 0 {
		var buf [postingBlock]posting
		it := postingIter{p: x.seg.postings(tid)}
		for block := it.next(buf[:0]); len(block) > 0; block = it.next(buf[:0]) {
			for _, e := range block {
				if ok[e.doc] { // false for a removed document
					out = append(out, e)
				}
			}
		}
	}
	for _, e := range x.mem[t] {
		if ok[e.doc] {
			out = append(out, e)
		}
	}
	return out
}

// within is the scratch space of one SearchWithin, pooled.
type within struct {
	ok   []bool
	post []posting
}

var withins sync.Pool

func getWithin(n int) *within {
	w, _ := withins.Get().(*within)
	if w == nil {
		w = &within{}
	}
	if cap(w.ok) < n {
		w.ok = make([]bool, n, n+n/8)
	}
	w.ok = w.ok[:n]
	return w
}
