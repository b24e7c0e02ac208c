package terminal

import (
	"io"
	"strings"
	"sync"

	"github.com/hearth-agent/hearth/internal/kernel"
	"github.com/hearth-agent/hearth/sdk"
)

// screen serializes output to the terminal between the answer being
// streamed, the line editor, and notifications: answers to inputs that
// plugins injected, which may arrive while the user is typing. A
// notification printed during editing goes above the message being typed,
// which is then drawn again.
type screen struct {
	mu    sync.Mutex
	out   io.Writer
	color bool
	ed    *editor // nil without a terminal; its mu is this screen's mu
}

// Write writes p as one piece; the renderer of the user's own turns writes
// through it.
func (s *screen) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.out.Write(p)
}

// sink receives the events of injected turns.
func (s *screen) sink(in sdk.Injection, ev kernel.Event) {
	var text string
	switch ev.Kind {
	case kernel.EventFinal:
		text = ev.Text
	case kernel.EventError:
		text = "error: " + ev.Text
	default:
		return
	}
	label := in.Source
	if label == "" {
		label = in.Channel
	}
	s.notify("["+label+"] ", text)
}

// notify prints a labelled message on lines of its own. Both come from
// plugins and the model, and are neutralised.
func (s *screen) notify(label, text string) {
	label, text = SanitizeLine(label), Sanitize(text)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.color {
		label = dim + label + reset
	}
	if s.ed == nil || !s.ed.active {
		io.WriteString(s.out, "\n"+label+text+"\n")
		return
	}
	var b strings.Builder
	s.ed.erase(&b)
	b.WriteString(label)
	b.WriteString(strings.ReplaceAll(text, "\n", "\r\n"))
	b.WriteString("\r\n")
	io.WriteString(s.out, b.String())
	s.ed.cursorRow = 0
	s.ed.redraw()
}
