// Package jsonwire holds the few JSON pieces the plugin protocol's hot path
// needs, so a message is scanned once instead of validated, decoded by
// reflection and copied by encoding/json: a validating scanner that finds
// where a value ends without decoding it, iteration over an object's
// members as raw values, and string quoting and unquoting that agree with
// encoding/json. Anything out of the ordinary (escaped keys, a value of an
// unexpected type) is left to encoding/json by the callers, so the fast
// path never decides differently from it; the tests check that against
// encoding/json on fuzzed input.
package jsonwire

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// MaxDepth is the deepest nesting accepted, as in encoding/json.
const MaxDepth = 10000

// SyntaxError is invalid JSON at Offset.
type SyntaxError struct {
	Offset int
	msg    string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("invalid JSON at offset %d: %s", e.Offset, e.msg)
}

func errAt(i int, msg string) error { return &SyntaxError{Offset: i, msg: msg} }

// SkipSpace returns the index of the first byte at or after i that is not
// JSON whitespace.
func SkipSpace(b []byte, i int) int {
	for i < len(b) && b[i] <= ' ' && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// TrimSpace returns b without leading and trailing JSON whitespace (space,
// tab, newline, carriage return; unlike bytes.TrimSpace, not form feeds or
// other Unicode spaces, which JSON does not allow).
func TrimSpace(b []byte) []byte {
	b = b[SkipSpace(b, 0):]
	end := len(b)
	for end > 0 && (b[end-1] == ' ' || b[end-1] == '\t' || b[end-1] == '\n' || b[end-1] == '\r') {
		end--
	}
	return b[:end]
}

// Valid reports whether b is one JSON value, optionally surrounded by
// whitespace. It accepts exactly what json.Valid accepts.
func Valid(b []byte) bool {
	end, err := Skip(b, SkipSpace(b, 0))
	return err == nil && SkipSpace(b, end) == len(b)
}

// Skip validates the JSON value that starts at b[i] and returns the index
// just past it.
func Skip(b []byte, i int) (int, error) { return skip(b, i, 0) }

func skip(b []byte, i, depth int) (int, error) {
	if i >= len(b) {
		return i, errAt(i, "unexpected end of input")
	}
	switch c := b[i]; {
	case c == '"':
		end, _, err := skipString(b, i)
		return end, err
	case c == '{':
		if depth >= MaxDepth {
			return i, errAt(i, "nested too deeply")
		}
		i = SkipSpace(b, i+1)
		if i < len(b) && b[i] == '}' {
			return i + 1, nil
		}
		for {
			if i >= len(b) || b[i] != '"' {
				return i, errAt(i, "expected a member name")
			}
			end, _, err := skipString(b, i)
			if err != nil {
				return end, err
			}
			i = SkipSpace(b, end)
			if i >= len(b) || b[i] != ':' {
				return i, errAt(i, "expected ':' after a member name")
			}
			if i, err = skip(b, SkipSpace(b, i+1), depth+1); err != nil {
				return i, err
			}
			i = SkipSpace(b, i)
			if i < len(b) && b[i] == ',' {
				i = SkipSpace(b, i+1)
				continue
			}
			if i < len(b) && b[i] == '}' {
				return i + 1, nil
			}
			return i, errAt(i, "expected ',' or '}' in an object")
		}
	case c == '[':
		if depth >= MaxDepth {
			return i, errAt(i, "nested too deeply")
		}
		i = SkipSpace(b, i+1)
		if i < len(b) && b[i] == ']' {
			return i + 1, nil
		}
		for {
			var err error
			if i, err = skip(b, i, depth+1); err != nil {
				return i, err
			}
			i = SkipSpace(b, i)
			if i < len(b) && b[i] == ',' {
				i = SkipSpace(b, i+1)
				continue
			}
			if i < len(b) && b[i] == ']' {
				return i + 1, nil
			}
			return i, errAt(i, "expected ',' or ']' in an array")
		}
	case c == '-' || (c >= '0' && c <= '9'):
		return skipNumber(b, i)
	case c == 't':
		return literal(b, i, "true")
	case c == 'f':
		return literal(b, i, "false")
	case c == 'n':
		return literal(b, i, "null")
	}
	return i, errAt(i, fmt.Sprintf("unexpected character %q", b[i]))
}

func literal(b []byte, i int, lit string) (int, error) {
	if len(b)-i >= len(lit) && string(b[i:i+len(lit)]) == lit {
		return i + len(lit), nil
	}
	return i, errAt(i, "invalid literal")
}

// skipString returns the index past the string starting at b[i] (a '"'),
// and whether it holds escapes.
func skipString(b []byte, i int) (int, bool, error) {
	escaped := false
	i++
	for {
		for i < len(b) && plain[b[i]] {
			i++
		}
		if i >= len(b) {
			return i, escaped, errAt(i, "unexpected end of input in a string")
		}
		switch c := b[i]; {
		case c == '"':
			return i + 1, escaped, nil
		case c == '\\':
			escaped = true
			i++
			if i >= len(b) {
				return i, escaped, errAt(i, "unexpected end of input in a string")
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if len(b)-i <= 4 || !isHex(b[i+1]) || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) {
					return i, escaped, errAt(i, "invalid \\u escape")
				}
				i += 4
			default:
				return i, escaped, errAt(i, "invalid escape")
			}
			i++
		default:
			return i, escaped, errAt(i, "control character in a string")
		}
	}
}

