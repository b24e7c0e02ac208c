package search

import "strings"

// TitleWeight is how many times IndexText counts a title: a title says
// what its document is about more surely than any sentence of its text.
const TitleWeight = 2

// IndexText returns the text to index a document with a title by: the
// title, counted TitleWeight times, then the body. Every owner indexing
// titled documents (knowledge entries, doc memory) calls it, so that
// ranking treats titles alike everywhere.
func IndexText(title, body string) string {
	return indexText(title, body, TitleWeight)
}

func indexText(title, body string, weight int) string {
	title = strings.TrimSpace(title)
	if title == "" || weight <= 0 {
		return body
	}
	var b strings.Builder
	b.Grow(weight*(len(title)+1) + len(body))
	for range weight {
		b.WriteString(title)
		b.WriteByte('\n')
	}
	b.WriteString(body)
	return b.String()
}
