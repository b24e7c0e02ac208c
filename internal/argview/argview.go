// Package argview lists a tool call's arguments field by field, so that an
// approval prompt can show every one of them: each leaf as path = value in
// the order written, duplicates included, with the names that hide
// characters and the names given twice marked. How a field is printed
// (escaped, cut, folded) is the caller's: the terminal's approval prompt
// and the MCP approval form use it.
package argview

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Field is one leaf of a call's arguments: a scalar, or an empty object
// or array.
type Field struct {
	Path    string // a.b[2].c; a name that is not a plain word is quoted
	Value   string // its JSON text
	Name    string // the object key it is under (an array's for its elements); "" for an empty object
	Visible string // Path without the characters that show nothing
	Dup     bool   // another field has the same Visible path
}

// Fields lists every leaf of raw in the order written, duplicates
// included. It fails when raw is not a JSON object. With max > 0 it stops
// once it has more than max fields (the count is enough to refuse them).
// hidden tells the characters that show nothing: Visible leaves them out,
// and names are compared as they look, so "amo\u200bunt" next to "amount"
// is a duplicate.
func Fields(raw []byte, max int, hidden func(rune) bool) ([]Field, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, errors.New("not a JSON object")
	}
	w := walker{dec: dec, max: max}
	if err := w.object(""); err != nil {
		return nil, err
	}
	seen := map[string]int{}
	for i := range w.out {
		w.out[i].Visible = VisibleName(w.out[i].Path, hidden)
		seen[w.out[i].Visible]++
	}
	for i := range w.out {
		w.out[i].Dup = seen[w.out[i].Visible] > 1
	}
	return w.out, nil
}

// VisibleName is name without the characters hidden reports: what it
// looks like where they are not shown.
func VisibleName(name string, hidden func(rune) bool) string {
	return strings.Map(func(r rune) rune {
		if hidden(r) {
			return -1
		}
		return r
	}, name)
}

type walker struct {
	dec *json.Decoder
	max int
	out []Field
}

// full reports that more than max fields are listed.
func (w *walker) full() bool { return w.max > 0 && len(w.out) > w.max }

func (w *walker) object(path string) error {
	empty := true
	for w.dec.More() {
		empty = false
		t, err := w.dec.Token()
		if err != nil {
			return err
		}
		name, _ := t.(string)
		if err := w.value(joinPath(path, name), name); err != nil {
			return err
		}
		if w.full() {
			return nil
		}
	}
	if _, err := w.dec.Token(); err != nil { // }
		return err
	}
	if empty && path != "" {
		w.out = append(w.out, Field{Path: path, Value: "{}"})
	}
	return nil
}

func (w *walker) value(path, name string) error {
	t, err := w.dec.Token()
	if err != nil {
		return err
	}
	switch t {
	case json.Delim('{'):
		return w.object(path)
	case json.Delim('['):
		i := 0
		for ; w.dec.More(); i++ {
			if err := w.value(fmt.Sprintf("%s[%d]", path, i), name); err != nil {
				return err
			}
			if w.full() {
				return nil
			}
		}
		if _, err := w.dec.Token(); err != nil { // ]
			return err
		}
		if i == 0 {
			w.out = append(w.out, Field{Path: path, Value: "[]", Name: name})
		}
		return nil
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(t); err != nil {
		return err
	}
	w.out = append(w.out, Field{Path: path, Value: strings.TrimSuffix(b.String(), "\n"), Name: name})
	return nil
}

// joinPath appends name to path, quoting a name that is not a plain word.
func joinPath(path, name string) string {
	simple := name != ""
	for _, r := range name {
		if !(r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r > 0x7f) {
			simple = false
			break
		}
	}
	if !simple {
		q, _ := json.Marshal(name)
		name = string(q)
	}
	if path == "" {
		return name
	}
	return path + "." + name
}