// plain marks the bytes a string holds as they are: not a quote, a
// backslash or a control character.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func skipNumber(b []byte, i int) (int, error) {
	start := i
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	default:
		return i, errAt(start, "invalid number")
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return i, errAt(start, "invalid number")
		}
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return i, errAt(start, "invalid number")
		}
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	}
	return i, nil
}

// Object reads the members of a JSON object one by one, validating as it
// goes. Keys are returned raw (without the quotes); Escaped says a key
// holds escapes or invalid UTF-8, which callers hand to encoding/json
// rather than compare.
type Object struct {
	b     []byte
	i     int
	first bool
	done  bool
	valid bool // the text was checked before: find ends only
}

// NewObject starts reading the object that is all of b (surrounding
// whitespace allowed); a value that is not an object is an error.
func NewObject(b []byte) (Object, error) {
	i := SkipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return Object{done: true}, errAt(i, "not a JSON object")
	}
	return Object{b: b, i: i + 1, first: true}, nil
}

// NewValidObject is NewObject for text already known to be valid JSON (a
// value inside a message the connection has checked whole): members are
// found without checking them a second time. On text that is not valid
// JSON its results are unspecified, but it neither panics nor loops.
func NewValidObject(b []byte) (Object, error) {
	o, err := NewObject(b)
	o.valid = true
	return o, err
}

// Member is one member of an object.
type Member struct {
	Key     []byte // raw, without quotes
	Escaped bool   // Key holds escapes or invalid UTF-8
	Value   []byte // the raw value
}

// Next returns the next member; ok is false after the last one, when the
// rest of the input has been checked to be only whitespace.
func (o *Object) Next() (m Member, ok bool, err error) {
	if o.done {
		return m, false, nil
	}
	i := SkipSpace(o.b, o.i)
	if o.first {
		o.first = false
		if i < len(o.b) && o.b[i] == '}' {
			return m, false, o.finish(i + 1)
		}
	} else {
		switch {
		case i < len(o.b) && o.b[i] == '}':
			return m, false, o.finish(i + 1)
		case i < len(o.b) && o.b[i] == ',':
			i = SkipSpace(o.b, i+1)
		default:
			return m, false, errAt(i, "expected ',' or '}' in an object")
		}
	}
	if i >= len(o.b) || o.b[i] != '"' {
		return m, false, errAt(i, "expected a member name")
	}
	var end int
	var escaped bool
	if o.valid {
		end, err = skipValidString(o.b, i)
	} else {
		end, escaped, err = skipString(o.b, i)
	}
	if err != nil {
		return m, false, err
	}
	m.Key = o.b[i+1 : end-1]
	m.Escaped = escaped || !plainASCII(m.Key) && (hasByte(m.Key, '\\') || !utf8.Valid(m.Key))
	i = SkipSpace(o.b, end)
	if i >= len(o.b) || o.b[i] != ':' {
		return m, false, errAt(i, "expected ':' after a member name")
	}
	i = SkipSpace(o.b, i+1)
	if o.valid {
		end, err = skipValid(o.b, i)
	} else {
		end, err = skip(o.b, i, 1)
	}
	if err != nil {
		return m, false, err
	}
	m.Value = o.b[i:end]
	o.i = end
	return m, true, nil
}

