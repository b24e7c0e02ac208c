package search

import (
	"math"
	"slices"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"
)

// Ranking: Index.Query ranks by BM25 over the processed query (see
// queryTerms), then expands the query with the terms that the best
// documents share (pseudo-relevance feedback, after RM3: each term of the
// first feedback documents weighted by those documents' scores and by its
// inverse document frequency) and ranks again.

// Query returns the k best documents for a query text whose Meta allow
// accepts (all for a nil allow), best first, ties by id: the one entry
// point of search for the index's owners. allow must not call the index.
func (x *Index) Query(text string, k int, allow func(Meta) bool) []Hit {
	return x.query(text, k, allow, defaultQuery)
}

func (x *Index) query(text string, k int, allow func(Meta) bool, o queryOptions) []Hit {
	if k <= 0 {
		return nil
	}
	terms := queryTerms(text, o)
	if len(terms) == 0 {
		return nil
	}
	if o.uniCovered != 1 {
		terms = x.coverUnigrams(terms, o)
	}
	if o.cohesion > 0 {
		terms = x.cohesion(terms, o)
	}
	o = o.forQuery(terms)
	if !o.prf {
		return x.SearchTerms(terms, k, allow)
	}
	depth := max(k, o.fbDocs)
	if o.fusion != "" {
		depth = max(depth, 3*k)
	}
	first := x.SearchTerms(terms, depth, allow)
	if len(first) < o.fbMinDocs {
		return first[:min(k, len(first))]
	}
	exp := x.expansion(terms, first[:min(o.fbDocs, len(first))], o)
	if len(exp) == 0 {
		return first[:min(k, len(first))]
	}
	second := x.SearchTerms(append(slices.Clip(terms), exp...), depth, allow)
	return fuse(first, second, k, o)
}

// expansion returns the expansion terms of the feedback documents fb.
func (x *Index) expansion(query []Term, fb []Hit, o queryOptions) []Term {
	// Each document's share: its score, or with fbSharp its score
	// relative to the best one, sharpened.
	share := make([]float64, len(fb))
	var total float64
	for i, h := range fb {
		share[i] = h.Score
		if o.fbSharp > 0 {
			share[i] = math.Exp(o.fbSharp * (h.Score/fb[0].Score - 1))
		}
		total += share[i]
	}
	if total <= 0 {
		return nil
	}
	in := make(map[string]bool, len(query))
	for _, t := range query {
		in[t.Text] = true
	}
	type acc struct {
		w    float64 // sum of the shares of the documents holding the term
		docs int     // feedback documents holding it
	}
	seen := map[string]*acc{}
	for i, h := range fb {
		p := share[i] / total
		for _, t := range x.DocTerms(h.ID) {
			a := seen[t]
			if a == nil {
				a = &acc{}
				seen[t] = a
			}
			a.w += p
			a.docs++
		}
	}
	weight := map[string]float64{}
	for t, a := range seen {
		if a.docs >= o.fbMinDocs && !in[t] && expandable(t, o) {
			weight[t] = a.w
		}
	}
	n, df := x.docFreqs(weight)
	type cand struct {
		t  string
		w  float64
		df int
	}
	var cands []cand
	for t, w := range weight {
		if df[t] < 2 {
			continue
		}
		idf := math.Log(1 + (float64(n)-float64(df[t])+0.5)/(float64(df[t])+0.5))
		cands = append(cands, cand{t, w * math.Pow(idf, o.fbIDF), df[t]})
	}
	slices.SortFunc(cands, func(a, b cand) int {
		if a.w != b.w {
			if a.w > b.w {
				return -1
			}
			return 1
		}
		if a.t < b.t {
			return -1
		}
		return 1
	})
	// The best terms, within the postings budget: in a large index the
	// second ranking would otherwise cost many times the first.
	kept, postings := cands[:0], 0
	for _, c := range cands {
		if len(kept) == o.fbTerms {
			break
		}
		if o.fbPostings > 0 && postings+c.df > o.fbPostings {
			continue
		}
		postings += c.df
		kept = append(kept, c)
	}
	cands = kept
	if len(cands) == 0 {
		return nil
	}
	out := make([]Term, len(cands))
	for i, c := range cands {
		out[i] = Term{Text: c.t, Weight: o.fbWeight * c.w / cands[0].w}
	}
	return out
}

// expandable reports whether t may be an expansion term: not a stop word,
// not a number, not a single character of a run without spaces, and no
// Chinese function word or pair holding one.
func expandable(t string, o queryOptions) bool {
	if english.IsStopWord(t) {
		return false
	}
	if o.fbNoNum && number(t) {
		return false
	}
	if !isRunText(t) {
		return true
	}
	if o.fbNoUni && utf8.RuneCountInString(t) == 1 {
		return false
	}
	if o.fbNoStop && dropZhStopWords(t) != t {
		return false
	}
	return true
}

// number reports whether t is made of digits, dots and commas only.
func number(t string) bool {
	for i := 0; i < len(t); i++ {
		if c := t[i]; !isDigit(c) && c != '.' && c != ',' {
			return false
		}
	}
	return true
}

func isRunText(t string) bool {
	r, _ := utf8.DecodeRuneInString(t)
	return isRunScript(r)
}

// fuse combines the first ranking and the expanded one as o.fusion says.
func fuse(first, second []Hit, k int, o queryOptions) []Hit {
	if o.fusion == "" {
		return second[:min(k, len(second))]
	}
	scores := map[string]float64{}
	switch o.fusion {
	case "rrf":
		for i, h := range first {
			scores[h.ID] += 1 / float64(60+i+1)
		}
		for i, h := range second {
			scores[h.ID] += 1 / float64(60+i+1)
		}
	default: // "interp"
		for _, h := range first {
			scores[h.ID] += (1 - o.lambda) * h.Score / first[0].Score
		}
		for _, h := range second {
			scores[h.ID] += o.lambda * h.Score / second[0].Score
		}
	}
	hits := make([]Hit, 0, len(scores))
	for id, s := range scores {
		hits = append(hits, Hit{id, s})
	}
	sortHits(hits)
	return hits[:min(k, len(hits))]
}
