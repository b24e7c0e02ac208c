package search

import (
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	"github.com/clipperhouse/uax29/v2/graphemes"
	"github.com/clipperhouse/uax29/v2/words"
	"github.com/kljensen/snowball/english"
	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// Text analysis turns a text into index terms, the same way at index and
// at query time:
//
//   - NFKC normalisation and full case folding (golang.org/x/text), so
//     half-width katakana, decomposed accents and kana, ①, ㎏, ², "ß" and
//     a final sigma match their usual forms;
//   - word boundaries by Unicode's rules (UAX #29, clipperhouse/uax29),
//     which keep Indic vowel signs and other combining marks in their word,
//     join "don't", "1.2.3" and "example.com", and keep an emoji's
//     variation selector, skin tone and ZWJ sequence in one token;
//   - runs of scripts written without spaces (Han, kana, Hangul, Thai,
//     Lao, Khmer, Myanmar) give each grapheme cluster and each pair of
//     neighbouring clusters, so "天气预报" is found by "天气" and by "预报"
//     without a dictionary; the long vowel mark ー belongs to the run;
//   - a word mixing letters and digits or holding dots gives the whole and
//     its parts ("iphone15", "iphon", "15"; "v1.2.3", "1.2.3", "v", "1",
//     "2", "3"), hyphenated words give their parts and their concatenation
//     ("wi-fi": "wi", "fi", "wifi"), and "c++", "c#", "f#", ".net" stay
//     whole;
//   - Latin words are stemmed with the English Snowball stemmer.

// Tokens returns the index terms of text, in order, repeats included:
// NFKC and case-folded words by Unicode's rules, English ones stemmed,
// with their letter and digit parts; each character and pair of
// characters of Chinese, Japanese, Korean, Thai, Lao, Khmer and Myanmar
// (docs/search.md has the whole list). The terms may share memory with one another
// and with text: an index keeping a term as a key should strings.Clone it
// when it first sees it, so that the key does not hold the whole text.
func Tokens(text string) []string {
	var out []string
	analyze(text, func(t string, _ termKind) { out = append(out, t) })
	return out
}

// termKind says where a term came from, for query processing.
type termKind uint8

const (
	kindWord   termKind = iota // a word, stemmed if Latin
	kindStop                   // a word on the English stop list
	kindPart                   // a part of a longer word ("15" of "iphone15")
	kindUni                    // one cluster of a run without spaces
	kindBi                     // two neighbouring clusters of such a run
	kindSymbol                 // an emoji or other symbol
)

// analyze calls emit with each term of text and its kind.
func analyze(text string, emit func(term string, kind termKind)) {
	s := normalize(text)
	a := analyzer{s: s, emit: emit, runStart: -1, chainStart: -1, dotAt: -1}
	it := words.FromString(s)
	pos := 0
	for it.Next() {
		tok := it.Value()
		p := pos
		pos += len(tok)
		if p < a.skip {
			continue
		}
		a.token(tok, p)
	}
	a.flushRun()
	a.flushChain()
}

type analyzer struct {
	s    string
	emit func(string, termKind)
	skip int // tokens starting before this were joined to an earlier one

	runStart, runEnd int // the run without spaces being collected

	chainStart, chainEnd, chainWords int // hyphenated words being collected
	hyphenAt                         int // end of the "-" after the chain, or 0

	dotAt int // position after a leading "." (of ".net"), or -1
}

func (a *analyzer) token(tok string, p int) {
	r, _ := utf8.DecodeRuneInString(tok)
	switch {
	case isRunScript(r):
		a.flushChain()
		if a.runStart < 0 || a.runEnd != p {
			a.flushRun()
			a.runStart = p
		}
		a.runEnd = p + len(tok)
	case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsNumber(r):
		a.flushRun()
		a.word(tok, p)
	case unicode.Is(unicode.So, r):
		a.flushRun()
		a.flushChain()
		a.emit(stripSelectors(tok), kindSymbol)
	default:
		a.flushRun()
		switch {
		case tok == "-" && a.chainWords > 0 && a.chainEnd == p:
			a.hyphenAt = p + 1
		case tok == "." && (p == 0 || startsAfterSpace(a.s, p)):
			a.flushChain()
			a.dotAt = p + 1
		default:
			a.flushChain()
		}
	}
}

// word handles a word token at p.
func (a *analyzer) word(w string, p int) {
	end := p + len(w)
	// ".net": a dot after a space, then letters.
	if a.dotAt == p && lettersOnly(w) {
		a.dotAt = -1
		a.flushChain()
		a.emit(a.s[p-1:end], kindWord)
		return
	}
	a.dotAt = -1
	// "c++", "c#", "f#": letters, then "++" or "#", then no word character.
	if lettersOnly(w) {
		rest := a.s[end:]
		n := 0
		switch {
		case strings.HasPrefix(rest, "++"):
			n = 2
		case strings.HasPrefix(rest, "#"):
			n = 1
		}
		if n > 0 && !startsWord(rest[n:]) {
			a.flushChain()
			a.skip = end + n
			a.emit(a.s[p:end+n], kindWord)
			return
		}
	}
	// Hyphenated words: each word, then the concatenation.
	if a.chainWords > 0 && a.hyphenAt == p {
		a.chainEnd = end
		a.chainWords++
	} else {
		a.flushChain()
		a.chainStart, a.chainEnd, a.chainWords = p, end, 1
	}
	a.hyphenAt = 0
	a.wordTerms(w)
}

// wordTerms emits the terms of one word: the word, and its parts when it
// mixes letters and digits or holds punctuation.
func (a *analyzer) wordTerms(w string) {
	letters, digits, other := classify(w)
	switch {
	case !digits && !other:
		a.emitWord(w, kindWord)
		return
	case !letters && !other:
		a.emit(w, kindWord) // a plain number
		return
	case !digits && strings.IndexByte(w, '\'') >= 0 && !strings.ContainsAny(w, ".:,;"):
		a.emitWord(w, kindWord) // "don't", "john's": the stemmer knows them
		return
	}
	a.emit(w, kindWord)
	if len(w) > 2 && w[0] == 'v' && isDigit(w[1]) && strings.IndexByte(w, '.') > 0 {
		a.emit(w[1:], kindPart) // "v1.2.3" is found by "1.2.3"
	}
	// Parts: maximal runs of letters (with their marks) or of digits.
	start, inDigits := -1, false
	for i, r := range w {
		isL := unicode.IsLetter(r) || unicode.Is(unicode.M, r)
		isD := !isL && unicode.IsNumber(r)
		switch {
		case start >= 0 && ((isL && !inDigits) || (isD && inDigits)):
			continue
		case start >= 0:
			a.part(w[start:i], inDigits)
			start = -1
		}
		if isL || isD {
			start, inDigits = i, isD
		}
	}
	if start >= 0 {
		a.part(w[start:], inDigits)
	}
}

func (a *analyzer) part(w string, digits bool) {
	if digits {
		a.emit(w, kindPart)
		return
	}
	a.emitWord(w, kindPart)
}

// emitWord emits a word of letters, stemmed if it is Latin; a word on the
// English stop list is emitted with kindStop.
func (a *analyzer) emitWord(w string, kind termKind) {
	if !latin(w) {
		a.emit(w, kind)
		return
	}
	if english.IsStopWord(w) {
		kind = kindStop
	}
	a.emit(stem(w), kind)
}

// flushChain ends the hyphenated words being collected, emitting their
// concatenation if there were several ("wi-fi" gives "wifi").
func (a *analyzer) flushChain() {
	if a.chainWords > 1 {
		w := strings.ReplaceAll(a.s[a.chainStart:a.chainEnd], "-", "")
		if letters, _, other := classify(w); letters && !other {
			a.emitWord(w, kindWord)
		} else {
			a.emit(w, kindWord)
		}
	}
	a.chainStart, a.chainEnd, a.chainWords, a.hyphenAt = -1, 0, 0, 0
}

// flushRun emits the clusters and pairs of clusters of the run without
// spaces being collected.
func (a *analyzer) flushRun() {
	if a.runStart < 0 {
		return
	}
	run := a.s[a.runStart:a.runEnd]
	a.runStart = -1
	if simpleRun(run) {
		// One rune per cluster: the common case of Chinese and Japanese.
		prev := -1
		for i := range run {
			if prev >= 0 {
				a.emit(run[prev:i], kindUni)
				// The pair starting at prev ends where the rune after i ends.
				_, n := utf8.DecodeRuneInString(run[i:])
				a.emit(run[prev:i+n], kindBi)
			}
			prev = i
		}
		if prev >= 0 {
			a.emit(run[prev:], kindUni)
		}
		return
	}
	g := graphemes.FromString(run)
	prev, prevEnd := -1, 0
	pos := 0
	for g.Next() {
		c := g.Value()
		start := pos
		pos += len(c)
		if !hasWordRune(c) {
			// A lone mark or selector is never a term; it ends nothing.
			continue
		}
		if prev >= 0 {
			a.emit(run[prev:prevEnd], kindUni)
			a.emit(run[prev:pos], kindBi)
		}
		prev, prevEnd = start, pos
	}
	if prev >= 0 {
		a.emit(run[prev:prevEnd], kindUni)
	}
}

// normalize returns text in NFKC, case folded, with typographic
// apostrophes made plain; ASCII text takes a short path.
func normalize(text string) string {
	ascii, upper := true, false
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c >= utf8.RuneSelf {
			ascii = false
			break
		}
		if 'A' <= c && c <= 'Z' {
			upper = true
		}
	}
	if ascii {
		if upper {
			return strings.ToLower(text)
		}
		return text
	}
	if !utf8.ValidString(text) {
		text = strings.ToValidUTF8(text, " ")
	}
	c := folders.Get().(*cases.Caser)
	s := c.String(norm.NFKC.String(text))
	folders.Put(c)
	if strings.ContainsAny(s, "\u2018\u2019") {
		s = apostrophes.Replace(s)
	}
	return s
}

