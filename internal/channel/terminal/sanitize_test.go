package terminal

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestSanitize(t *testing.T) {
	tests := []struct{ in, want, line string }{
		{"plain text", "plain text", "plain text"},
		{"中文，emoji 👨‍👩‍👧 ❤️ ok", "中文，emoji 👨‍👩‍👧 ❤️ ok", "中文，emoji 👨‍👩‍👧 ❤️ ok"},
		{"two\nlines\tand tab", "two\nlines\tand tab", "two^Jlines^Iand tab"},
		{"crlf\r\nend", "crlf\nend", "crlf^Jend"},
		{"over\rwrite", "over^Mwrite", "over^Mwrite"},
		{"\x1b]52;c;cGF5IG1hbGxvcnk=\x07", "^[]52;c;cGF5IG1hbGxvcnk=^G", "^[]52;c;cGF5IG1hbGxvcnk=^G"},
		{"\x1b]0;pwned\x1b\\", "^[]0;pwned^[\\", "^[]0;pwned^[\\"},
		{"\x1b[2K\x1b[1A", "^[[2K^[[1A", "^[[2K^[[1A"},
		{"nul\x00del\x7f", "nul^@del^?", "nul^@del^?"},
		{"c1 \u009b31m", "c1 <U+009B>31m", "c1 <U+009B>31m"},
		{"pay \u202e0001", "pay <U+202E>0001", "pay <U+202E>0001"},
		{"bad \xff\xe4\xb8 utf8", "bad \uFFFD\uFFFD\uFFFD utf8", "bad \uFFFD\uFFFD\uFFFD utf8"},
		{"trailing\r", "trailing^M", "trailing^M"},
		// Invisible characters are shown, so text looks like what it says.
		{"bob\u200b\u200bmallory", "bob<U+200B><U+200B>mallory", "bob<U+200B><U+200B>mallory"},
		{"amo\u200bunt", "amo<U+200B>unt", "amo<U+200B>unt"},
		{"a\u200cb\u200ec\u200fd\u061ce\ufefff", "a<U+200C>b<U+200E>c<U+200F>d<U+061C>e<U+FEFF>f", "a<U+200C>b<U+200E>c<U+200F>d<U+061C>e<U+FEFF>f"},
		{"line\u2028para\u2029", "line<U+2028>para<U+2029>", "line<U+2028>para<U+2029>"},
		{"\u2060\u2061\u2062\u2063\u2064", "<U+2060><U+2061><U+2062><U+2063><U+2064>", "<U+2060><U+2061><U+2062><U+2063><U+2064>"},
		{"mn\u180e \u115f\u1160\u3164 soft\u00adhyphen", "mn<U+180E> <U+115F><U+1160><U+3164> soft<U+00AD>hyphen", "mn<U+180E> <U+115F><U+1160><U+3164> soft<U+00AD>hyphen"},
		{"to\U000E0020\U000E0041\U000E007F", "to<U+E0020><U+E0041><U+E007F>", "to<U+E0020><U+E0041><U+E007F>"},
		{"zwj\u200dalone vs\ufe0f\ufe0e", "zwj<U+200D>alone vs<U+FE0F><U+FE0E>", "zwj<U+200D>alone vs<U+FE0F><U+FE0E>"},
		{"1\ufe0f 👍\u200d\u200d👍", "1<U+FE0F> 👍\u200d<U+200D>👍", "1<U+FE0F> 👍\u200d<U+200D>👍"},
		{"中\ufe0f 中\U000E0100 a\U000E0100", "中<U+FE0F> 中\U000E0100 a<U+E0100>", "中<U+FE0F> 中\U000E0100 a<U+E0100>"},
		// Emoji sequences stay whole: families, skin tones, flags (tags
		// too), keycaps, text and emoji presentation.
		{"👩🏽\u200d💻 👋🏽\u200d♂️ 🏳️\u200d🌈 🇨🇳 🏴\U000E0067\U000E0062\U000E0065\U000E006E\U000E0067\U000E007F 1️⃣ #️⃣ ☺︎ ❤️",
			"👩🏽\u200d💻 👋🏽\u200d♂️ 🏳️\u200d🌈 🇨🇳 🏴\U000E0067\U000E0062\U000E0065\U000E006E\U000E0067\U000E007F 1️⃣ #️⃣ ☺︎ ❤️",
			"👩🏽\u200d💻 👋🏽\u200d♂️ 🏳️\u200d🌈 🇨🇳 🏴\U000E0067\U000E0062\U000E0065\U000E006E\U000E0067\U000E007F 1️⃣ #️⃣ ☺︎ ❤️"},
		{"ᠠ\u180b 日本語、한국어 ﾟ", "ᠠ\u180b 日本語、한국어 ﾟ", "ᠠ\u180b 日本語、한국어 ﾟ"},
	}
	for _, tt := range tests {
		if got := Sanitize(tt.in); got != tt.want {
			t.Errorf("Sanitize(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if got := SanitizeLine(tt.in); got != tt.line {
			t.Errorf("SanitizeLine(%q) = %q, want %q", tt.in, got, tt.line)
		}
	}
}

func TestSanitizeStreamSplits(t *testing.T) {
	in := "你好\r\n👍 \x1b]52;c;eA==\x07 é 1\ufe0f\u20e3 2\ufe0f 👩\u200d💻 a\u200db 🏴\U000E0067\U000E007F\r"
	want := Sanitize(in)
	b := []byte(in)
	for i := 0; i <= len(b); i++ {
		for j := i; j <= len(b); j++ {
			var z safeStream
			got := z.write(string(b[:i])) + z.write(string(b[i:j])) + z.write(string(b[j:])) + z.flush()
			if got != want {
				t.Fatalf("split at %d,%d: %q, want %q", i, j, got, want)
			}
		}
	}
}

// checkSafe fails when out could still act on a terminal or hide text:
// no control, no invisible rune but for joiners and selectors inside the
// sequences that need them.
func checkSafe(t *testing.T, out string, oneLine bool) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Fatalf("not UTF-8: %q", out)
	}
	runes := []rune(out)
	for i, r := range runes {
		var prev, next rune
		if i > 0 {
			prev = runes[i-1]
		}
		if i+1 < len(runes) {
			next = runes[i+1]
		}
		ok := true
		switch {
		case r < 0x20:
			ok = !oneLine && (r == '\n' || r == '\t')
		case r == 0x7f || unsafeRune(r) || unicode.Is(unicode.Cf, r) && !contextual(r):
			ok = false
		case r == 0x200d:
			ok = prev != 0x200d && (unicode.Is(pictographic, prev) || emojiModifier(prev) || prev == 0xfe0f || prev == 0xe007f)
		case r == 0xfe0e || r == 0xfe0f:
			ok = unicode.Is(pictographic, prev) || strings.ContainsRune("#*0123456789", prev) && next == 0x20e3
		case r >= 0xe0020 && r <= 0xe007f:
			ok = prev == 0x1f3f4 || prev >= 0xe0020 && prev < 0xe007f
		case r >= 0xfe00 && r <= 0xfe0d || r >= 0xe0100 && r <= 0xe01ef:
			ok = unicode.Is(unicode.Han, prev)
		case contextual(r):
			ok = unicode.Is(unicode.Mongolian, prev)
		}
		if !ok {
			t.Fatalf("%U left in %q", r, out)
		}
	}
}

