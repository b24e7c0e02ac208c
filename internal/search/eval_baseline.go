package search

import "unicode"

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
