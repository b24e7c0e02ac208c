package terminal

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"unicode"

	"github.com/mattn/go-runewidth"
)

// editor is the line editor of `hearth chat`. It edits a message that may
// span several lines, measures characters by their display width (a CJK
// character takes two columns), keeps pasted text (bracketed paste) in one
// message, and redraws the whole message on every change, so wrapping and
// wide characters never leave the cursor in the wrong place.
//
// Keys: Enter sends (a trailing \ turns into a newline instead); Ctrl-J or
// Alt-Enter insert a newline; ←/→, Home/End, Ctrl-A/E/B/F, Alt-B/F and
// Ctrl-←/→ move; Backspace, Delete, Ctrl-D, Ctrl-K, Ctrl-U and Ctrl-W delete;
// ↑/↓ move between lines of the message, then through the history; Ctrl-L
// redraws; Ctrl-C clears the message; Ctrl-D on an empty message quits.
type editor struct {
	in     *bufio.Reader
	out    io.Writer
	width  func() int // terminal columns
	hist   *history
	mu     sync.Locker // held while drawing; notifications take it too
	prompt string
	cont   string // prompt of continuation lines
	// complete, when set, returns the commands that start with a word
	// (Tab on a lone /word: see tab).
	complete func(word string) []string

	buf       []rune
	pos       int // cursor index into buf
	cursorRow int // rows between the prompt's row and the cursor's, as drawn
	histIdx   int // -1: editing a new message; else index from the newest entry
	draft     []rune
	active    bool // a message is being edited (guarded by mu)
}

// errCleared is returned when Ctrl-C cleared the message.
var errCleared = errors.New("input cleared")

var widthCond = func() *runewidth.Condition {
	c := runewidth.NewCondition()
	c.EastAsianWidth = false // ambiguous characters are one column in common terminals
	return c
}()

// StringWidth is how many columns s takes on a terminal, as the line
// editor measures: a CJK character two, an ambiguous one one.
func StringWidth(s string) int { return widthCond.StringWidth(s) }

func runeWidth(r rune) int {
	if r == '\t' {
		return 1
	}
	if unicode.IsControl(r) {
		return 0
	}
	return widthCond.RuneWidth(r)
}

func stringWidth(s string) int {
	w := 0
	for _, r := range s {
		w += runeWidth(r)
	}
	return w
}

// readMessage edits one message and returns it. It returns io.EOF for
// Ctrl-D on an empty message or the end of input, and errCleared for
// Ctrl-C.
func (e *editor) readMessage() (string, error) {
	e.lock()
	e.buf, e.pos, e.cursorRow, e.histIdx, e.draft = e.buf[:0], 0, 0, -1, nil
	e.active = true
	e.redraw()
	e.unlock()
	for {
		r, _, err := e.in.ReadRune()
		e.lock()
		if err != nil {
			var msg string
			if len(e.buf) > 0 && errors.Is(err, io.EOF) {
				msg, err = e.finish(), nil
			}
			e.active = false
			e.unlock()
			return msg, err
		}
		done, err := e.key(r)
		if err != nil || done {
			var msg string
			if err == nil {
				msg = e.finish()
			}
			e.active = false
			e.unlock()
			return msg, err
		}
		e.unlock()
	}
}

func (e *editor) lock() {
	if e.mu != nil {
		e.mu.Lock()
	}
}

func (e *editor) unlock() {
	if e.mu != nil {
		e.mu.Unlock()
	}
}

// erase writes what clears the message from the screen, leaving the cursor
// at the start of the prompt's row.
func (e *editor) erase(b *strings.Builder) {
	if e.cursorRow > 0 {
		fmt.Fprintf(b, "\x1b[%dA", e.cursorRow)
	}
	b.WriteString("\r\x1b[J")
}

// finish moves below the message and returns it.
func (e *editor) finish() string {
	e.pos = len(e.buf)
	e.redraw()
	io.WriteString(e.out, "\r\n")
	msg := string(e.buf)
	e.hist.record(msg)
	return msg
}