func FuzzSanitize(f *testing.F) {
	for _, s := range []string{"", "hi\n", "\x1b]52;c;eA==\x07", "中\r\n文", "\xe4\xb8", "\u009b\u202e", "👨‍👩‍👧",
		"bob\u200bmallory", "1\ufe0f\u20e3", "🏴\U000E0067\U000E007F", "a\u200d\ufe0f", "葛\U000E0100", "👋🏽\u200d♂️"} {
		f.Add(s, uint(1), uint(2))
	}
	f.Fuzz(func(t *testing.T, s string, i, j uint) {
		whole := Sanitize(s)
		checkSafe(t, whole, false)
		checkSafe(t, SanitizeLine(s), true)
		// Sanitized text is safe: it passes unchanged.
		if again := Sanitize(whole); again != whole {
			t.Fatalf("Sanitize(%q) = %q, and again %q", s, whole, again)
		}
		// Text with nothing to neutralise passes unchanged.
		if utf8.ValidString(s) && !strings.ContainsFunc(s, func(r rune) bool {
			return r != '\n' && r != '\t' && hiddenRune(r)
		}) && whole != s {
			t.Fatalf("safe text changed: %q -> %q", s, whole)
		}
		// Any split of a stream gives the same text.
		a, b := int(i%uint(len(s)+1)), int(j%uint(len(s)+1))
		a, b = min(a, b), max(a, b)
		var z safeStream
		if got := z.write(s[:a]) + z.write(s[a:b]) + z.write(s[b:]) + z.flush(); got != whole {
			t.Fatalf("split %d,%d of %q: %q, want %q", a, b, s, got, whole)
		}
	})
}
