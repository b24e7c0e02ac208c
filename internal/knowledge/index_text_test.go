package knowledge

import (
	"maps"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/internal/search"
)

// terms counts the index terms of text.
func terms(text string) map[string]int {
	out := map[string]int{}
	for _, t := range search.Tokens(text) {
		out[t]++
	}
	return out
}

// TestIndexTextKeepsTheTerms checks that indexing entries through
// search.IndexText gives every entry the terms it had when the title was
// repeated by hand (the title's line, or the name's last part, once in
// the text or name and search.TitleWeight-1 times more), so a persisted
// index stays current, and the title counts TitleWeight times.
func TestIndexTextKeepsTheTerms(t *testing.T) {
	before := func(name, text string) string {
		return strings.Repeat(titleOf(text, name)+"\n", search.TitleWeight-1) + name + "\n" + text
	}
	for _, c := range []struct{ name, text, title string }{
		{"wifi", "# Home WiFi\nThe password is on the router.\n", "Home WiFi"},
		{"recipes/红烧肉", "---\ntags: food\n---\n\n## 红烧肉的做法\n五花肉焯水。", "红烧肉的做法"},
		{"notes/today", "First line is the title\nsecond line\n", "First line is the title"},
		{"notes/crlf", "# Windows title\r\nbody\r\n", "Windows title"},
		{"a/b/empty", "", "empty"},
		{"a/b/blank", "\n\n   \n", "blank"},
		{"top", "no newline at the end", "no newline at the end"},
		{"later", "intro line\n\n# The heading wins\nbody", "The heading wins"},
		{"hashtag", "#tag not a heading\n", "#tag not a heading"},
	} {
		if got := titleOf(c.text, c.name); got != c.title {
			t.Errorf("%s: title %q, want %q", c.name, got, c.title)
		}
		got, want := terms(indexText(c.name, c.text)), terms(before(c.name, c.text))
		if !maps.Equal(got, want) {
			t.Errorf("%s: terms %v, were %v", c.name, got, want)
		}
		for _, tok := range search.Tokens(titleOf(c.text, c.name)) {
			if got[tok] < search.TitleWeight {
				t.Errorf("%s: title term %q counts %d times", c.name, tok, got[tok])
			}
		}
	}
}
