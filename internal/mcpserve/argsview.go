package mcpserve

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/hearth-agent/hearth/internal/argview"
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
// The fields are listed by internal/argview, as for the terminal's
// approval prompt.

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

// showArgs returns the arguments as the form shows them, one line per
// field, or errTooLongToShow.
func showArgs(tool string, raw []byte) (string, error) {
	fields, err := argview.Fields(raw, maxFormFields, hiddenRune)
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
	var b strings.Builder
	for _, f := range fields {
		b.WriteString("  " + escapeHidden(f.Path) + " = " + escapeHidden(cutMiddle(f.Value)))
		if f.Visible != f.Path {
			b.WriteString("   ⚠ the name hides characters; it looks like " + f.Visible + " / 键名含不可见字符")
		}
		if f.Dup {
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
