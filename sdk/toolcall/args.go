package toolcall

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/hearth-agent/hearth/sdk/internal/codec"
)

// argumentsTooLarge is the error for n bytes of arguments, or nil.
func argumentsTooLarge(n int) error {
	if n <= MaxArgumentBytes {
		return nil
	}
	return fmt.Errorf("%w: %w: the arguments are %d bytes, over the limit of %d bytes (1 MiB); "+
		"split the work into smaller calls", ErrInvalidArguments, ErrTooLarge, n, MaxArgumentBytes)
}

// DecodeArguments parses the model's argument string. Empty input means no
// arguments. Anything but a JSON object (invalid UTF-8 included) is an
// error naming the problem, and so is an object that names a key twice, at
// any depth: parsers disagree on which value counts, so the map the hooks
// judge and the text the tool reads could differ. It returns the map and
// the text the tool is sent.
func DecodeArguments(raw json.RawMessage) (map[string]any, json.RawMessage, error) {
	if err := argumentsTooLarge(len(raw)); err != nil {
		return nil, nil, err
	}
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
		return map[string]any{}, json.RawMessage("{}"), nil
	}
	var args map[string]any
	if err := codec.Unmarshal(trimmed, &args); err != nil {
		if errors.Is(err, jsontext.ErrDuplicateName) && json.Valid(trimmed) {
			// The text is valid but for its duplicate: name it.
			if err := duplicateKey(trimmed); err != nil {
				return nil, nil, err
			}
		}
		return nil, nil, fmt.Errorf("%w: arguments are not a JSON object: %v", ErrInvalidArguments, err)
	}
	// Names repeated exactly were refused above; names differing only in
	// case are rare, and only then is the text walked again for the
	// message.
	if foldedTwice(args) {
		if err := duplicateKey(trimmed); err != nil {
			return nil, nil, err
		}
	}
	if args == nil {
		args = map[string]any{}
	}
	return args, trimmed, nil
}

// foldedTwice reports whether an object in v, decoded arguments, has
// two names that differ only in case (see duplicateKey).
func foldedTwice(v any) bool {
	switch v := v.(type) {
	case map[string]any:
		if len(v) > 16 {
			seen := make(map[string]bool, len(v))
			var buf []byte
			for k := range v {
				buf = appendFolded(buf[:0], k)
				if seen[string(buf)] {
					return true
				}
				seen[string(buf)] = true
			}
		} else if len(v) > 1 {
			for k := range v {
				for k2 := range v {
					if k < k2 && strings.EqualFold(k, k2) {
						return true
					}
				}
			}
		}
		for _, e := range v {
			if foldedTwice(e) {
				return true
			}
		}
	case []any:
		for _, e := range v {
			if foldedTwice(e) {
				return true
			}
		}
	}
	return false
}

// duplicateKey reports the first object, at any depth of the valid JSON
// text b, that names a member twice, as an error the model can act on; nil
// if there is none. On text that is not valid JSON its answer is
// unspecified.
//
// Arguments with a repeated key mean different things to different
// parsers: one keeps the last value, another the first, so the decision
// hooks, ResolveEffect and the approval that judge the decoded map could
// judge other values than the tool reads. So they are refused before
// anyone judges them. Names are compared as encoding/json matches them to
// a Go struct's fields (case folded), so {"to":"bob","To":"mallory"} is
// refused too: AddTool's decoder matches names exactly, but a handler that
// decodes its raw arguments with encoding/json (HomeAgent and xbot
// plugins do, in process or as a child) could hold mallory while a hook
// reading the map saw to = bob.
func duplicateKey(b []byte) error {
	dec := jsontext.NewDecoder(bytes.NewReader(b), jsontext.AllowDuplicateNames(true))
	var stack []*names // one per open object or array (nil)
	var buf []byte
	for {
		tok, err := dec.ReadToken()
		if err != nil {
			return nil // the end, or not reached on valid text
		}
		var top *names
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		switch tok.Kind() {
		case '{':
			stack = append(stack, &names{})
			continue
		case '[':
			stack = append(stack, nil)
			continue
		case '}', ']':
			stack = stack[:len(stack)-1]
		case '"':
			if top != nil && !top.expectValue {
				name := tok.String()
				buf = appendFolded(buf[:0], name)
				if first, dup := top.add(string(buf), name); dup {
					return duplicate(first, name)
				}
				top.expectValue = true
				continue
			}
		}
		// A value ended: the parent object expects a name again.
		if len(stack) > 0 && stack[len(stack)-1] != nil {
			stack[len(stack)-1].expectValue = false
		}
	}
}

// names are the member names of one open object, folded.
type names struct {
	expectValue bool
	list        []string // folded, then original, in pairs; while short
	set         map[string]string
}

// add records a name and returns the earlier name it repeats, if any.
func (n *names) add(folded, name string) (string, bool) {
	if n.set == nil && len(n.list) < 32 {
		for i := 0; i < len(n.list); i += 2 {
			if n.list[i] == folded {
				return n.list[i+1], true
			}
		}
		n.list = append(n.list, folded, name)
		return "", false
	}
	if n.set == nil {
		n.set = make(map[string]string, len(n.list))
		for i := 0; i < len(n.list); i += 2 {
			n.set[n.list[i]] = n.list[i+1]
		}
		n.list = nil
	}
	if first, ok := n.set[folded]; ok {
		return first, true
	}
	n.set[folded] = name
	return "", false
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

func duplicate(first, second string) error {
	if first == second {
		return fmt.Errorf("%w: duplicate key %q: name each key once in an object", ErrInvalidArguments, first)
	}
	return fmt.Errorf("%w: duplicate key %q: it names the same field as %q (names differing only in case count as one); "+
		"name each key once in an object", ErrInvalidArguments, second, first)
}