// key handles one key and reports whether the message is complete.
func (e *editor) key(r rune) (bool, error) {
	switch r {
	case '\r':
		if e.pos == len(e.buf) && e.pos > 0 && e.buf[e.pos-1] == '\\' {
			e.buf[e.pos-1] = '\n'
			break
		}
		return true, nil
	case '\n': // Ctrl-J
		e.insert('\n')
	case 0x01: // Ctrl-A
		e.pos = e.lineStart(e.pos)
	case 0x05: // Ctrl-E
		e.pos = e.lineEnd(e.pos)
	case 0x02: // Ctrl-B
		e.move(-1)
	case 0x06: // Ctrl-F
		e.move(1)
	case 0x03: // Ctrl-C
		e.pos = len(e.buf)
		e.redraw()
		io.WriteString(e.out, "^C\r\n")
		if len(e.buf) == 0 {
			io.WriteString(e.out, "(Ctrl-D or /exit to quit / 按 Ctrl-D 或输入 /exit 退出)\r\n")
		}
		e.buf, e.pos, e.cursorRow = e.buf[:0], 0, 0
		return false, errCleared
	case 0x04: // Ctrl-D
		if len(e.buf) == 0 {
			io.WriteString(e.out, "\r\n")
			return false, io.EOF
		}
		e.deleteRange(e.pos, e.pos+1)
	case 0x7f, 0x08: // Backspace
		e.deleteRange(e.pos-1, e.pos)
	case 0x0b: // Ctrl-K
		e.deleteRange(e.pos, e.lineEnd(e.pos))
	case 0x15: // Ctrl-U
		e.deleteRange(e.lineStart(e.pos), e.pos)
	case 0x17: // Ctrl-W
		e.deleteRange(e.wordLeft(e.pos), e.pos)
	case 0x0c: // Ctrl-L
		io.WriteString(e.out, "\x1b[H\x1b[2J")
		e.cursorRow = 0
	case 0x10: // Ctrl-P
		e.up()
	case 0x0e: // Ctrl-N
		e.down()
	case '\t':
		if !e.tab() {
			e.insert(' ', ' ', ' ', ' ')
		}
	case 0x1b:
		if err := e.escape(); err != nil {
			return false, err
		}
	default:
		if unicode.IsControl(r) {
			break
		}
		e.insert(r)
	}
	e.redraw()
	return false, nil
}

// escape handles the rest of an escape sequence.
func (e *editor) escape() error {
	r, _, err := e.in.ReadRune()
	if err != nil {
		return err
	}
	switch r {
	case '[':
		params, final, err := e.csi()
		if err != nil {
			return err
		}
		e.csiKey(params, final)
	case 'O':
		r, _, err := e.in.ReadRune()
		if err != nil {
			return err
		}
		e.csiKey("", byte(r))
	case '\r': // Alt-Enter
		e.insert('\n')
	case 'b':
		e.pos = e.wordLeft(e.pos)
	case 'f':
		e.pos = e.wordRight(e.pos)
	}
	return nil
}

// csi reads a control sequence's parameters and final byte.
func (e *editor) csi() (string, byte, error) {
	var params strings.Builder
	for {
		b, err := e.in.ReadByte()
		if err != nil {
			return "", 0, err
		}
		if b >= 0x40 && b <= 0x7e {
			return params.String(), b, nil
		}
		params.WriteByte(b)
	}
}

func (e *editor) csiKey(params string, final byte) {
	ctrl := strings.HasSuffix(params, ";5")
	switch final {
	case 'A':
		e.up()
	case 'B':
		e.down()
	case 'C':
		if ctrl {
			e.pos = e.wordRight(e.pos)
		} else {
			e.move(1)
		}
	case 'D':
		if ctrl {
			e.pos = e.wordLeft(e.pos)
		} else {
			e.move(-1)
		}
	case 'H':
		e.pos = e.lineStart(e.pos)
	case 'F':
		e.pos = e.lineEnd(e.pos)
	case '~':
		switch params {
		case "1", "7":
			e.pos = e.lineStart(e.pos)
		case "4", "8":
			e.pos = e.lineEnd(e.pos)
		case "3":
			e.deleteRange(e.pos, e.pos+1)
		case "200":
			e.paste()
		}
	}
}

// paste inserts bracketed-paste text as is, newlines included, up to the
// end marker.
func (e *editor) paste() {
	const end = "\x1b[201~"
	var text []rune
	for {
		r, _, err := e.in.ReadRune()
		if err != nil {
			break
		}
		text = append(text, r)
		if len(text) >= len(end) && string(text[len(text)-len(end):]) == end {
			text = text[:len(text)-len(end)]
			break
		}
	}
	s := strings.ReplaceAll(strings.ReplaceAll(string(text), "\r\n", "\n"), "\r", "\n")
	var clean []rune
	for _, r := range s {
		if r == '\n' || r == '\t' || !unicode.IsControl(r) {
			clean = append(clean, r)
		}
	}
	e.insert(clean...)
}

