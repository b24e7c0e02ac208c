package llm

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sort"
	"sync"
	"time"

	"github.com/hearth-agent/hearth/internal/redact"
	"github.com/hearth-agent/hearth/sdk"
)

// Source is one named model endpoint.
type Source struct {
	Name    string
	BaseURL string
	APIKey  string
	Model   string
	// ContextWindow is the model's context window in tokens; 0 means the
	// default known for the model.
	ContextWindow int
	// Price is what the source's model costs; nil means the built-in
	// price of the model when Hearth knows one (KnownPrice).
	Price *Price
	// Images says whether the model accepts images in its input; nil
	// means Hearth decides from the model's name (ModelAcceptsImages).
	Images *bool
	// API is the wire format the source speaks: APIOpenAI (also "") or
	// APIAnthropic.
	API string
	// MaxTokens caps one answer's tokens where the wire needs a cap
	// (Anthropic's max_tokens); zero means DefaultAnthropicMaxTokens.
	MaxTokens int
	// ThinkingBudget, at least MinThinkingBudget, turns on Anthropic's
	// extended thinking with that many tokens; zero leaves it off.
	ThinkingBudget int

	// MaxRetries and Backoff are the source's Client's retry policy;
	// zero means the Client's default.
	MaxRetries int
	Backoff    time.Duration

	// Limits of the source's client; zero means the Client's default.
	ConnectTimeout   time.Duration
	FirstByteTimeout time.Duration
	IdleTimeout      time.Duration
	AnswerTimeout    time.Duration
	MaxResponseBytes int64
}

// String describes the source with its key masked.
func (s Source) String() string {
	return fmt.Sprintf("%s (%s, model %q, key %s)", s.Name, s.BaseURL, s.Model, MaskKey(s.APIKey))
}

// MaskKey shows only the last four characters of a secret.
func MaskKey(k string) string { return redact.Mask(k) }

// Sources holds the named sources and which one is current. Switching
// takes effect for the next model call, without a restart. It implements
// Provider (through the current source) and sdk.LLMAPI.
type Sources struct {
	HTTP *http.Client // shared by every source; nil means a default

	mu      sync.RWMutex
	sources map[string]*Client
	meta    map[string]Source
	current string
	secrets redact.Secrets // every source's key, ever
	log     *slog.Logger   // the clients' Logger (SetLogger)

	fallback []string             // fallback.go: SetFallback
	rejected map[string]rejection // fallback.go: source -> its refused key
	cooling  map[string]cooldown  // fallback.go: source -> its rest after failing
	now      func() time.Time     // nil: time.Now; tests set it

	// OnReject, when set, is told each time a provider refuses a
	// source's key (by its KeyHash), to keep the mark across restarts
	// (MarkRejected). It is called on the calling goroutine; set it
	// before the first Chat.
	OnReject func(source, keyHash, reason string)
}

var (
	_ Provider   = (*Sources)(nil)
	_ sdk.LLMAPI = (*Sources)(nil)
)

// NewSources returns the sources, with current selected. An empty current
// picks the first source by name.
func NewSources(list []Source, current string) (*Sources, error) {
	s := &Sources{sources: map[string]*Client{}, meta: map[string]Source{}}
	for _, src := range list {
		s.put(src)
	}
	if current == "" && len(list) > 0 {
		current = s.ListSources()[0]
	}
	if current != "" {
		if err := s.SetSource(current); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func (s *Sources) put(src Source) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.meta[src.Name] = src
	s.secrets.Add(src.APIKey)
	s.sources[src.Name] = &Client{BaseURL: src.BaseURL, APIKey: src.APIKey, Model: src.Model, HTTP: s.HTTP,
		ConnectTimeout: src.ConnectTimeout, FirstByteTimeout: src.FirstByteTimeout, IdleTimeout: src.IdleTimeout,
		AnswerTimeout: src.AnswerTimeout, MaxResponseBytes: src.MaxResponseBytes, Redact: s.secrets.All,
		Logger: s.log, API: src.API, MaxTokens: src.MaxTokens, ThinkingBudget: src.ThinkingBudget,
		MaxRetries: src.MaxRetries, Backoff: src.Backoff}
}

// SetLogger makes every source log its requests to l at debug level (see
// Client.Logger); nil means slog.Default(). The sources' clients are made
// anew, so a call in flight keeps the logger it had.
func (s *Sources) SetLogger(l *slog.Logger) {
	s.mu.Lock()
	s.log = l
	list := make([]Source, 0, len(s.meta))
	for _, src := range s.meta {
		list = append(list, src)
	}
	s.mu.Unlock()
	for _, src := range list {
		s.put(src)
	}
}

// Secrets returns the set of every source's API key, for masking what
// Hearth prints and logs.
func (s *Sources) Secrets() *redact.Secrets { return &s.secrets }

// Redact masks every source's API key in text.
func (s *Sources) Redact(text string) string { return s.secrets.String(text) }

// Put adds or replaces a source. A source replaced by another address,
// key or model no longer rests after its failures (fallback.go).
func (s *Sources) Put(src Source) {
	s.mu.Lock()
	if old, ok := s.meta[src.Name]; ok && (old.BaseURL != src.BaseURL || old.APIKey != src.APIKey || old.Model != src.Model) {
		delete(s.cooling, src.Name)
	}
	s.mu.Unlock()
	s.put(src)
}

// Source returns the source called name, as it runs (overrides such as
// --model applied).
func (s *Sources) Source(name string) (Source, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	src, ok := s.meta[name]
	return src, ok
}

// ErrCurrentSource is returned by Remove for the source in use.
var ErrCurrentSource = errors.New("the model source is in use; switch to another one first")

// Remove forgets the source called name; removing one that does not
// exist does nothing. Its key stays in Secrets: what was masked once is
// masked for good.
func (s *Sources) Remove(name string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if name == s.current {
		return ErrCurrentSource
	}
	delete(s.meta, name)
	delete(s.sources, name)
	return nil
}

// ListSources returns the source names, sorted.
func (s *Sources) ListSources() []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	names := make([]string, 0, len(s.meta))
	for n := range s.meta {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// SetSource makes name the current source.
func (s *Sources) SetSource(name string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.meta[name]; !ok {
		return fmt.Errorf("unknown model source %q", name)
	}
	s.current = name
	return nil
}

// CurrentSource returns the current source's name.
func (s *Sources) CurrentSource() string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.current
}

// Current returns the current source.
func (s *Sources) Current() (Source, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	src, ok := s.meta[s.current]
	return src, ok
}

// maskedError shows an error with keys masked and still matches what it
// wraps.
type maskedError struct {
	msg string
	err error
}

func (e *maskedError) Error() string { return e.msg }
func (e *maskedError) Unwrap() error { return e.err }
