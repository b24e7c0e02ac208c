// Package search is the ranked text index that the knowledge base and the
// document memory share: BM25 over tokens that work for Chinese as for
// English. Latin, digits and other scripts with spaces are split into
// lower-cased words; runs of Han, kana and Hangul, which have no spaces,
// give each character and each pair of neighbouring characters, so
// "天气预报" is found by "天气" and by "预报" without a dictionary (the way
// Lucene's CJK analyzer indexes them). An index lives in memory
// (NewIndex) or also in a folder (Open, Flush, Close), so that a start
// does not rebuild it.
package search

import (
	"unicode"
)

// Tokens returns the index terms of text.
func Tokens(text string) []string {
	var out []string
	var word []rune
	var cjk []rune
	flushWord := func() {
		if len(word) > 0 {
			out = append(out, string(word))
			word = word[:0]
		}
	}
	flushCJK := func() {
		for i := range cjk {
			out = append(out, string(cjk[i]))
			if i+1 < len(cjk) {
				out = append(out, string(cjk[i:i+2]))
			}
		}
		cjk = cjk[:0]
	}
	for _, r := range text {
		r = fold(r)
		switch {
		case isCJK(r):
			flushWord()
			cjk = append(cjk, r)
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r):
			flushCJK()
			word = append(word, r)
		default:
			flushWord()
			flushCJK()
		}
	}
	flushWord()
	flushCJK()
	return out
}

// fold lower-cases and maps full-width ASCII forms to ASCII, so "ＡＰＩ"
// and "api" are one term.
func fold(r rune) rune {
	if r >= 0xFF01 && r <= 0xFF5E {
		r -= 0xFF01 - 0x21
	}
	return unicode.ToLower(r)
}

func isCJK(r rune) bool {
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) ||
		unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r)
}

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
