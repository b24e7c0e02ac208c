package terminal

import "unicode"

// pictographic approximates Unicode's Extended_Pictographic property (the
// runes an emoji sequence is built on; Go's unicode package lacks it),
// leaning to include: it only decides whether a joiner or a variation
// selector after a rune is kept (see Sanitize), and keeping one after a
// symbol that is not quite an emoji hides nothing from view.
var pictographic = &unicode.RangeTable{
	R16: []unicode.Range16{
		{0x00a9, 0x00a9, 1}, {0x00ae, 0x00ae, 1},
		{0x203c, 0x203c, 1}, {0x2049, 0x2049, 1},
		{0x2122, 0x2122, 1}, {0x2139, 0x2139, 1},
		{0x2194, 0x2199, 1}, {0x21a9, 0x21aa, 1},
		{0x231a, 0x231b, 1}, {0x2328, 0x2328, 1}, {0x2388, 0x2388, 1}, {0x23cf, 0x23cf, 1},
		{0x23e9, 0x23f3, 1}, {0x23f8, 0x23fa, 1},
		{0x24c2, 0x24c2, 1},
		{0x25aa, 0x25ab, 1}, {0x25b6, 0x25b6, 1}, {0x25c0, 0x25c0, 1}, {0x25fb, 0x25fe, 1},
		{0x2600, 0x27bf, 1},
		{0x2934, 0x2935, 1},
		{0x2b05, 0x2b07, 1}, {0x2b1b, 0x2b1c, 1}, {0x2b50, 0x2b50, 1}, {0x2b55, 0x2b55, 1},
		{0x3030, 0x3030, 1}, {0x303d, 0x303d, 1}, {0x3297, 0x3297, 1}, {0x3299, 0x3299, 1},
	},
	R32: []unicode.Range32{
		{0x1f000, 0x1f1e5, 1}, // up to the regional indicators
		{0x1f200, 0x1f3fa, 1}, // up to the skin tone modifiers
		{0x1f400, 0x1faff, 1},
		{0x1fc00, 0x1fffd, 1},
	},
}

// emojiModifier reports a skin tone modifier (U+1F3FB to U+1F3FF).
func emojiModifier(r rune) bool { return r >= 0x1f3fb && r <= 0x1f3ff }
