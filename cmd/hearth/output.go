package main

import (
	"io"
	"os"

	"golang.org/x/term"

	"github.com/hearth-agent/hearth/internal/redact"
)

// maskOutput masks the model sources' keys in what chat and ask print to
// pipes and files, however the text is split into writes. A terminal is
// left as it is (the terminal channel needs the file itself); what Hearth
// prints there has its keys masked where the message is made. flush
// writes what is held back and must run before exit.
func maskOutput(w io.Writer, secrets *redact.Secrets) (out io.Writer, flush func()) {
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		return w, func() {}
	}
	s := redact.NewStream(w, secrets)
	return s, func() { _ = s.Flush() }
}
