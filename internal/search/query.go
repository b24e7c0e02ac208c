package search

import "strings"

// Query processing turns a query text into weighted terms: the terms of
// the text (see Tokens), less English stop words and Chinese question and
// function words as long as other terms remain, since "how do I make my
// wifi faster" is about "wifi" and "faster", and "红烧肉怎么做" about
// "红烧肉".

// queryOptions are the levers of Index.Query, each of which the
// evaluation turns on and off (see defaultQuery).
type queryOptions struct {
	stopWords   bool    // drop English stop words from the query
	zhStopWords bool    // drop Chinese question and function words
	uniWeight   float64 // weight of a single character of a run without spaces
	partWeight  float64 // weight of a part of a word ("15" of "iphone15")

	prf        bool    // pseudo-relevance feedback
	fbDocs     int     // feedback documents
	fbTerms    int     // expansion terms
	fbWeight   float64 // weight of the best expansion term
	fbMinDocs  int     // feedback documents an expansion term must be in
	fbNoUni    bool    // no single characters as expansion terms
	fbSharp    float64 // weigh feedback documents by exp(fbSharp*(score/best-1)), 0: by score
	fbIDF      float64 // power of the inverse document frequency in a term's weight
	fbPostings int     // most postings the expansion terms may have together, 0: any
	fbNoNum    bool    // no numbers as expansion terms
	fbNoStop   bool    // no Chinese function words or pairs holding one as expansion terms
	fusion     string  // "rrf", "interp" or "" (the expanded query alone)
	lambda     float64 // share of the expanded ranking in "interp"

	uniCovered  float64 // factor of a single character a query pair in the index covers (1: none)
	runFbDocs   int     // fbDocs for Chinese queries, 0: the same
	runFbTerms  int     // fbTerms for Chinese queries, 0: the same
	runFbWeight float64 // fbWeight for Chinese queries, 0: the same
	runFusion   string  // fusion for Chinese queries, "": the same
	runLambda   float64 // lambda with runFusion

	cohesion float64 // weigh query pairs by their cohesion over this (see Index.cohesion), 0: off

	titleWeight int // times a title is indexed (evaluation: how documents are indexed), 0: once
}

// defaultQuery are the levers that helped on the development queries of
// both the English and the Chinese collections (see eval_test.go).
var defaultQuery = queryOptions{
	stopWords:   true,
	zhStopWords: true,
	uniWeight:   1,
	partWeight:  1,
	prf:         true,
	fbDocs:      15,
	fbTerms:     20,
	fbWeight:    0.5,
	fbMinDocs:   2,
	fbNoUni:     false,
	fbSharp:     5,
	fbIDF:       0.5,
	fbPostings:  50_000,
	fbNoNum:     true,
	fbNoStop:    true,
	fusion:      "",
	lambda:      0.5,
	uniCovered:  1,
	titleWeight: TitleWeight,
}

// queryTerms returns the weighted terms of a query, each once.
func queryTerms(text string, o queryOptions) []Term {
	if o.zhStopWords {
		if t := dropZhStopWords(text); t != text && len(Tokens(t)) > 0 {
			text = t
		}
	}
	var terms []Term
	index := map[string]int{}
	content := false
	analyze(text, func(t string, kind termKind) {
		w := 1.0
		switch kind {
		case kindStop:
			if o.stopWords {
				w = 0
			}
		case kindUni:
			w = o.uniWeight
		case kindPart:
			w = o.partWeight
		}
		if w > 0 {
			content = true
		}
		if i, ok := index[t]; ok {
			terms[i].Weight = max(terms[i].Weight, w)
			return
		}
		index[t] = len(terms)
		terms = append(terms, Term{Text: t, Weight: w})
	})
	if !content {
		// Only stop words: search for them after all.
		for i := range terms {
			terms[i].Weight = 1
		}
	}
	return terms
}

// zhStopWords are Chinese question and function words, longest first
// where one starts another.
var zhStopWords = []string{
	"什么时候", "多长时间", "怎么回事", "为什么", "怎么样", "怎么办", "是不是", "有没有", "能不能", "可不可以", "要不要",
	"能否", "可否", "多少",
	"请问", "什么", "怎么", "怎样", "如何", "哪些", "哪个", "哪里", "哪儿",
	"是否", "一下", "告诉我", "几点", "几号", "哪天", "多久", "谁",
	"吗", "呢", "吧", "啊", "呀", "的", "了", "是", "么",
}

// zhKeep are words that start with or contain a function word but are
// words of their own.
var zhKeep = []string{"了解", "为了", "除了", "的确", "目的", "的士", "于是", "但是", "还是", "就是", "可是", "总是", "只是", "是非"}

// dropZhStopWords replaces Chinese question and function words in text
// with spaces, which also ends the run of characters there.
func dropZhStopWords(text string) string {
	if !strings.ContainsFunc(text, isRunScript) {
		return text
	}
	var b strings.Builder
	changed := false
outer:
	for i := 0; i < len(text); {
		rest := text[i:]
		for _, k := range zhKeep {
			if strings.HasPrefix(rest, k) {
				b.WriteString(k)
				i += len(k)
				continue outer
			}
		}
		for _, w := range zhStopWords {
			if strings.HasPrefix(rest, w) {
				b.WriteByte(' ')
				i += len(w)
				changed = true
				continue outer
			}
		}
		b.WriteByte(text[i])
		i++
	}
	if !changed {
		return text
	}
	return b.String()
}