func (e *editor) insert(rs ...rune) {
	e.buf = append(e.buf[:e.pos], append(rs, e.buf[e.pos:]...)...)
	e.pos += len(rs)
}

func (e *editor) deleteRange(from, to int) {
	from, to = max(from, 0), min(to, len(e.buf))
	if from >= to {
		return
	}
	e.buf = append(e.buf[:from], e.buf[to:]...)
	e.pos = from
}

func (e *editor) move(d int) { e.pos = min(max(e.pos+d, 0), len(e.buf)) }

func (e *editor) lineStart(i int) int {
	for i > 0 && e.buf[i-1] != '\n' {
		i--
	}
	return i
}

func (e *editor) lineEnd(i int) int {
	for i < len(e.buf) && e.buf[i] != '\n' {
		i++
	}
	return i
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' }

func (e *editor) wordLeft(i int) int {
	for i > 0 && !isWordRune(e.buf[i-1]) {
		i--
	}
	for i > 0 && isWordRune(e.buf[i-1]) {
		i--
	}
	return i
}

func (e *editor) wordRight(i int) int {
	for i < len(e.buf) && !isWordRune(e.buf[i]) {
		i++
	}
	for i < len(e.buf) && isWordRune(e.buf[i]) {
		i++
	}
	return i
}

// up moves to the previous line of the message, or to the previous
// history entry from the first line.
func (e *editor) up() {
	start := e.lineStart(e.pos)
	if start > 0 {
		col := e.pos - start
		prev := e.lineStart(start - 1)
		e.pos = min(prev+col, start-1)
		return
	}
	if e.histIdx+1 >= e.hist.Len() {
		return
	}
	if e.histIdx == -1 {
		e.draft = append([]rune(nil), e.buf...)
	}
	e.histIdx++
	e.buf = []rune(e.hist.At(e.histIdx))
	e.pos = len(e.buf)
}

// down moves to the next line of the message, or to the next history
// entry (and finally the draft) from the last line.
func (e *editor) down() {
	end := e.lineEnd(e.pos)
	if end < len(e.buf) {
		col := e.pos - e.lineStart(e.pos)
		next := end + 1
		e.pos = min(next+col, e.lineEnd(next))
		return
	}
	if e.histIdx < 0 {
		return
	}
	e.histIdx--
	if e.histIdx < 0 {
		e.buf = e.draft
	} else {
		e.buf = []rune(e.hist.At(e.histIdx))
	}
	e.pos = len(e.buf)
}

// layout computes where each rune of buf starts on screen (row and column
// relative to the prompt's first column) and where the text ends, for a
// terminal of width columns. A rune that does not fit wraps to the next
// row; an end exactly at the right margin counts as the start of the next
// row, where the cursor will be put.
func layout(buf []rune, promptW, contW, width int) (starts [][2]int, end [2]int) {
	row, col := 0, promptW
	starts = make([][2]int, len(buf))
	for i, r := range buf {
		if r == '\n' {
			starts[i] = [2]int{row, col}
			row, col = row+1, contW
			continue
		}
		w := runeWidth(r)
		if col+w > width {
			row, col = row+1, 0
		}
		starts[i] = [2]int{row, col}
		col += w
	}
	if col >= width {
		row, col = row+1, 0
	}
	return starts, [2]int{row, col}
}

// redraw repaints the message from the prompt down and puts the cursor at
// pos.
func (e *editor) redraw() {
	width := e.width()
	if width <= 0 {
		width = 80
	}
	var b strings.Builder
	e.erase(&b)
	b.WriteString(e.prompt)
	for _, r := range e.buf {
		if r == '\n' {
			b.WriteString("\r\n")
			b.WriteString(e.cont)
			continue
		}
		if r == '\t' {
			r = ' '
		}
		b.WriteRune(r)
	}
	starts, end := layout(e.buf, stringWidth(e.prompt), stringWidth(e.cont), width)
	if end[1] == 0 && end[0] > 0 && (len(e.buf) == 0 || e.buf[len(e.buf)-1] != '\n') {
		// The text filled the last row exactly: move to the next row now,
		// so the terminal's pending wrap does not misplace the cursor.
		b.WriteString("\r\n")
	}
	target := end
	if e.pos < len(e.buf) {
		target = starts[e.pos]
	}
	if up := end[0] - target[0]; up > 0 {
		fmt.Fprintf(&b, "\x1b[%dA", up)
	}
	b.WriteString("\r")
	if target[1] > 0 {
		fmt.Fprintf(&b, "\x1b[%dC", target[1])
	}
	e.cursorRow = target[0]
	io.WriteString(e.out, b.String())
}
