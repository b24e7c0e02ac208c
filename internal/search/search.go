// Package search is the ranked text index that the knowledge base, the
// document memory and graph recall share: BM25 over terms that work for
// Chinese as for English (see Tokens: Unicode normalisation and word
// boundaries, each character and each pair of neighbouring characters for
// scripts without spaces, the way Lucene's CJK analyzer indexes them,
// English stemming), with query processing and pseudo-relevance feedback
// on top (see Index.Query). An index lives in memory (NewIndex) or also in
// a folder (Open, Flush, Close), so that a start does not rebuild it.
package search

// BM25 parameters, the usual ones.
const (
	k1 = 1.2
	b  = 0.75
)

// Meta is what an index keeps about a document besides its terms, for
// its owner: a Tag to filter searches by (see Index.Tag) and a Stamp to
// tell whether the indexed text is still current (a file's modification
// time, a row's version).
type Meta struct {
	Tag   uint32
	Stamp int64
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
