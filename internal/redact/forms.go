package redact

import (
	"encoding/base64"
	"fmt"
	"net/url"
	"slices"
	"strings"
)

// index finds the parts of a set of secrets in text: every GramLen-byte
// piece (gram) of every form of every secret, looked up at each position
// of the text, so finding costs one map lookup per byte whatever the
// number of secrets.
type index struct {
	secrets []string
	grams   map[int]map[string]int // gram length, gram -> index in secrets
	lens    []int                  // the gram lengths, longest first
	maxGram int
	inGram  [256]bool // the bytes some gram holds
}

// run is a stretch of text made of overlapping grams, masked as secret.
type run struct {
	start, end int
	secret     int
}

func newIndex(secrets []string) *index {
	x := &index{secrets: slices.Clone(secrets), grams: map[int]map[string]int{}}
	for i, v := range x.secrets {
		for _, f := range forms(v) {
			n := min(GramLen, len(f))
			m := x.grams[n]
			if m == nil {
				m = map[string]int{}
				x.grams[n] = m
				x.lens = append(x.lens, n)
			}
			for j := 0; j+n <= len(f); j++ {
				if _, taken := m[f[j:j+n]]; !taken {
					m[f[j:j+n]] = i
				}
				for _, c := range []byte(f[j : j+n]) {
					x.inGram[c] = true
				}
			}
		}
	}
	slices.SortFunc(x.lens, func(a, b int) int { return b - a })
	x.maxGram = x.lens[0]
	return x
}

// forms returns the ways v may appear in text: as it is, JSON-escaped,
// URL-escaped and base64-encoded.
func forms(v string) []string {
	out := []string{v,
		strings.ReplaceAll(v, "/", `\/`),                         // PHP, and others that escape '/'
		jsonEscapeAll(v, "\\u%04x"), jsonEscapeAll(v, "\\u%04X"), // HTML-safe encoders
	}
	for _, e := range []string{url.QueryEscape(v), url.PathEscape(v)} {
		out = append(out, e, lowerHex(e))
	}
	b := []byte(v)
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
		out = append(out, enc.EncodeToString(b))
		// Inside a longer encoded text (a Basic credential, a token) the
		// secret starts at any of three alignments; what its bytes alone
		// decide is the same whatever comes before and after.
		raw := enc.WithPadding(base64.NoPadding)
		for o := 1; o <= 2; o++ {
			e := raw.EncodeToString(append(make([]byte, o), b...))
			start, end := (8*o+5)/6, 8*(o+len(b))/6
			out = append(out, e[start:end])
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// jsonEscapeAll escapes every byte of v that is not a letter or a digit as
// \\uXXXX, in the given format.
func jsonEscapeAll(v, format string) string {
	var b strings.Builder
	for _, c := range []byte(v) {
		if c < 0x80 && !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			fmt.Fprintf(&b, format, c)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// lowerHex writes the hex digits of e's percent escapes in lower case.
func lowerHex(e string) string {
	b := []byte(e)
	for i := 0; i+2 < len(b); i++ {
		if b[i] == '%' {
			b[i+1], b[i+2] = lower(b[i+1]), lower(b[i+2])
		}
	}
	return string(b)
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// find returns the runs of secrets' parts in text, in order and not
// overlapping: grams found that overlap are one run.
func (x *index) find(text string) []run {
	var hits []run
	for _, n := range x.lens {
		m := x.grams[n]
		for i := 0; i+n <= len(text); {
			if !x.inGram[text[i+n-1]] {
				i += n // no gram holds that byte: none that covers it matches
				continue
			}
			if k, ok := m[text[i:i+n]]; ok {
				hits = append(hits, run{i, i + n, k})
			}
			i++
		}
	}
	if len(hits) == 0 {
		return nil
	}
	if len(x.lens) > 1 {
		slices.SortStableFunc(hits, func(a, b run) int { return a.start - b.start })
	}
	runs := hits[:1]
	for _, h := range hits[1:] {
		last := &runs[len(runs)-1]
		if h.start < last.end {
			last.end = max(last.end, h.end)
			continue
		}
		runs = append(runs, h)
	}
	return runs
}

// mask replaces each run in text with its secret's Mask.
func (x *index) mask(text string, runs []run) string {
	if len(runs) == 0 {
		return text
	}
	var b strings.Builder
	b.Grow(len(text))
	at := 0
	for _, r := range runs {
		b.WriteString(text[at:r.start])
		b.WriteString(Mask(x.secrets[r.secret]))
		at = r.end
	}
	b.WriteString(text[at:])
	return b.String()
}