var (
	folders     = sync.Pool{New: func() any { c := cases.Fold(); return &c }}
	apostrophes = strings.NewReplacer("\u2018", "'", "\u2019", "'")
)

// isRunScript reports whether r belongs to a script written without spaces
// between words.
func isRunScript(r rune) bool {
	if r < 0x0E00 {
		return false
	}
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul,
		unicode.Thai, unicode.Lao, unicode.Khmer, unicode.Myanmar) ||
		r == 'ー' // the long vowel mark is of the Common script
}

// simpleRun reports whether every rune of run is its own cluster: Han,
// kana or Hangul syllables, with no mark, selector or joiner.
func simpleRun(run string) bool {
	for _, r := range run {
		if r < 0x3000 || (r >= 0xFE00 && r <= 0xFE0F) || r >= 0xE0100 ||
			(r >= 0x3099 && r <= 0x309A) || (r >= 0x1100 && r <= 0x11FF) {
			return false
		}
	}
	return true
}

func hasWordRune(c string) bool {
	for _, r := range c {
		if unicode.IsLetter(r) || unicode.IsNumber(r) {
			return true
		}
	}
	return false
}

// classify reports whether w has letters, digits, and anything else
// (marks, which belong to letters, aside).
func classify(w string) (letters, digits, other bool) {
	for _, r := range w {
		switch {
		case r < utf8.RuneSelf && ('a' <= r && r <= 'z'):
			letters = true
		case r < utf8.RuneSelf && isDigit(byte(r)):
			digits = true
		case unicode.IsLetter(r) || unicode.Is(unicode.M, r):
			letters = true
		case unicode.IsNumber(r):
			digits = true
		default:
			other = true
		}
	}
	return letters, digits, other
}

