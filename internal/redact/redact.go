// Package redact keeps secrets out of what Hearth prints and logs: the
// configured API keys, whole, in part or in the forms a server echoing
// them uses (any case; JSON-, URL- and HTML-escaped; hex; base64), and
// text that looks like a key (sk-..., bearer tokens, api_key=...) in
// messages from outside.
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

// Secrets is a set of secrets to mask, such as the API keys of every model
// source. A secret is found not only as it is but in the forms a server
// echoing it is likely to use: in any case of its letters, JSON-escaped
// (`\/`, `\u002b`), URL-escaped (query and path), HTML character references
// (`&#43;`, `&#x2F;`), hex, base64 (standard and URL, at any alignment
// inside a longer encoded text), with a space between its characters, and
// in part: any run of at least
// GramLen consecutive characters of one of these forms (of the whole form,
// if it is shorter) is masked, so a key cut short or echoed in pieces does
// not leak either. The zero value is an empty set, safe for concurrent use.
type Secrets struct {
	mu   sync.RWMutex
	vals []string
	idx  *index // nil when empty
}

// GramLen is the shortest part of a secret that is masked on its own.
const GramLen = 12

// Add adds values to the set; empty and short ones (under MinSecret bytes)
// are ignored.
func (s *Secrets) Add(vals ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	added := false
	for _, v := range vals {
		v = strings.TrimSpace(v)
		if len(v) < MinSecret || slices.Contains(s.vals, v) {
			continue
		}
		s.vals = append(s.vals, v)
		added = true
	}
	if added {
		s.idx = newIndex(s.vals)
	}
}

func (s *Secrets) index() *index {
	if s == nil {
		return nil
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.idx
}

// String masks every secret of the set in text: each run of text made of
// a secret's parts becomes that secret's Mask.
func (s *Secrets) String(text string) string {
	idx := s.index()
	if idx == nil {
		return text
	}
	return idx.mask(text, idx.find(text))
}

// All masks the set's secrets and anything that looks like a key.
func (s *Secrets) All(text string) string { return KeyLike(s.String(text)) }

// keyLike matches what is probably a credential: OpenAI-style sk- keys,
// bearer tokens, and values of fields named like a key or token. The
// secret itself is the last submatch.
var keyLike = []*regexp.Regexp{
	regexp.MustCompile(`(?i)\b(sk[-_][A-Za-z0-9_\-]{8,})`),
	regexp.MustCompile(`(?i)\bbearer\s+([A-Za-z0-9._~+/=\-]{8,})`),
	regexp.MustCompile(`(?i)(?:api[_-]?key|access[_-]?token|secret|password)\\?["']?\s*[:=]\s*\\?["']?([A-Za-z0-9._~+/=\-]{8,})`),
}

// word is an ordinary word of prose: letters only, lower case after the
// first, as in "api_key: preferences are not secret".
var word = regexp.MustCompile(`^[A-Za-z][a-z]{0,23}$`)

// proseWord reports whether the value text[start:end] after a key-like
// name is a word of a sentence rather than a value: an ordinary word the
// sentence goes on after (a space, then a letter). A value at the end of
// a line, a quoted one, or one with digits, capitals inside or symbols,
// is a value.
func proseWord(text string, start, end int) bool {
	if start > 0 && (text[start-1] == '"' || text[start-1] == '\'') {
		return false // a quoted value
	}
	rest := text[end:]
	return word.MatchString(text[start:end]) && len(rest) >= 2 && rest[0] == ' ' && isLetter(rest[1])
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// KeyLike masks text that looks like an API key or token. It is meant for
// messages from outside (a provider's error body), where a key the user
// never configured here may still be echoed. After a field name (api_key,
// password, ...) an ordinary word that a sentence goes on after is prose,
// not a value, and stays.
func KeyLike(text string) string {
	for n, re := range keyLike {
		var b strings.Builder
		last := 0
		for _, sub := range re.FindAllStringSubmatchIndex(text, -1) {
			start, end := sub[len(sub)-2], sub[len(sub)-1]
			if start < 0 || strings.HasPrefix(text[start:end], "****") || n == len(keyLike)-1 && proseWord(text, start, end) {
				continue
			}
			b.WriteString(text[last:start])
			b.WriteString(Mask(text[start:end]))
			last = end
		}
		if last > 0 {
			b.WriteString(text[last:])
			text = b.String()
		}
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
// answer), exactly as Secrets.String would mask the whole: the end of a
// piece that may still be, or continue, a secret's part is held back until
// the next write or Flush shows what follows.
type Stream struct {
	mu      sync.Mutex
	w       io.Writer
	secrets *Secrets
	pending string // raw text not yet written
}

// NewStream returns a stream writing to w with the set's secrets masked.
func NewStream(w io.Writer, secrets *Secrets) *Stream {
	return &Stream{w: w, secrets: secrets}
}

// Write masks and writes what no later text can change.
func (s *Stream) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	text := s.pending + string(p)
	idx := s.secrets.index()
	if idx == nil {
		s.pending = ""
		if _, err := io.WriteString(s.w, text); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	found := idx.find(text)
	// A part found later starts at cut or after; a run of parts found
	// already that reaches past cut may still grow, so it waits whole.
	cut := max(0, len(text)-(idx.maxGram-1))
	var done []run
	for i, r := range found {
		if r.end > cut {
			cut = min(cut, r.start)
			done = found[:i]
			break
		}
		done = found[:i+1]
	}
	s.pending = text[cut:]
	if _, err := io.WriteString(s.w, idx.mask(text[:cut], done)); err != nil {
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
	_, err := io.WriteString(s.w, s.secrets.String(s.pending))
	s.pending = ""
	return err
}
