package terminal

import (
	"strings"
	"testing"
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
	in := "你好\r\n👍 \x1b]52;c;eA==\x07 é\r"
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

// checkSafe fails when out could still act on a terminal.
func checkSafe(t *testing.T, out string, oneLine bool) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Fatalf("not UTF-8: %q", out)
	}
	for _, r := range out {
		if (r < 0x20 && !(r == '\n' || r == '\t') || (oneLine && r < 0x20)) || r == 0x7f || unsafeRune(r) {
			t.Fatalf("control %U left in %q", r, out)
		}
	}
}

func FuzzSanitize(f *testing.F) {
	for _, s := range []string{"", "hi\n", "\x1b]52;c;eA==\x07", "中\r\n文", "\xe4\xb8", "\u009b\u202e", "👨‍👩‍👧"} {
		f.Add(s, uint(1), uint(2))
	}
	f.Fuzz(func(t *testing.T, s string, i, j uint) {
		whole := Sanitize(s)
		checkSafe(t, whole, false)
		checkSafe(t, SanitizeLine(s), true)
		// Text with nothing to neutralise passes unchanged.
		if utf8.ValidString(s) && !strings.ContainsFunc(s, func(r rune) bool {
			return (r < 0x20 && r != '\n' && r != '\t') || r == 0x7f || unsafeRune(r)
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
