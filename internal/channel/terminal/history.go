package terminal

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
)

// maxHistory is how many past inputs are kept.
const maxHistory = 1000

// history is the input history shown with the arrow keys, persisted as one
// JSON string per line so multi-line inputs survive. It implements
// golang.org/x/term's History; the terminal's own per-line Add is ignored,
// and whole messages are recorded with record.
type history struct {
	path    string
	entries []string // oldest first
}

func loadHistory(path string) *history {
	h := &history{path: path}
	if path == "" {
		return h
	}
	f, err := os.Open(path)
	if err != nil {
		return h
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		var s string
		if json.Unmarshal(sc.Bytes(), &s) == nil {
			h.entries = append(h.entries, s)
		}
	}
	if len(h.entries) > maxHistory {
		h.entries = h.entries[len(h.entries)-maxHistory:]
		h.rewrite()
	}
	return h
}

// Add ignores the terminal's per-line additions; see record.
func (h *history) Add(string) {}

// Len returns the number of entries.
func (h *history) Len() int { return len(h.entries) }

// At returns the idx-th most recent entry.
func (h *history) At(idx int) string { return h.entries[len(h.entries)-1-idx] }

// record adds a whole message and appends it to the file.
func (h *history) record(msg string) {
	if msg == "" || (len(h.entries) > 0 && h.entries[len(h.entries)-1] == msg) {
		return
	}
	h.entries = append(h.entries, msg)
	if h.path == "" {
		return
	}
	b, _ := json.Marshal(msg)
	f, err := os.OpenFile(h.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return
	}
	f.Write(append(b, '\n'))
	f.Close()
}

func (h *history) rewrite() {
	tmp := h.path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return
	}
	w := bufio.NewWriter(f)
	for _, e := range h.entries {
		b, _ := json.Marshal(e)
		w.Write(append(b, '\n'))
	}
	if w.Flush() != nil || f.Close() != nil {
		os.Remove(tmp)
		return
	}
	os.Rename(tmp, filepath.Clean(h.path))
}
