package search

import (
	"cmp"
	"math"
	"slices"
	"unicode"
)

// legacyTokens is the tokenizer before text analysis (lower-cased words;
// Han, kana and Hangul unigrams and bigrams), kept as the baseline that
// evaluation compares with.
func legacyTokens(text string) []string {
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
		r = legacyFold(r)
		switch {
		case legacyCJK(r):
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
func legacyFold(r rune) rune {
	if r >= 0xFF01 && r <= 0xFF5E {
		r -= 0xFF01 - 0x21
	}
	return unicode.ToLower(r)
}

func legacyCJK(r rune) bool {
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) ||
		unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r)
}

// buildBaseline is plain BM25 over legacyTokens with the usual k1 and b:
// what the index ranked by before text analysis and query processing.
func buildBaseline(c *Collection, _ string) (Ranker, func(), error) {
	type posting struct{ doc, tf int32 }
	postings := map[string][]posting{}
	lengths := make([]float64, len(c.Docs))
	var total float64
	for i, d := range c.Docs {
		terms := legacyTokens(d.Body())
		tf := map[string]int32{}
		for _, t := range terms {
			tf[t]++
		}
		for t, f := range tf {
			postings[t] = append(postings[t], posting{int32(i), f})
		}
		lengths[i] = float64(len(terms))
		total += lengths[i]
	}
	n := float64(len(c.Docs))
	avg := total / n
	rank := func(q string) []string {
		scores := make([]float64, len(c.Docs))
		seen := map[string]bool{}
		for _, t := range legacyTokens(q) {
			if seen[t] {
				continue
			}
			seen[t] = true
			p := postings[t]
			idf := math.Log(1 + (n-float64(len(p))+0.5)/(float64(len(p))+0.5))
			for _, e := range p {
				tf := float64(e.tf)
				scores[e.doc] += idf * tf * (k1 + 1) / (tf + k1*(1-b+b*lengths[e.doc]/avg))
			}
		}
		var hits []Hit
		for i, s := range scores {
			if s > 0 {
				hits = append(hits, Hit{c.Docs[i].ID, s})
			}
		}
		sortHits(hits)
		return hitIDs(hits[:min(10, len(hits))])
	}
	return rank, func() {}, nil
}

// sortHits orders hits best first, ties by id.
func sortHits(hits []Hit) {
	slices.SortFunc(hits, func(a, b Hit) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
}
