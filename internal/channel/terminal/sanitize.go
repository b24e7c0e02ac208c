package terminal

import (
	"fmt"
	"unicode/utf8"
)

// Text that Hearth did not write itself (the model's answer and reasoning,
// tool results, plugin names and titles, error messages from providers and
// plugins) must not drive the terminal: an escape sequence in it could
// write to the clipboard (OSC 52), retitle the window, move the cursor or
// erase lines, and a carriage return could overwrite what Hearth printed,
// such as an approval prompt. Sanitize keeps printable text (CJK, emoji and
// their joiners included), newlines and tabs, and renders every other
// control character visibly:
//
//   - C0 controls and DEL in caret notation: ESC as ^[, BEL as ^G, DEL as ^?;
//   - a carriage return before a newline is dropped (CRLF ends a line), a
//     lone one is shown as ^M;
//   - C1 controls (U+0080 to U+009F, which some terminals obey as 8-bit
//     escapes) and the bidirectional overrides and isolates (U+202A to
//     U+202E, U+2066 to U+2069, which reorder what is shown) as <U+XXXX>;
//   - bytes that are not UTF-8 as U+FFFD.

// Sanitize returns s safe to print on a terminal; see the rules above.
func Sanitize(s string) string {
	out, _ := appendSafe(nil, []byte(s), false, true)
	return string(out)
}

// SanitizeLine is Sanitize for text shown on one line (a table cell): it
// also renders newlines and tabs visibly, as ^J and ^I.
func SanitizeLine(s string) string {
	out, _ := appendSafe(nil, []byte(s), true, true)
	return string(out)
}

// safeStream sanitizes text that arrives in pieces (a streamed answer): a
// piece may end inside a UTF-8 sequence or between a carriage return and
// its newline, so that tail is held until the next piece or flush. The
// output of any split equals Sanitize of the whole.
type safeStream struct {
	pending []byte
}

// write returns the sanitized text that can be printed now.
func (z *safeStream) write(s string) string {
	in := append(z.pending, s...)
	out, rest := appendSafe(nil, in, false, false)
	z.pending = append(z.pending[:0:0], rest...)
	return string(out)
}

// flush returns what is held back, sanitized; the stream is empty after.
func (z *safeStream) flush() string {
	out, _ := appendSafe(nil, z.pending, false, true)
	z.pending = nil
	return string(out)
}

// appendSafe appends the sanitized form of s to dst. Unless final, an
// incomplete UTF-8 sequence or a carriage return at the end of s is not
// consumed and is returned as rest.
func appendSafe(dst, s []byte, oneLine, final bool) (out, rest []byte) {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '\r':
				if i+1 == len(s) && !final {
					return dst, s[i:]
				}
				if i+1 < len(s) && s[i+1] == '\n' {
					i++ // CRLF: the newline below ends the line
					continue
				}
				dst = append(dst, '^', 'M')
			case (c == '\n' || c == '\t') && !oneLine:
				dst = append(dst, c)
			case c < 0x20 || c == 0x7f:
				dst = append(dst, '^', c^0x40)
			default:
				dst = append(dst, c)
			}
			i++
			continue
		}
		if !final && !utf8.FullRune(s[i:]) {
			return dst, s[i:]
		}
		r, size := utf8.DecodeRune(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = utf8.AppendRune(dst, utf8.RuneError)
		case unsafeRune(r):
			dst = fmt.Appendf(dst, "<U+%04X>", r)
		default:
			dst = append(dst, s[i:i+size]...)
		}
		i += size
	}
	return dst, nil
}

// unsafeRune reports whether a non-ASCII rune must be shown as a code:
// C1 controls and the bidirectional embeddings, overrides and isolates.
func unsafeRune(r rune) bool {
	return (r >= 0x80 && r <= 0x9f) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
}
