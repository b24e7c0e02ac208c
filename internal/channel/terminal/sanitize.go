package terminal

import (
	"fmt"
	"unicode"
	"unicode/utf8"
)

// Text that Hearth did not write itself (the model's answer and reasoning,
// tool results, plugin names and titles, error messages from providers and
// plugins) must not drive the terminal: an escape sequence in it could
// write to the clipboard (OSC 52), retitle the window, move the cursor or
// erase lines, and a carriage return could overwrite what Hearth printed,
// such as an approval prompt. Nor may it hide what it says: an invisible
// character makes "bob\u200bmallory" look like "bobmallory", and a key
// amo\u200bunt look like amount. Sanitize keeps printable text (CJK, emoji
// and their sequences included), newlines and tabs, and renders every other
// control or invisible character visibly:
//
//   - C0 controls and DEL in caret notation: ESC as ^[, BEL as ^G, DEL as ^?;
//   - a carriage return before a newline is dropped (CRLF ends a line), a
//     lone one is shown as ^M;
//   - as <U+XXXX>: C1 controls (U+0080 to U+009F, which some terminals obey
//     as 8-bit escapes); the bidirectional marks, embeddings, overrides
//     and isolates (U+200E, U+200F, U+061C, U+202A to U+202E, U+2066 to
//     U+2069, which reorder what is shown); every other format character
//     (zero-width space U+200B and non-joiner U+200C, word joiner and
//     invisible operators U+2060 to U+2064, U+FEFF, soft hyphen U+00AD,
//     U+180E, tag characters...); the line and paragraph separators
//     U+2028 and U+2029; the Hangul fillers U+115F, U+1160, U+3164 and
//     U+FFA0; the combining grapheme joiner U+034F;
//   - joiners and selectors only where they build a visible character:
//     the zero-width joiner U+200D inside an emoji sequence (after an
//     emoji, a skin tone or an emoji's U+FE0F), U+FE0E and U+FE0F after
//     an emoji (and U+FE0F in a keycap, 1 U+FE0F U+20E3), the tag
//     characters U+E0020 to U+E007F in a flag (after U+1F3F4), the
//     ideographic variation selectors (U+FE00 to U+FE0D, U+E0100 to
//     U+E01EF) after a Han character, the Mongolian ones after Mongolian;
//     anywhere else they are shown as <U+XXXX> too;
//   - bytes that are not UTF-8 as U+FFFD.

// Sanitize returns s safe to print on a terminal; see the rules above.
func Sanitize(s string) string {
	out, _ := appendSafe(nil, []byte(s), false, true, &runeContext{})
	return string(out)
}

// SanitizeLine is Sanitize for text shown on one line (a table cell): it
// also renders newlines and tabs visibly, as ^J and ^I.
func SanitizeLine(s string) string {
	out, _ := appendSafe(nil, []byte(s), true, true, &runeContext{})
	return string(out)
}

// safeStream sanitizes text that arrives in pieces (a streamed answer): a
// piece may end inside a UTF-8 sequence, between a carriage return and
// its newline, or after a rune whose fate depends on the next, so that
// tail is held until the next piece or flush; what came before is
// remembered. The output of any split equals Sanitize of the whole.
type safeStream struct {
	pending []byte
	ctx     runeContext
}

// write returns the sanitized text that can be printed now.
func (z *safeStream) write(s string) string {
	in := append(z.pending, s...)
	out, rest := appendSafe(nil, in, false, false, &z.ctx)
	z.pending = append(z.pending[:0:0], rest...)
	return string(out)
}

// flush returns what is held back, sanitized; the stream is empty after.
func (z *safeStream) flush() string {
	out, _ := appendSafe(nil, z.pending, false, true, &z.ctx)
	z.pending, z.ctx = nil, runeContext{}
	return string(out)
}

// runeContext is what the runes before decide about the next one.
type runeContext struct {
	prev  rune // the last rune read (0 at the start)
	emoji bool // prev ends an emoji (a pictograph, a skin tone, a kept U+FE0F)
	tag   bool // prev is a flag's U+1F3F4 or one of its kept tag characters
}

