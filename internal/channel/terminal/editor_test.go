package terminal

import (
	"bufio"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"
)

// vt is a minimal terminal emulator: enough of VT100 to check what the
// editor draws (printing with wide characters and auto-wrap, CR, LF,
// cursor up and right, erase to end of screen).
type vt struct {
	width      int
	rows       [][]rune // a wide character's second cell holds 0
	row, col   int
	pendingWrp bool
}

func newVT(width int) *vt { return &vt{width: width, rows: [][]rune{nil}} }

func (t *vt) cell(r, c int) *rune {
	for len(t.rows) <= r {
		t.rows = append(t.rows, nil)
	}
	for len(t.rows[r]) <= c {
		t.rows[r] = append(t.rows[r], ' ')
	}
	return &t.rows[r][c]
}

func (t *vt) Write(p []byte) (int, error) {
	s := []rune(string(p))
	for i := 0; i < len(s); i++ {
		switch r := s[i]; r {
		case '\r':
			t.col, t.pendingWrp = 0, false
		case '\n':
			t.row++
			t.cell(t.row, 0)
			t.pendingWrp = false
		case 0x1b:
			j := i + 2 // skip ESC [
			for j < len(s) && !(s[j] >= 0x40 && s[j] <= 0x7e) {
				j++
			}
			params, final := string(s[i+2:j]), s[j]
			n, err := strconv.Atoi(strings.TrimPrefix(params, "?"))
			if err != nil || n == 0 {
				n = 1
			}
			switch final {
			case 'A':
				t.row = max(t.row-n, 0)
			case 'C':
				t.col = min(t.col+n, t.width-1)
			case 'J':
				if params == "2" {
					t.rows = [][]rune{nil}
				} else {
					t.rows[t.row] = t.rows[t.row][:min(t.col, len(t.rows[t.row]))]
					t.rows = t.rows[:t.row+1]
				}
			case 'H':
				t.row, t.col = 0, 0
			}
			t.pendingWrp = false
			i = j
		default:
			w := runeWidth(r)
			if t.pendingWrp || t.col+w > t.width {
				t.row, t.col = t.row+1, 0
			}
			t.pendingWrp = false
			*t.cell(t.row, t.col) = r
			if w == 2 {
				*t.cell(t.row, t.col+1) = 0
			}
			t.col += w
			if t.col >= t.width {
				t.col, t.pendingWrp = t.width-1, true
			}
		}
	}
	return len(p), nil
}

func (t *vt) lines() []string {
	var out []string
	for _, r := range t.rows {
		var b strings.Builder
		for _, c := range r {
			if c != 0 {
				b.WriteRune(c)
			}
		}
		out = append(out, strings.TrimRight(b.String(), " "))
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}

// edit types keys into an editor on a vt and returns the message, the
// error, and the screen.
func edit(t *testing.T, width int, hist *history, keys string) (string, error, *vt) {
	t.Helper()
	screen := newVT(width)
	if hist == nil {
		hist = &history{}
	}
	e := &editor{in: bufio.NewReader(strings.NewReader(keys)), out: screen, width: func() int { return width },
		hist: hist, prompt: "› ", cont: "… "}
	msg, err := e.readMessage()
	return msg, err, screen
}

const (
	left  = "\x1b[D"
	right = "\x1b[C"
	up    = "\x1b[A"
	down  = "\x1b[B"
	home  = "\x1b[H"
)

func TestEditorMessages(t *testing.T) {
	tests := []struct {
		name, keys, want string
	}{
		{"plain", "hello\r", "hello"},
		{"insert CJK in the middle", "你好世界" + left + left + "大\r", "你好大世界"},
		{"paste keeps newlines", "\x1b[200~第一行\r\n第二行\nthird\x1b[201~\r", "第一行\n第二行\nthird"},
		{"backslash continues", "ab\\\rcd\r", "ab\ncd"},
		{"ctrl-j and alt-enter insert newlines", "a\nb\x1b\rc\r", "a\nb\nc"},
		{"backspace over wide", "你好\x7f\r", "你"},
		{"delete key", "abc" + home + "\x1b[3~\r", "bc"},
		{"ctrl-u kills to line start", "abc\x15x\r", "x"},
		{"ctrl-w kills a word", "hello big world\x17\x17x\r", "hello x"},
		{"ctrl-k kills to line end", "abcdef" + left + left + left + "\x0b\r", "abc"},
		{"ctrl-a ctrl-e", "bc\x01a\x05d\r", "abcd"},
		{"word moves", "one two" + "\x1bb" + "X" + "\x1bf" + "Y\r", "one XtwoY"},
		{"up and down inside a message", "abc\ndefg" + left + left + up + "X" + down + "Y\r", "abXc\ndefYg"},
		{"up clamps to a shorter line", "abc\ndefg" + up + "X\r", "abcX\ndefg"},
		{"end of input sends what was typed", "partial", "partial"},
		{"control characters ignored", "a\x07b\r", "ab"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err, screen := edit(t, 80, nil, tt.keys)
			if err != nil || got != tt.want {
				t.Fatalf("got %q, %v; want %q\nscreen %q", got, err, tt.want, screen.lines())
			}
		})
	}
}

