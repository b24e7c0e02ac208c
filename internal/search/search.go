// Package search is the ranked text index that the knowledge base, the
// document memory and graph recall share: BM25 over terms that work for
// Chinese as for English (see Tokens: Unicode normalisation and word
// boundaries, each character and each pair of neighbouring characters for
// scripts without spaces, the way Lucene's CJK analyzer indexes them,
// English stemming), with query processing and pseudo-relevance feedback
// on top (see Index.Query).
package search

import (
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
)

// BM25 parameters, the usual ones.
const (
	k1 = 1.2
	b  = 0.75
)

// Index is a BM25 index of documents by id. It is safe for concurrent use.
// Documents are numbered; a term's postings are a slice of (number,
// frequency), so a search adds up scores in an array instead of maps.
type Index struct {
	mu       sync.RWMutex
	num      map[string]int32 // id -> number
	docs     []doc            // by number
	free     []int32          // numbers of removed documents, reused
	postings map[string][]posting
	total    int // sum of the live documents' lengths
	tags     map[string]uint32
	labels   []string // by tag - 1
}

type doc struct {
	id     string // "" once removed
	length int32
	terms  []string // distinct, for removal
	meta   Meta
}

// Meta is what an index keeps about a document besides its terms, for
// its owner: a Tag to filter searches by (see Index.Tag) and a Stamp to
// tell whether the indexed text is still current (a file's modification
// time, a row's version).
type Meta struct {
	Tag   uint32
	Stamp int64
}

type posting struct {
	doc int32
	tf  int32
}

// NewIndex returns an empty index.
func NewIndex() *Index {
	return &Index{num: map[string]int32{}, postings: map[string][]posting{}}
}

// Add indexes text under id, replacing what id had, with a zero Meta.
func (x *Index) Add(id, text string) { x.Put(id, text, Meta{}) }

// Put indexes text under id with m, replacing what id had.
func (x *Index) Put(id, text string, m Meta) {
	terms := Tokens(text)
	tf := make(map[string]int32, len(terms))
	for _, t := range terms {
		tf[t]++
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	x.remove(id)
	var n int32
	if k := len(x.free); k > 0 {
		n, x.free = x.free[k-1], x.free[:k-1]
	} else {
		n = int32(len(x.docs))
		x.docs = append(x.docs, doc{})
	}
	d := doc{id: id, length: int32(len(terms)), terms: make([]string, 0, len(tf)), meta: m}
	for t, f := range tf {
		d.terms = append(d.terms, t)
		x.postings[t] = append(x.postings[t], posting{n, f})
	}
	x.docs[n] = d
	x.num[id] = n
	x.total += len(terms)
}

// Remove drops id.
func (x *Index) Remove(id string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.remove(id)
}

func (x *Index) remove(id string) {
	n, ok := x.num[id]
	if !ok {
		return
	}
	for _, t := range x.docs[n].terms {
		p := x.postings[t]
		for i := range p {
			if p[i].doc == n {
				p[i] = p[len(p)-1]
				p = p[:len(p)-1]
				break
			}
		}
		if len(p) == 0 {
			delete(x.postings, t)
		} else {
			x.postings[t] = p
		}
	}
	x.total -= int(x.docs[n].length)
	x.docs[n] = doc{}
	x.free = append(x.free, n)
	delete(x.num, id)
}

// Tag returns the number standing for label, the same for the same label
// as long as the index lives (an owner keeps, say, "kind, scope, writer"
// in it); never 0, which is the tag of no label.
func (x *Index) Tag(label string) uint32 {
	x.mu.Lock()
	defer x.mu.Unlock()
	if t, ok := x.tags[label]; ok {
		return t
	}
	if x.tags == nil {
		x.tags = map[string]uint32{}
	}
	x.labels = append(x.labels, label)
	t := uint32(len(x.labels))
	x.tags[label] = t
	return t
}

// Label returns the label of tag, "" for 0 or an unknown tag.
func (x *Index) Label(tag uint32) string {
	x.mu.RLock()
	defer x.mu.RUnlock()
	if tag == 0 || int(tag) > len(x.labels) {
		return ""
	}
	return x.labels[tag-1]
}

// Meta returns id's Meta; ok is false if id is not indexed.
func (x *Index) Meta(id string) (m Meta, ok bool) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	n, ok := x.num[id]
	if !ok {
		return Meta{}, false
	}
	return x.docs[n].meta, true
}

// Each calls fn for each document whose id starts with prefix, in no
// order, until fn returns false. fn must not call the index.
func (x *Index) Each(prefix string, fn func(id string, m Meta) bool) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	for id, n := range x.num {
		if strings.HasPrefix(id, prefix) && !fn(id, x.docs[n].meta) {
			return
		}
	}
}

// Len returns the number of documents.
func (x *Index) Len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return len(x.num)
}

// Hit is one document found.
type Hit struct {
	ID    string
	Score float64
}

// Search returns the k best documents for query, best first; documents
// sharing no term with it are not returned. Ties go by id, so results are
// stable.
func (x *Index) Search(query string, k int) []Hit { return x.SearchFilter(query, k, nil) }

// SearchFilter is Search over the documents whose Meta allow accepts (all
// of them for a nil allow). allow must not call the index.
func (x *Index) SearchFilter(query string, k int, allow func(Meta) bool) []Hit {
	toks := Tokens(query)
	terms := make([]Term, len(toks))
	for i, t := range toks {
		terms[i] = Term{Text: t, Weight: 1}
	}
	return x.SearchTerms(terms, k, allow)
}

// Term is one term of a weighted query: an index term (as Tokens gives)
// and the factor its BM25 score is multiplied by.
type Term struct {
	Text   string
	Weight float64
}

// SearchTerms returns the k best documents whose Meta allow accepts (all
// for a nil allow), scored by BM25 with each term's score multiplied by
// its Weight; a term given twice counts once (its first weight). Ties go
// by id. allow must not call the index.
func (x *Index) SearchTerms(terms []Term, k int, allow func(Meta) bool) []Hit {
	x.mu.RLock()
	defer x.mu.RUnlock()
	n := float64(len(x.num))
	if n == 0 || k <= 0 {
		return nil
	}
	avg := float64(x.total) / n
	scores := make([]float64, len(x.docs))
	var touched []int32
	seen := map[string]bool{}
	for _, qt := range terms {
		t := qt.Text
		if seen[t] {
			continue
		}
		seen[t] = true
		p := x.postings[t]
		if len(p) == 0 || qt.Weight == 0 {
			continue
		}
		idf := qt.Weight * math.Log(1+(n-float64(len(p))+0.5)/(float64(len(p))+0.5))
		for _, e := range p {
			if allow != nil && !allow(x.docs[e.doc].meta) {
				continue
			}
			tf := float64(e.tf)
			dl := float64(x.docs[e.doc].length)
			if scores[e.doc] == 0 {
				touched = append(touched, e.doc)
			}
			scores[e.doc] += idf * tf * (k1 + 1) / (tf + k1*(1-b+b*dl/avg))
		}
	}
	hits := make([]Hit, len(touched))
	for i, d := range touched {
		hits[i] = Hit{x.docs[d].id, scores[d]}
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

// DocTerms returns the distinct terms of document id, sorted; nil if id
// is not indexed.
func (x *Index) DocTerms(id string) []string {
	x.mu.RLock()
	defer x.mu.RUnlock()
	n, ok := x.num[id]
	if !ok {
		return nil
	}
	out := slices.Clone(x.docs[n].terms)
	slices.Sort(out)
	return out
}
