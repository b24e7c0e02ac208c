package search

import "unicode/utf8"

// Levers that treat Chinese (and other scripts without spaces) apart from
// English: which single characters of a query count, and feedback
// settings of their own.

// runQuery reports whether most of the weighted terms of a query are
// characters or pairs of characters of a run without spaces.
func runQuery(terms []Term) bool {
	run, all := 0, 0
	for _, t := range terms {
		if t.Weight == 0 {
			continue
		}
		all++
		if isRunText(t.Text) {
			run++
		}
	}
	return all > 0 && 2*run > all
}

// forQuery returns o with the settings for Chinese queries put in place
// when terms are mostly of a run without spaces.
func (o queryOptions) forQuery(terms []Term) queryOptions {
	if !runQuery(terms) {
		return o
	}
	if o.runFbDocs > 0 {
		o.fbDocs = o.runFbDocs
	}
	if o.runFbTerms > 0 {
		o.fbTerms = o.runFbTerms
	}
	if o.runFbWeight > 0 {
		o.fbWeight = o.runFbWeight
	}
	if o.runFusion != "" {
		o.fusion, o.lambda = o.runFusion, o.runLambda
	}
	return o
}

// coverUnigrams weighs the single characters of a run that a pair of
// characters of the query covers, when that pair is in the index, by
// o.uniCovered: the pair says more than its characters, which then mostly
// add noise; a character no pair in the index covers keeps its weight, so
// a query whose pairs the index lacks still finds its characters.
func (x *Index) coverUnigrams(terms []Term, o queryOptions) []Term {
	pairs := map[string]float64{}
	for _, t := range terms {
		if t.Weight > 0 && isRunText(t.Text) && utf8.RuneCountInString(t.Text) == 2 {
			pairs[t.Text] = 0
		}
	}
	if len(pairs) == 0 {
		return terms
	}
	_, df := x.docFreqs(pairs)
	covered := map[string]bool{}
	for p, n := range df {
		if n == 0 {
			continue
		}
		r1, s := utf8.DecodeRuneInString(p)
		covered[string(r1)] = true
		covered[p[s:]] = true
	}
	for i, t := range terms {
		if covered[t.Text] && utf8.RuneCountInString(t.Text) == 1 && isRunText(t.Text) {
			terms[i].Weight *= o.uniCovered
		}
	}
	return terms
}

// cohesion weighs each pair of characters of a query by how often its
// characters, where they occur, occur together: the documents holding
// the pair over those holding its rarer character, divided by
// o.cohesion and at most 1. A word (路由) is almost always whole where
// its characters are; a pair across two words (网速更快's 速更) is rare
// beside its characters, and its high inverse document frequency would
// otherwise rank up the few documents holding it by chance.
func (x *Index) cohesion(terms []Term, o queryOptions) []Term {
	want := map[string]float64{}
	for _, t := range terms {
		if t.Weight > 0 && isRunText(t.Text) && utf8.RuneCountInString(t.Text) == 2 {
			want[t.Text] = 0
			r1, s := utf8.DecodeRuneInString(t.Text)
			want[string(r1)] = 0
			want[t.Text[s:]] = 0
		}
	}
	if len(want) == 0 {
		return terms
	}
	_, df := x.docFreqs(want)
	for i, t := range terms {
		if t.Weight == 0 || !isRunText(t.Text) || utf8.RuneCountInString(t.Text) != 2 {
			continue
		}
		r1, s := utf8.DecodeRuneInString(t.Text)
		rarer := min(df[string(r1)], df[t.Text[s:]])
		if rarer == 0 || df[t.Text] == 0 {
			continue
		}
		r := float64(df[t.Text]) / float64(rarer) / o.cohesion
		terms[i].Weight *= min(1, r)
	}
	return terms
}