func (o *Object) finish(i int) error {
	o.done = true
	if j := SkipSpace(o.b, i); j != len(o.b) {
		return errAt(j, "data after the object")
	}
	return nil
}

// skipValidString returns the index past the string starting at b[i] in
// text known to be valid: the first quote not escaped.
func skipValidString(b []byte, i int) (int, error) {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '"':
			return j + 1, nil
		case '\\':
			j++
		}
	}
	return len(b), errAt(len(b), "unexpected end of input in a string")
}

// skipValid returns the index past the value starting at b[i] in text
// known to be valid.
func skipValid(b []byte, i int) (int, error) {
	if i >= len(b) {
		return i, errAt(i, "unexpected end of input")
	}
	switch b[i] {
	case '"':
		return skipValidString(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				end, err := skipValidString(b, j)
				if err != nil {
					return end, err
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1, nil
				}
			}
		}
		return len(b), errAt(len(b), "unexpected end of input")
	}
	j := i
	for j < len(b) && !delim[b[j]] {
		j++
	}
	if j == i {
		return i, errAt(i, "expected a value")
	}
	return j, nil
}

// delim marks the bytes that end a number or a literal.
var delim = func() (t [256]bool) {
	for _, c := range ",}] \t\n\r" {
		t[c] = true
	}
	return t
}()

// Null reports whether v is the literal null.
func Null(v []byte) bool { return string(v) == "null" }

// String decodes the JSON string v (quotes included) as encoding/json
// would; a value that is not a string is an error (null is too: callers
// that accept null check for it first).
func String(v []byte) (string, error) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return "", fmt.Errorf("expected a string, got %.20s", v)
	}
	inner := v[1 : len(v)-1]
	if plainASCII(inner) || !hasByte(inner, '\\') && utf8.Valid(inner) {
		return string(inner), nil
	}
	var s string
	err := json.Unmarshal(v, &s)
	return s, err
}

// plainASCII reports whether b is ASCII without backslashes: a string
// that means what it says.
func plainASCII(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf || c == '\\' {
			return false
		}
	}
	return true
}

func hasByte(b []byte, c byte) bool {
	for _, x := range b {
		if x == c {
			return true
		}
	}
	return false
}

// Bool decodes true or false.
func Bool(v []byte) (bool, error) {
	switch string(v) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, fmt.Errorf("expected a boolean, got %.20s", v)
}

const hexDigits = "0123456789abcdef"

// AppendString appends s as a JSON string, escaped as encoding/json does
// with HTML escaping off: quotes, backslashes, control characters, U+2028
// and U+2029; invalid UTF-8 becomes U+FFFD.
func AppendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// Array reads the elements of a JSON array one by one, validating as it
// goes.
type Array struct {
	b     []byte
	i     int
	first bool
	done  bool
}

// NewArray starts reading the array that is all of b (surrounding
// whitespace allowed); a value that is not an array is an error.
func NewArray(b []byte) (Array, error) {
	i := SkipSpace(b, 0)
	if i >= len(b) || b[i] != '[' {
		return Array{done: true}, errAt(i, "not a JSON array")
	}
	return Array{b: b, i: i + 1, first: true}, nil
}

// Next returns the next element; ok is false after the last one, when the
// rest of the input has been checked to be only whitespace.
func (a *Array) Next() (value []byte, ok bool, err error) {
	if a.done {
		return nil, false, nil
	}
	i := SkipSpace(a.b, a.i)
	if a.first {
		a.first = false
		if i < len(a.b) && a.b[i] == ']' {
			return nil, false, a.finish(i + 1)
		}
	} else {
		switch {
		case i < len(a.b) && a.b[i] == ']':
			return nil, false, a.finish(i + 1)
		case i < len(a.b) && a.b[i] == ',':
			i = SkipSpace(a.b, i+1)
		default:
			return nil, false, errAt(i, "expected ',' or ']' in an array")
		}
	}
	end, err := skip(a.b, i, 1)
	if err != nil {
		return nil, false, err
	}
	a.i = end
	return a.b[i:end], true, nil
}

func (a *Array) finish(i int) error {
	a.done = true
	if j := SkipSpace(a.b, i); j != len(a.b) {
		return errAt(j, "data after the array")
	}
	return nil
}