func TestEditorScreen(t *testing.T) {
	tests := []struct {
		name     string
		width    int
		keys     string
		lines    []string
		row, col int
	}{
		{"CJK cursor", 40, "你好世界" + left + left + "大", []string{"› 你好大世界"}, 0, 8},
		{"wrap wide characters", 10, "一二三四五", []string{"› 一二三四", "五"}, 1, 2},
		{"wide character does not split at the margin", 9, "一二三四五", []string{"› 一二三", "四五"}, 1, 4},
		{"exactly full row puts cursor on the next", 10, "一二三四", []string{"› 一二三四"}, 1, 0},
		{"home after wrap", 10, "一二三四五" + home, []string{"› 一二三四", "五"}, 0, 2},
		{"multi-line message", 40, "ab\ncd", []string{"› ab", "… cd"}, 1, 4},
		{"redraw after delete leaves no debris", 40, "abcdef\x7f\x7f\x7f", []string{"› abc"}, 0, 5},
		{"shrinking a wrapped message", 10, "一二三四五六\x15x", []string{"› x"}, 0, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, screen := edit(t, tt.width, nil, tt.keys)
			// The input ended without Enter: readMessage finished it, which
			// moves below; undo that last line for the check.
			lines := screen.lines()
			if strings.Join(lines, "|") != strings.Join(tt.lines, "|") {
				t.Fatalf("screen %q, want %q", lines, tt.lines)
			}
		})
	}
	// Cursor positions, checked before the message is finished.
	for _, tt := range tests {
		t.Run(tt.name+" cursor", func(t *testing.T) {
			screen := newVT(tt.width)
			e := &editor{in: bufio.NewReader(strings.NewReader(tt.keys)), out: screen, width: func() int { return tt.width },
				hist: &history{}, prompt: "› ", cont: "… "}
			e.buf, e.histIdx = nil, -1
			e.redraw()
			for {
				r, _, err := e.in.ReadRune()
				if err != nil {
					break
				}
				if _, err := e.key(r); err != nil {
					t.Fatal(err)
				}
			}
			if screen.row != tt.row || screen.col != tt.col {
				t.Fatalf("cursor at %d,%d, want %d,%d; screen %q", screen.row, screen.col, tt.row, tt.col, screen.lines())
			}
		})
	}
}

func TestEditorHistory(t *testing.T) {
	h := &history{}
	h.record("第二\n条")
	h.record("first")
	got, err, _ := edit(t, 80, h, "draft"+up+up+"!\r")
	if err != nil || got != "第二\n条!" {
		t.Fatalf("%q %v", got, err)
	}
	// In a multi-line entry, up first moves between its lines.
	got, _, _ = edit(t, 80, h, up+up+"<\r")
	if got != "第二<\n条!" {
		t.Fatalf("%q", got)
	}
	got, _, _ = edit(t, 80, h, "draft"+up+down+"!\r")
	if got != "draft!" {
		t.Fatalf("back to the draft: %q", got)
	}
	if h.Len() != 5 || h.At(0) != "draft!" {
		t.Fatalf("history %v", h.entries)
	}
}

func TestEditorQuitAndClear(t *testing.T) {
	if _, err, _ := edit(t, 80, nil, "\x04"); !errors.Is(err, io.EOF) {
		t.Fatalf("ctrl-d on empty: %v", err)
	}
	if got, err, _ := edit(t, 80, nil, "ab\x01\x04\r"); err != nil || got != "b" {
		t.Fatalf("ctrl-d deletes under the cursor: %q %v", got, err)
	}
	if _, err, _ := edit(t, 80, nil, "typed\x03"); !errors.Is(err, errCleared) {
		t.Fatalf("ctrl-c: %v", err)
	}
	if _, err, _ := edit(t, 80, nil, ""); !errors.Is(err, io.EOF) {
		t.Fatalf("end of input: %v", err)
	}
}

func TestHistoryFile(t *testing.T) {
	path := t.TempDir() + "/h"
	h := loadHistory(path)
	h.record("one")
	h.record("two\nlines")
	h.record("two\nlines") // repeated: kept once
	h2 := loadHistory(path)
	if h2.Len() != 2 || h2.At(0) != "two\nlines" || h2.At(1) != "one" {
		t.Fatalf("reloaded %q", h2.entries)
	}
}

func FuzzEditor(f *testing.F) {
	f.Add("你好世界\x1b[D\x1b[D大\r")
	f.Add("\x1b[200~a\nb\x1b[201~\r")
	f.Add("\x1b[1;5D\x1b[3~\x1bOH\x1b")
	f.Fuzz(func(t *testing.T, keys string) {
		screen := newVT(20)
		e := &editor{in: bufio.NewReader(strings.NewReader(keys)), out: screen, width: func() int { return 20 },
			hist: &history{}, prompt: "› ", cont: "… "}
		for i := 0; i < 3; i++ {
			if _, err := e.readMessage(); err != nil && !errors.Is(err, errCleared) {
				return
			}
			if e.pos < 0 || e.pos > len(e.buf) {
				t.Fatalf("cursor %d outside %d runes", e.pos, len(e.buf))
			}
		}
	})
}
