package mcpserve

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// How a call's arguments are shown in an approval form, so that what is
// approved is what was seen: every field on a line of its own, as
// path = value in the order written; a value longer than maxValueShown
// is cut in the middle, its head and tail kept and the bytes cut counted;
// a character that shows nothing by itself (controls, format characters,
// joiners, variation selectors) is written as <U+XXXX>, and a name that
// hides one, or a name given twice, is flagged. Arguments with more fields
// than maxFormFields, or longer than maxFormArgs shown, are not asked
// about through the form at all (errTooLongToShow).
//
// The walk over the fields follows the terminal's approval prompt
// (internal/channel/terminal/approve.go), whose helpers are unexported.

const (
	maxValueShown = 240  // bytes of one value shown before it is cut
	maxFormFields = 60   // fields shown in one form
	maxFormArgs   = 8000 // bytes of shown arguments in one form
)

// errTooLongToShow says that a call's arguments cannot be shown in full in
// a form, and where to approve it instead.
type errTooLongToShow struct{ tool string }

func (e errTooLongToShow) Error() string {
	return fmt.Sprintf("the arguments of this %[1]s call are too long to show in this MCP client's approval form, "+
		"so it was not asked here. Approve calls like it where the whole call is shown (the Hearth web UI or the terminal chat), "+
		"or allow %[1]s without asking: hearth policy set %[1]s auto"+
		" / 此次 %[1]s 调用的参数太长，无法在此 MCP 客户端的确认表单中完整显示，因此未在此询问。"+
		"请在能显示完整调用的地方确认（Hearth 网页界面或终端聊天），或执行：hearth policy set %[1]s auto", e.tool)
}

// argField is one leaf of a call's arguments.
type argField struct {
	path  string // a.b[2].c
	value string // its JSON text
}

// showArgs returns the arguments as the form shows them, one line per
// field, or errTooLongToShow.
func showArgs(tool string, raw []byte) (string, error) {
	fields, err := argFields(raw)
	if err != nil {
		// Not an object (the kernel validates before asking, so this is
		// not expected): shown whole, or not at all.
		if len(raw) > maxValueShown {
			return "", errTooLongToShow{tool}
		}
		return "  " + escapeHidden(string(raw)) + "\n", nil
	}
	if len(fields) > maxFormFields {
		return "", errTooLongToShow{tool}
	}
	if len(fields) == 0 {
		return "  (none / 无)\n", nil
	}
	seen := map[string]int{}
	for _, f := range fields {
		seen[visibleName(f.path)]++
	}
	var b strings.Builder
	for _, f := range fields {
		b.WriteString("  " + escapeHidden(f.path) + " = " + escapeHidden(cutMiddle(f.value)))
		if v := visibleName(f.path); v != f.path {
			b.WriteString("   ⚠ the name hides characters; it looks like " + v + " / 键名含不可见字符")
		}
		if seen[visibleName(f.path)] > 1 {
			b.WriteString("   ⚠ key given more than once / 重复的键")
		}
		b.WriteString("\n")
		if b.Len() > maxFormArgs {
			return "", errTooLongToShow{tool}
		}
	}
	return b.String(), nil
}

// cutMiddle returns v, or when it is longer than maxValueShown its head
// and tail around a count of the bytes cut, cut at character boundaries.
func cutMiddle(v string) string {
	if len(v) <= maxValueShown {
		return v
	}
	head, tail := maxValueShown/2, len(v)-maxValueShown/2
	for head > 0 && !utf8.RuneStart(v[head]) {
		head--
	}
	for tail < len(v) && !utf8.RuneStart(v[tail]) {
		tail++
	}
	return fmt.Sprintf("%s …(%d bytes cut / 省略 %d 字节)… %s", v[:head], tail-head, tail-head, v[tail:])
}

// hiddenRune reports whether r shows nothing by itself: controls, format
// characters (zero-width spaces and joiners, bidirectional marks, tags),
// variation selectors, separators and fillers.
func hiddenRune(r rune) bool {
	switch {
	case r < 0x20, r >= 0x7f && r <= 0x9f, r == 0x034f, r == 0x115f, r == 0x1160, r == 0x3164, r == 0xffa0,
		r == 0x2028, r == 0x2029, r >= 0x180b && r <= 0x180f, r >= 0xfe00 && r <= 0xfe0f,
		r >= 0xe0100 && r <= 0xe01ef, r == utf8.RuneError:
		return true
	}
	return unicode.Is(unicode.Cf, r)
}

// visibleName is name without the characters that show nothing: what it
// looks like where they are not shown.
func visibleName(name string) string {
	return strings.Map(func(r rune) rune {
		if hiddenRune(r) {
			return -1
		}
		return r
	}, name)
}

// escapeHidden writes each character that shows nothing as <U+XXXX>.
func escapeHidden(s string) string {
	var b strings.Builder
	for _, r := range s {
		if hiddenRune(r) {
			fmt.Fprintf(&b, "<U+%04X>", r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// argFields lists every leaf of raw in the order written, duplicates
// included. It fails when raw is not a JSON object.
func argFields(raw []byte) ([]argField, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, errors.New("not a JSON object")
	}
	var out []argField
	if err := walkObject(dec, "", &out); err != nil {
		return nil, err
	}
	return out, nil
}

func walkObject(dec *json.Decoder, path string, out *[]argField) error {
	empty := true
	for dec.More() {
		empty = false
		t, err := dec.Token()
		if err != nil {
			return err
		}
		name, _ := t.(string)
		if err := walkValue(dec, joinPath(path, name), out); err != nil {
			return err
		}
		if len(*out) > maxFormFields {
			return nil // too many to show: the count is enough
		}
	}
	if _, err := dec.Token(); err != nil { // }
		return err
	}
	if empty && path != "" {
		*out = append(*out, argField{path: path, value: "{}"})
	}
	return nil
}

func walkValue(dec *json.Decoder, path string, out *[]argField) error {
	t, err := dec.Token()
	if err != nil {
		return err
	}
	switch t {
	case json.Delim('{'):
		return walkObject(dec, path, out)
	case json.Delim('['):
		i := 0
		for ; dec.More(); i++ {
			if err := walkValue(dec, fmt.Sprintf("%s[%d]", path, i), out); err != nil {
				return err
			}
			if len(*out) > maxFormFields {
				return nil
			}
		}
		if _, err := dec.Token(); err != nil { // ]
			return err
		}
		if i == 0 {
			*out = append(*out, argField{path: path, value: "[]"})
		}
		return nil
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(t); err != nil {
		return err
	}
	*out = append(*out, argField{path: path, value: strings.TrimSuffix(b.String(), "\n")})
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
