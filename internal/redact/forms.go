package redact

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/url"
	"slices"
	"strings"
)

// index finds the parts of a set of secrets in text: every GramLen-byte
// piece (gram) of every form of every secret, looked up at each position
// of the text, so finding costs one map lookup per byte whatever the
// number of secrets. Grams are kept with ASCII letters in lower case and
// looked up the same way, so an echo in another case is found too.
type index struct {
	secrets []string
	grams   map[int]map[string]int // gram length, gram -> index in secrets
	lens    []int                  // the gram lengths, longest first
	maxGram int
	inGram  [256]bool // the bytes some gram holds, in either case
	// quads is a Bloom filter of the four-byte pieces of the grams, in
	// lower case: where the four bytes ending a window are not in it, no
	// gram covering them matches and the search skips ahead.
	quads [1 << quadBits / 64]uint64
}

const quadBits = 16

// quad hashes the four bytes of text at i, in lower case, to a bit of
// index.quads.
func quad(text string, i int) uint32 {
	v := uint32(lower(text[i])) | uint32(lower(text[i+1]))<<8 | uint32(lower(text[i+2]))<<16 | uint32(lower(text[i+3]))<<24
	return (v * 0x9E3779B1) >> (32 - quadBits)
}

func (x *index) hasQuad(text string, i int) bool {
	q := quad(text, i)
	return x.quads[q/64]&(1<<(q%64)) != 0
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
			f = foldASCII(f)
			for j := 0; j+4 <= len(f); j++ {
				q := quad(f, j)
				x.quads[q/64] |= 1 << (q % 64)
			}
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
					x.inGram[c], x.inGram[upper(c)] = true, true
				}
			}
		}
	}
	slices.SortFunc(x.lens, func(a, b int) int { return b - a })
	x.maxGram = x.lens[0]
	return x
}

// forms returns the ways v may appear in text: as it is, JSON-escaped,
// URL-escaped, HTML character references, hex- and base64-encoded, and
// with a space between characters. Case does not matter (the index folds
// ASCII letters), so each form is given in one case only.
func forms(v string) []string {
	out := []string{v,
		strings.ReplaceAll(v, "/", `\/`), // PHP, and others that escape '/'
		hex.EncodeToString([]byte(v)),
		spaced(v),
	}
	// Encoders that escape every byte but letters and digits, and those
	// that leave the URL-safe punctuation alone.
	for _, keep := range []string{"", "-_.~"} {
		for _, format := range []string{
			"\\u%04x",  // JSON, HTML-safe encoders
			"&#%d;",    // HTML, decimal
			"&#x%x;",   // HTML, hex
			"&#x%04x;", // HTML, hex with leading zeros
		} {
			out = append(out, escapeAll(v, format, keep))
		}
	}
	// And encoders that escape every character.
	for _, format := range []string{"&#%d;", "&#x%x;", "&#x%04x;", "\\u%04x"} {
		var b strings.Builder
		for _, c := range []byte(v) {
			fmt.Fprintf(&b, format, c)
		}
		out = append(out, b.String())
	}
	out = append(out, url.QueryEscape(v), url.PathEscape(v))
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

// escapeAll escapes every ASCII byte of v that is not a letter, a digit
// or in keep, in the given format.
func escapeAll(v, format, keep string) string {
	var b strings.Builder
	for _, c := range []byte(v) {
		if c < 0x80 && !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') &&
			!strings.ContainsRune(keep, rune(c)) {
			fmt.Fprintf(&b, format, c)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// spaced puts a space between the characters of v.
func spaced(v string) string {
	var b strings.Builder
	for i, r := range v {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteRune(r)
	}
	return b.String()
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// foldASCII writes the ASCII letters of s in lower case.
func foldASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		b[i] = lower(c)
	}
	return string(b)
}

func upper(c byte) byte {
	if 'a' <= c && c <= 'z' {
		return c - ('a' - 'A')
	}
	return c
}

// nextUpper returns the index of the first upper-case ASCII letter of
// text at or after from, or len(text).
func nextUpper(text string, from int) int {
	for i := from; i < len(text); i++ {
		if 'A' <= text[i] && text[i] <= 'Z' {
			return i
		}
	}
	return len(text)
}

// find returns the runs of secrets' parts in text, in order and not
// overlapping: grams found that overlap are one run.
//
// Text is looked up as it is where it has no upper-case letter, and
// folded into a buffer on the stack where it has, so finding allocates
// nothing but the runs and stays linear in the text.
func (x *index) find(text string) []run {
	var hits []run
	var buf [GramLen]byte
	for _, n := range x.lens {
		m := x.grams[n]
		up := -1 // the first upper-case letter at or after i, once looked for
		for i := 0; i+n <= len(text); {
			if !x.inGram[text[i+n-1]] {
				i += n // no gram holds that byte: none that covers it matches
				continue
			}
			if n >= 4 && !x.hasQuad(text, i+n-4) {
				i += n - 3 // nor those four bytes
				continue
			}
			if up < i {
				up = nextUpper(text, i)
			}
			var k int
			var ok bool
			if up < i+n {
				for j := range n {
					buf[j] = lower(text[i+j])
				}
				k, ok = m[string(buf[:n])]
			} else {
				k, ok = m[text[i:i+n]]
			}
			if ok {
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
