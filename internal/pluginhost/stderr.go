package pluginhost

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"strings"
	"sync"
	"unicode/utf8"
)

// maxStderrLine is the longest stderr line kept whole; longer ones are cut.
const maxStderrLine = 4 << 10

// ring keeps the last n lines.
type ring struct {
	mu    sync.Mutex
	buf   []string
	n     int
	start int
}

func newRing(n int) *ring { return &ring{n: n} }

func (r *ring) add(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.buf) < r.n {
		r.buf = append(r.buf, s)
		return
	}
	r.buf[r.start] = s
	r.start = (r.start + 1) % r.n
}

func (r *ring) lines() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]string, 0, len(r.buf))
	out = append(out, r.buf[r.start:]...)
	return append(out, r.buf[:r.start]...)
}

func (r *ring) tail(n int) string {
	l := r.lines()
	if len(l) > n {
		l = l[len(l)-n:]
	}
	return strings.Join(l, " | ")
}

// relayStderr re-emits the plugin's stderr into the host log: JSON lines
// from slog keep their level and message, other lines are logged as text.
func relayStderr(r io.Reader, log *slog.Logger, keep *ring) {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := readCapped(br, maxStderrLine)
		if len(line) > 0 {
			keep.add(line)
			emit(log, line)
		}
		if err != nil {
			return
		}
	}
}

// readCapped reads a line, keeping at most max bytes of it.
func readCapped(br *bufio.Reader, max int) (string, error) {
	var b []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if room := max - len(b); room > 0 {
			b = append(b, chunk[:min(len(chunk), room)]...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		s := strings.TrimRight(string(b), "\r\n")
		for !utf8.ValidString(s) && len(s) > 0 {
			s = s[:len(s)-1]
		}
		return s, err
	}
}

func emit(log *slog.Logger, line string) {
	var rec map[string]any
	if json.Unmarshal([]byte(line), &rec) == nil {
		msg, _ := rec["msg"].(string)
		lvl := slog.LevelInfo
		if s, ok := rec["level"].(string); ok {
			_ = lvl.UnmarshalText([]byte(s))
		}
		attrs := make([]any, 0, 2*len(rec))
		for k, v := range rec {
			if k == "msg" || k == "level" || k == "time" || k == "plugin" {
				continue
			}
			attrs = append(attrs, k, v)
		}
		if msg != "" {
			log.Log(context.Background(), lvl, msg, attrs...)
			return
		}
	}
	log.Info("plugin stderr", "line", line)
}