func lettersOnly(w string) bool {
	l, d, o := classify(w)
	return l && !d && !o
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// latin reports whether w is written in the Latin script (with an
// apostrophe allowed), the words the English stemmer is for.
func latin(w string) bool {
	for i := 0; i < len(w); i++ {
		c := w[i]
		if c >= utf8.RuneSelf {
			for _, r := range w[i:] {
				if r != '\'' && !unicode.Is(unicode.Latin, r) && !unicode.Is(unicode.M, r) {
					return false
				}
			}
			return true
		}
		if !('a' <= c && c <= 'z') && c != '\'' {
			return false
		}
	}
	return true
}

// startsWord reports whether s begins with a letter or digit.
func startsWord(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsNumber(r))
}

// startsAfterSpace reports whether the text before p ends in a space or
// an opening bracket or quote.
func startsAfterSpace(s string, p int) bool {
	r, _ := utf8.DecodeLastRuneInString(s[:p])
	return unicode.IsSpace(r) || unicode.In(r, unicode.Ps, unicode.Pi) || r == '"' || r == '\''
}

// stripSelectors drops variation selectors from a symbol, so "❤️" and "❤"
// are one term.
func stripSelectors(t string) string {
	if !strings.ContainsRune(t, '\uFE0F') && !strings.ContainsRune(t, '\uFE0E') {
		return t
	}
	return strings.Map(func(r rune) rune {
		if r == '\uFE0F' || r == '\uFE0E' {
			return -1
		}
		return r
	}, t)
}

// stem returns the English Snowball stem of a lower-case Latin word,
// remembering the stems of the most frequent words.
func stem(w string) string {
	if len(w) <= 2 {
		return w
	}
	if s, ok := stems.Load(w); ok {
		return s.(string)
	}
	s := english.Stem(w, true)
	if stemCount.Load() < maxStems {
		stemCount.Add(1)
		stems.Store(strings.Clone(w), s)
	}
	return s
}

// maxStems bounds the stem cache: past it, stems are computed each time.
const maxStems = 1 << 16

var (
	stems     sync.Map // word -> stem
	stemCount atomic.Int64
)