// appendSafe appends the sanitized form of s to dst, reading it in the
// context c (which it updates). Unless final, an incomplete UTF-8
// sequence, a carriage return or a rune that needs the next one to decide
// at the end of s is not consumed and is returned as rest.
func appendSafe(dst, s []byte, oneLine, final bool, c *runeContext) (out, rest []byte) {
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			switch {
			case b == '\r':
				if i+1 == len(s) && !final {
					return dst, s[i:]
				}
				if i+1 < len(s) && s[i+1] == '\n' {
					i++ // CRLF: the newline below ends the line
					continue
				}
				dst = append(dst, '^', 'M')
			case (b == '\n' || b == '\t') && !oneLine:
				dst = append(dst, b)
			case b < 0x20 || b == 0x7f:
				dst = append(dst, '^', b^0x40)
			default:
				dst = append(dst, b)
			}
			*c = runeContext{prev: rune(b)}
			i++
			continue
		}
		if !final && !utf8.FullRune(s[i:]) {
			return dst, s[i:]
		}
		r, size := utf8.DecodeRune(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = utf8.AppendRune(dst, utf8.RuneError)
			*c = runeContext{prev: r}
			i += size
			continue
		}
		keep, next := !unsafeRune(r), c.next(r)
		if contextual(r) {
			var more bool
			keep, more = c.keeps(r, s[i+size:], final)
			if more {
				return dst, s[i:]
			}
			next = runeContext{prev: r}
			if keep {
				next.emoji = r == 0xfe0f || r == 0xe007f
				next.tag = r >= 0xe0020 && r < 0xe007f
			}
		}
		if keep {
			dst = append(dst, s[i:i+size]...)
		} else {
			dst = fmt.Appendf(dst, "<U+%04X>", r)
		}
		*c = next
		i += size
	}
	return dst, nil
}

// unsafeRune reports whether a non-ASCII rune is always shown as a code:
// C1 controls, format characters (but for the joiner and the tags, which
// emoji use), separators and fillers that show nothing.
func unsafeRune(r rune) bool {
	switch {
	case r >= 0x80 && r <= 0x9f, r == 0x034f, r == 0x115f, r == 0x1160, r == 0x3164, r == 0xffa0,
		r == 0x2028, r == 0x2029:
		return true
	case contextual(r):
		return false
	}
	return unicode.Is(unicode.Cf, r)
}

// contextual reports the runes kept only where they build a visible
// character: the zero-width joiner, variation selectors and tags.
func contextual(r rune) bool {
	return r == 0x200d || r >= 0xfe00 && r <= 0xfe0f || r >= 0xe0020 && r <= 0xe007f ||
		r >= 0xe0100 && r <= 0xe01ef || r >= 0x180b && r <= 0x180d || r == 0x180f
}

// hiddenRune reports whether r shows nothing by itself: what Sanitize
// renders as a code in some context or all.
func hiddenRune(r rune) bool { return r < 0x20 || r == 0x7f || unsafeRune(r) || contextual(r) }

// next is the context after a rune kept as it is (but for the contextual
// ones, which appendSafe sees to).
func (c runeContext) next(r rune) runeContext {
	return runeContext{prev: r,
		emoji: unicode.Is(pictographic, r) || emojiModifier(r) && c.emoji,
		tag:   r == 0x1f3f4}
}

// keeps decides a contextual rune r followed by rest: whether it is kept,
// or (unless final) that the next rune is needed and has not arrived.
func (c *runeContext) keeps(r rune, rest []byte, final bool) (keep, more bool) {
	switch {
	case r == 0x200d:
		return c.emoji && c.prev != 0x200d, false
	case r == 0xfe0e || r == 0xfe0f:
		if unicode.Is(pictographic, c.prev) {
			return true, false
		}
		if c.prev == '#' || c.prev == '*' || c.prev >= '0' && c.prev <= '9' {
			// A keycap: 1 U+FE0F U+20E3.
			if !final && !utf8.FullRune(rest) { // also when rest is empty
				return false, true
			}
			n, _ := utf8.DecodeRune(rest)
			return n == 0x20e3, false
		}
		return false, false
	case r >= 0xe0020 && r <= 0xe007f:
		return c.tag, false
	case r >= 0xfe00 && r <= 0xfe0d || r >= 0xe0100 && r <= 0xe01ef:
		return unicode.Is(unicode.Han, c.prev), false
	default: // Mongolian free variation selectors
		return unicode.Is(unicode.Mongolian, c.prev), false
	}
}
