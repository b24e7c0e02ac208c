package tools

import (
	"bytes"
	"fmt"
	"slices"
	"unicode"
	"unicode/utf8"

	"github.com/hearth-agent/hearth/internal/jsonwire"
)

// duplicateKey reports the first object, at any depth of the valid JSON
// text b, that names a member twice, as an error the model can act on; nil
// if there is none. On text that is not valid JSON its answer is
// unspecified, but it does not panic.
//
// Arguments with a repeated key mean different things to different
// parsers: encoding/json, and so the decision hooks, resolveEffect and the
// approval that judge the decoded map, keeps the last value, while a tool
// reading the text with another parser may keep the first. So they are
// refused before anyone judges them. Names are compared as encoding/json
// matches them to a Go struct's fields (escapes decoded, case folded), so
// {"to":"bob","To":"mallory"} is refused too: a typed AddTool input
// would hold mallory while a hook reading the map saw to = bob.
func duplicateKey(b []byte) error {
	// One pass over the text, collecting each open object's member names
	// (folded) back to back in buf; when an object closes its names are
	// compared, pairwise when there are few, else sorted, so an object of
	// n members costs O(n log n). Small arguments fit the arrays and
	// allocate nothing.
	var (
		bufArr   [256]byte
		keysArr  [16]keySpan
		frameArr [8]frame
	)
	buf, keys, frames := bufArr[:0], keysArr[:0], frameArr[:0]
	expectKey := false
	for i := 0; i < len(b); {
		switch c := b[i]; c {
		case '{':
			frames = append(frames, frame{object: true, keys: len(keys)})
			expectKey = true
		case '[':
			frames = append(frames, frame{})
			expectKey = false
		case '}', ']':
			if len(frames) == 0 {
				return nil // not reached on valid text
			}
			f := frames[len(frames)-1]
			frames = frames[:len(frames)-1]
			if f.object {
				if err := checkNames(b, buf, keys[f.keys:]); err != nil {
					return err
				}
				keys = keys[:f.keys]
				if f.keys == 0 {
					buf = buf[:0]
				} else {
					buf = buf[:keys[f.keys-1].end]
				}
			}
			expectKey = false
		case ',':
			expectKey = len(frames) > 0 && frames[len(frames)-1].object
		case '"':
			end := stringEnd(b, i)
			if end > len(b) {
				return nil // not reached on valid text
			}
			if expectKey {
				k := keySpan{start: len(buf), rawStart: i, rawEnd: end}
				buf = appendName(buf, b[i:end])
				k.end = len(buf)
				keys = append(keys, k)
				expectKey = false
			}
			i = end
			continue
		}
		i++
	}
	return nil
}

// keySpan is one member name: its folded form in buf, and where its raw
// text is in the input, for the message.
type keySpan struct {
	start, end       int // in buf
	rawStart, rawEnd int // in the input, the quoted name
}

type frame struct {
	object bool
	keys   int // index in keys of this object's first name
}

// stringEnd returns the index past the string starting at b[i], in valid
// text; past len(b) for a string that does not end.
func stringEnd(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '"':
			return j + 1
		case '\\':
			j++
		}
	}
	return len(b) + 1
}

// appendName appends the folded form of a quoted member name.
func appendName(buf, quoted []byte) []byte {
	raw := quoted[1 : len(quoted)-1]
	if !plainKey(raw) {
		s, err := jsonwire.String(quoted)
		if err != nil {
			s = string(raw) // not reached on valid text
		}
		return appendFolded(buf, s)
	}
	for _, c := range raw {
		if 'a' <= c && c <= 'z' {
			c -= 'a' - 'A'
		}
		buf = append(buf, c)
	}
	return buf
}

// plainKey reports whether a raw name is ASCII without escapes.
func plainKey(raw []byte) bool {
	for _, c := range raw {
		if c >= utf8.RuneSelf || c == '\\' {
			return false
		}
	}
	return true
}

// appendFolded appends s with case folded as encoding/json folds field
// names: ASCII letters upper-cased, every other rune replaced by the
// smallest rune of its simple folding orbit (so "k" and the Kelvin sign
// match).
func appendFolded(out []byte, s string) []byte {
	for _, r := range s {
		if r < utf8.RuneSelf {
			if 'a' <= r && r <= 'z' {
				r -= 'a' - 'A'
			}
			out = append(out, byte(r))
			continue
		}
		for {
			r2 := unicode.SimpleFold(r)
			if r2 <= r {
				r = r2
				break
			}
			r = r2
		}
		out = utf8.AppendRune(out, r)
	}
	return out
}

// checkNames compares the names of one object, whose folded forms are in
// buf; it reorders names.
func checkNames(b, buf []byte, names []keySpan) error {
	if len(names) < 2 {
		return nil
	}
	name := func(k keySpan) []byte { return buf[k.start:k.end] }
	if len(names) <= 16 {
		// Few names: compare each pair, in order.
		for i := 1; i < len(names); i++ {
			for j := 0; j < i; j++ {
				if bytes.Equal(name(names[j]), name(names[i])) {
					return duplicate(b, names[j], names[i])
				}
			}
		}
		return nil
	}
	// Many: a stable sort keeps equal names in the order they came, so the
	// message names the first occurrence and the second.
	slices.SortStableFunc(names, func(x, y keySpan) int { return bytes.Compare(name(x), name(y)) })
	for i := 1; i < len(names); i++ {
		if bytes.Equal(name(names[i-1]), name(names[i])) {
			return duplicate(b, names[i-1], names[i])
		}
	}
	return nil
}

func duplicate(b []byte, first, second keySpan) error {
	a, _ := jsonwire.String(b[first.rawStart:first.rawEnd])
	c, _ := jsonwire.String(b[second.rawStart:second.rawEnd])
	if a == c {
		return fmt.Errorf("%w: duplicate key %q: name each key once in an object", ErrInvalidArguments, a)
	}
	return fmt.Errorf("%w: duplicate key %q: it names the same field as %q (names differing only in case count as one); "+
		"name each key once in an object", ErrInvalidArguments, c, a)
}
