package search

import (
	"slices"
	"testing"
)

func termTexts(terms []Term, weighted bool) []string {
	var out []string
	for _, t := range terms {
		if !weighted || t.Weight > 0 {
			out = append(out, t.Text)
		}
	}
	return out
}

func TestQueryTerms(t *testing.T) {
	tests := []struct {
		query string
		want  []string // terms with a weight
	}{
		{"how do I make my wifi faster", []string{"make", "wifi", "faster"}},
		{"the who", []string{"the", "who"}}, // only stop words: kept
		{"红烧肉怎么做", []string{"红", "红烧", "烧", "烧肉", "肉", "做"}},
		{"孩子打疫苗是哪天", []string{"孩", "孩子", "子", "子打", "打", "打疫", "疫", "疫苗", "苗"}},
		{"什么", []string{"什", "什么", "么"}}, // nothing else: kept
		{"我想了解一下路由器", []string{"我", "我想", "想", "想了", "了", "了解", "解", "路", "路由", "由", "由器", "器"}},
	}
	for _, tt := range tests {
		got := termTexts(queryTerms(tt.query, defaultQuery), true)
		if !slices.Equal(got, tt.want) {
			t.Errorf("queryTerms(%q) = %q\nwant %q", tt.query, got, tt.want)
		}
	}
	// Each term once.
	terms := queryTerms("天天 天气", defaultQuery)
	seen := map[string]bool{}
	for _, term := range terms {
		if seen[term.Text] {
			t.Errorf("term %q twice in %v", term.Text, terms)
		}
		seen[term.Text] = true
	}
}

func TestDropZhStopWords(t *testing.T) {
	tests := map[string]string{
		"红烧肉的做法":          "红烧肉 做法",
		"请问如何了解路由器":       "  了解路由器",
		"目的地是哪里":          "目的地  ",
		"no chinese here": "no chinese here",
	}
	for in, want := range tests {
		if got := dropZhStopWords(in); got != want {
			t.Errorf("dropZhStopWords(%q) = %q, want %q", in, got, want)
		}
	}
}
