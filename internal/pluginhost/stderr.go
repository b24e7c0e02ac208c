package pluginhost

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"time"
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
	// mask, when set, masks secrets in a line before it is kept or
	// logged (an MCP server's env and header values).
	mask func(string) string
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

// The stderr relay's budget per plugin: a burst, then a steady rate. What
// goes over is dropped and counted, and the count is logged once lines
// pass again (or when the stream ends), so a plugin that floods its
// stderr costs bounded log space and CPU.
const (
	stderrBurstLines = 500
	stderrBurstBytes = 256 << 10
	stderrLinesPerS  = 50
	stderrBytesPerS  = 32 << 10
)

// relayStderr re-emits the plugin's stderr into the host log: JSON lines
// from slog keep their level and message, other lines are logged as text.
// Lines longer than maxStderrLine are cut, and the relay is rate limited.
func relayStderr(r io.Reader, log *slog.Logger, keep *ring) {
	relayStderrAt(r, log, keep, newBucket(time.Now))
}

func relayStderrAt(r io.Reader, log *slog.Logger, keep *ring, b *bucket) {
	br := bufio.NewReaderSize(r, 64<<10)
	dropped := 0
	summary := func() {
		if dropped > 0 {
			log.Warn(fmt.Sprintf("plugin stderr: %d lines dropped (over the rate limit)", dropped), "dropped_lines", dropped)
			dropped = 0
		}
	}
	defer summary()
	for {
		line, cut, err := readLine(br, maxStderrLine)
		if cut > 0 {
			line += fmt.Sprintf(" …(%d bytes cut)", cut)
		}
		if len(line) > 0 {
			if keep.mask != nil {
				line = keep.mask(line)
			}
			keep.add(line)
			if b.take(len(line)) {
				summary()
				emit(log, line)
			} else {
				dropped++
			}
		}
		if err != nil {
			return
		}
	}
}

// bucket is a token bucket of lines and bytes.
type bucket struct {
	now          func() time.Time
	last         time.Time
	lines, bytes float64
}

func newBucket(now func() time.Time) *bucket {
	return &bucket{now: now, last: now(), lines: stderrBurstLines, bytes: stderrBurstBytes}
}

// take spends one line of n bytes if the budget allows.
func (b *bucket) take(n int) bool {
	t := b.now()
	if dt := t.Sub(b.last).Seconds(); dt > 0 {
		b.lines = min(stderrBurstLines, b.lines+dt*stderrLinesPerS)
		b.bytes = min(stderrBurstBytes, b.bytes+dt*stderrBytesPerS)
		b.last = t
	}
	if b.lines < 1 || b.bytes < float64(n) {
		return false
	}
	b.lines--
	b.bytes -= float64(n)
	return true
}

// readLine reads a line, keeping at most limit bytes of it (cut to whole
// UTF-8 characters); cut is how many bytes of the line were dropped.
func readLine(br *bufio.Reader, limit int) (s string, cut int, err error) {
	var b []byte
	total := 0
	for {
		chunk, err := br.ReadSlice('\n')
		total += len(chunk)
		if room := limit - len(b); room > 0 {
			b = append(b, chunk[:min(len(chunk), room)]...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		total -= len(chunk) - len(bytes.TrimRight(chunk, "\r\n"))
		s := strings.TrimRight(string(b), "\r\n")
		for !utf8.ValidString(s) && len(s) > 0 {
			s = s[:len(s)-1]
		}
		return s, max(0, total-len(s)), err
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
