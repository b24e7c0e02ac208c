package terminal

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode"

	"golang.org/x/term"
)

// tab completes the command being typed when the message is one word
// starting with / and the cursor is at its end: one match is completed
// (with a space after it), several are completed to their common prefix,
// or listed below the message when that adds nothing. It reports false
// when the message is not such a word, and Tab inserts spaces instead.
func (e *editor) tab() bool {
	if e.complete == nil || len(e.buf) == 0 || e.buf[0] != '/' || e.pos != len(e.buf) ||
		slices.ContainsFunc(e.buf, unicode.IsSpace) {
		return false
	}
	word := string(e.buf)
	var cands []string
	for _, c := range e.complete(word) {
		// Names come from MCP servers: only printable ones without
		// spaces are put into the message.
		if c != "" && !strings.ContainsFunc(c, func(r rune) bool { return unicode.IsSpace(r) || !unicode.IsPrint(r) }) {
			cands = append(cands, c)
		}
	}
	switch {
	case len(cands) == 0:
	case len(cands) == 1:
		e.buf = []rune(cands[0] + " ")
		e.pos = len(e.buf)
	case len(commonPrefix(cands)) > len(word):
		e.buf = []rune(commonPrefix(cands))
		e.pos = len(e.buf)
	default:
		e.redraw()
		io.WriteString(e.out, "\r\n"+strings.Join(cands, "  ")+"\r\n")
		e.cursorRow = 0
	}
	return true
}

// askLine reads one line on the terminal after label (a missing argument
// of a prompt command), with the line editor but without recording it in
// the input history. Ctrl-C gives errCleared; Ctrl-D io.EOF.
func (r *ttyReader) askLine(label string) (string, error) {
	state, err := term.MakeRaw(r.fd)
	if err != nil {
		return "", fmt.Errorf("terminal: %w", err)
	}
	defer term.Restore(r.fd, state)
	r.ed.lock()
	prompt, hist := r.ed.prompt, r.ed.hist
	r.ed.prompt, r.ed.hist = label, &history{}
	r.ed.unlock()
	defer func() {
		r.ed.lock()
		r.ed.prompt, r.ed.hist = prompt, hist
		r.ed.unlock()
	}()
	return r.ed.readMessage()
}
