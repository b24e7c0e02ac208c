// Package redact keeps secrets out of what Hearth prints and logs: the
// configured API keys, matched exactly, and text that looks like a key
// (sk-..., bearer tokens, api_key=...) in messages from outside.
package redact

import (
	"io"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// MinSecret is the shortest value Secrets masks; shorter ones would mask
// ordinary words.
const MinSecret = 8

// Mask shows only the last four characters of a secret.
func Mask(k string) string {
	switch {
	case k == "":
		return "not set"
	case len(k) <= MinSecret:
		return "****"
	default:
		return "****" + k[len(k)-4:]
	}
}

// Secrets is a set of exact values to mask, such as the API keys of every
// model source. The zero value is an empty set, safe for concurrent use.
type Secrets struct {
	mu   sync.RWMutex
	vals []string // longest first, so a key containing another is masked whole
}

// Add adds values to the set; empty and short ones (under MinSecret bytes)
// are ignored.
func (s *Secrets) Add(vals ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, v := range vals {
		v = strings.TrimSpace(v)
		if len(v) < MinSecret || slices.Contains(s.vals, v) {
			continue
		}
		s.vals = append(s.vals, v)
	}
	slices.SortFunc(s.vals, func(a, b string) int { return len(b) - len(a) })
}

func (s *Secrets) list() []string {
	if s == nil {
		return nil
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.vals
}

// String masks every secret of the set in text.
func (s *Secrets) String(text string) string {
	for _, v := range s.list() {
		if strings.Contains(text, v) {
			text = strings.ReplaceAll(text, v, Mask(v))
		}
	}
	return text
}

// All masks the set's secrets and anything that looks like a key.
func (s *Secrets) All(text string) string { return KeyLike(s.String(text)) }

// keyLike matches what is probably a credential: OpenAI-style sk- keys,
// bearer tokens, and values of fields named like a key or token. The
// secret itself is the last submatch.
var keyLike = []*regexp.Regexp{
	regexp.MustCompile(`\b(sk[-_][A-Za-z0-9_\-]{8,})`),
	regexp.MustCompile(`(?i)\bbearer\s+([A-Za-z0-9._~+/=\-]{8,})`),
	regexp.MustCompile(`(?i)(?:api[_-]?key|access[_-]?token|secret|password)\\?["']?\s*[:=]\s*\\?["']?([A-Za-z0-9._~+/=\-]{8,})`),
}

// KeyLike masks text that looks like an API key or token. It is meant for
// messages from outside (a provider's error body), where a key the user
// never configured here may still be echoed.
func KeyLike(text string) string {
	for _, re := range keyLike {
		text = re.ReplaceAllStringFunc(text, func(m string) string {
			sub := re.FindStringSubmatchIndex(m)
			start, end := sub[len(sub)-2], sub[len(sub)-1]
			if start < 0 || strings.HasPrefix(m[start:end], "****") {
				return m
			}
			return m[:start] + Mask(m[start:end]) + m[end:]
		})
	}
	return text
}

// Writer masks each write whole before passing it on. Use it where every
// write is a complete message (a log handler writes one record at a time);
// for text written in pieces use Stream.
type Writer struct {
	w    io.Writer
	mask func(string) string
}

// NewWriter returns a writer that masks with mask before writing to w.
func NewWriter(w io.Writer, mask func(string) string) *Writer {
	return &Writer{w: w, mask: mask}
}

// Write masks p and writes it. It reports len(p) on success, whatever
// the masked length.
func (w *Writer) Write(p []byte) (int, error) {
	s := w.mask(string(p))
	if _, err := io.WriteString(w.w, s); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Stream masks the secrets of a set in text written in pieces (a streamed
// answer): a piece that ends in the beginning of a secret is held back
// until the next write or Flush shows whether the secret follows.
type Stream struct {
	mu      sync.Mutex
	w       io.Writer
	secrets *Secrets
	pending string
}

// NewStream returns a stream writing to w with the set's secrets masked.
func NewStream(w io.Writer, secrets *Secrets) *Stream {
	return &Stream{w: w, secrets: secrets}
}

// Write masks and writes what cannot be the start of a secret.
func (s *Stream) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	text := s.secrets.String(s.pending + string(p))
	hold := 0
	for _, v := range s.secrets.list() {
		for k := min(len(v)-1, len(text)); k > hold; k-- {
			if strings.HasSuffix(text, v[:k]) {
				hold = k
				break
			}
		}
	}
	s.pending = text[len(text)-hold:]
	if _, err := io.WriteString(s.w, text[:len(text)-hold]); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes what is held back.
func (s *Stream) Flush() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pending == "" {
		return nil
	}
	_, err := io.WriteString(s.w, s.pending)
	s.pending = ""
	return err
}
