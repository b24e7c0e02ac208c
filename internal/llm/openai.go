package llm

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"math/rand/v2"
	"mime"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hearth-agent/hearth/internal/redact"
)

// Errors callers branch on.
var (
	// ErrAuth means the provider rejected the API key (HTTP 401 or 403).
	ErrAuth = errors.New("the provider rejected the API key")
	// ErrNoSource means no model source is configured.
	ErrNoSource = errors.New("no model provider is configured")
	// ErrIncomplete means the answer was cut off: the stream ended, or the
	// connection broke, before the provider said the answer was finished
	// (a finish_reason or [DONE]). Chat returns the partial answer with it.
	ErrIncomplete = errors.New("the answer was cut off")
	// ErrEmptyAnswer means the provider finished an answer with neither
	// text nor tool calls.
	ErrEmptyAnswer = errors.New("the model returned an empty answer")
	// ErrMalformed means the answer was not valid JSON or server-sent
	// events; it is retried once.
	ErrMalformed = errors.New("the provider's answer is malformed")
	// ErrNotAPI means the server answered with something that is not a
	// chat completions API at all, such as an HTML page: usually a wrong
	// base URL.
	ErrNotAPI = errors.New("the server did not answer as a chat completions API")
	// ErrTooLarge means the answer went over the size limit
	// (Client.MaxResponseBytes).
	ErrTooLarge = errors.New("the model's answer is too large")
	// ErrTimeout means the provider did not answer in time; a
	// *TimeoutError says which wait ran out.
	ErrTimeout = errors.New("the provider did not answer in time")
)

// TimeoutError is a wait for the provider that ran out.
type TimeoutError struct {
	Wait  string        // "first byte", "idle" or "answer"
	After time.Duration // the timeout that ran out
	// KeptAlive is set when the provider sent only keep-alives (SSE
	// comments, blank lines) during the wait: they are not progress.
	KeptAlive bool
}

// Error says which wait ran out and after how long, naming its setting.
func (e *TimeoutError) Error() string {
	what := "sent nothing"
	if e.KeptAlive {
		what = "sent only keep-alive comments"
	}
	switch e.Wait {
	case "answer":
		return fmt.Sprintf("the provider's answer took longer than %s (answer_timeout)", e.After)
	case "idle":
		if e.KeptAlive {
			return fmt.Sprintf("the provider %s for %s in the middle of the answer (idle_timeout)", what, e.After)
		}
		return fmt.Sprintf("the provider stopped sending for %s in the middle of the answer (idle_timeout)", e.After)
	}
	return fmt.Sprintf("the provider %s for %s after the request (first_byte_timeout)", what, e.After)
}

// Unwrap lets errors.Is(err, ErrTimeout) match.
func (e *TimeoutError) Unwrap() error { return ErrTimeout }

// APIError is an error answer from the provider.
type APIError struct {
	Status  int    // HTTP status, 0 for an error inside a stream
	Message string // the provider's message, with keys masked
	Type    string
	// RetryAfter is the delay the provider asked for, if any.
	RetryAfter time.Duration
}

func (e *APIError) Error() string {
	if e.Status == 0 {
		return "provider error: " + e.Message
	}
	return fmt.Sprintf("provider answered %d: %s", e.Status, e.Message)
}

// Unwrap lets errors.Is(err, ErrAuth) match authentication failures.
func (e *APIError) Unwrap() error {
	if e.Status == http.StatusUnauthorized || e.Status == http.StatusForbidden {
		return ErrAuth
	}
	return nil
}

func (e *APIError) retryable() bool {
	switch e.Status {
	case http.StatusTooManyRequests, http.StatusInternalServerError, http.StatusBadGateway,
		http.StatusServiceUnavailable, http.StatusGatewayTimeout, StatusOverloaded:
		return true
	}
	return false
}

// Defaults of the Client's limits.
const (
	DefaultConnectTimeout   = 10 * time.Second
	DefaultFirstByteTimeout = 120 * time.Second // reasoning models think long before the first token
	DefaultIdleTimeout      = 60 * time.Second
	DefaultAnswerTimeout    = 10 * time.Minute
	DefaultMaxResponseBytes = 4 << 20
)

// Client is a chat client of one source: OpenAI-compatible chat
// completions, or Anthropic's Messages API when API says so. The zero
// value is not usable; fill BaseURL at least.
type Client struct {
	BaseURL string // e.g. https://api.deepseek.com/v1
	APIKey  string // sent as a bearer token; never logged
	Model   string // used when a request names none
	// HTTP sends the requests. Nil means a client of its own whose
	// dialer and TLS handshake honour ConnectTimeout.
	HTTP *http.Client

	// MaxRetries is how many times a transient failure is retried: a 429
	// or 5xx answer, a connection failure, a timeout, or an answer cut
	// off, all before any part of the answer was passed on. Zero means 3;
	// negative none. A malformed answer is retried once.
	MaxRetries int
	// Backoff is the first retry delay, doubled on each retry with
	// jitter. Zero means one second. A Retry-After header wins.
	Backoff time.Duration
	// MaxRetryAfter caps how long a Retry-After may make it wait; a
	// longer one fails at once. Zero means one minute.
	MaxRetryAfter time.Duration

	// ConnectTimeout bounds connecting, TLS included (only when HTTP is
	// nil). Zero means DefaultConnectTimeout.
	ConnectTimeout time.Duration
	// FirstByteTimeout bounds the wait from sending a request to the first
	// piece of the answer: a streamed event that parses, or the start of
	// a JSON document. Keep-alive comments and blank lines are not
	// pieces. Zero means DefaultFirstByteTimeout.
	FirstByteTimeout time.Duration
	// IdleTimeout bounds the wait between two pieces of an answer once it
	// has begun; keep-alives do not count. Zero means DefaultIdleTimeout.
	IdleTimeout time.Duration
	// AnswerTimeout bounds one Chat call from start to end, retries
	// included, so no provider holds a turn forever. Zero means
	// DefaultAnswerTimeout.
	AnswerTimeout time.Duration
	// MaxResponseBytes caps one answer: its text, reasoning and tool call
	// arguments together. The answer is read piece by piece and dropped
	// with ErrTooLarge once over. Zero means DefaultMaxResponseBytes.
	MaxResponseBytes int64

	// Redact masks secrets in the provider's messages before they become
	// errors. Nil masks APIKey and anything that looks like a key.
	Redact func(string) string
	// Logger receives a debug record of every request (see logRequest);
	// nil means slog.Default().
	Logger *slog.Logger

	// API is the wire format: APIOpenAI (also "") or APIAnthropic
	// (anthropic.go), with its MaxTokens and ThinkingBudget.
	API            string
	MaxTokens      int
	ThinkingBudget int

	once sync.Once
	own  *http.Client
}

var _ Provider = (*Client)(nil)

type wireRequest struct {
	Model         string     `json:"model"`
	Messages      []Message  `json:"messages"`
	Tools         []ToolSpec `json:"tools,omitempty"`
	Stream        bool       `json:"stream"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options,omitempty"`
}

// Chat sends req and streams the answer to onDelta. Retries happen only
// before any part of the answer was passed to onDelta, so onDelta never
// sees text twice. An answer cut off after it began is returned, as far
// as it came, with an error wrapping ErrIncomplete.
func (c *Client) Chat(ctx context.Context, req *Request, onDelta func(Delta)) (*Response, error) {
	return c.chat(ctx, req, onDelta, c.retries(), 0)
}

// retries is how many times c retries a transient failure (MaxRetries).
func (c *Client) retries() int {
	switch {
	case c.MaxRetries == 0:
		return 3
	case c.MaxRetries < 0:
		return 0
	}
	return c.MaxRetries
}

// chat is Chat with at most retries retries, none after which it would
// wait longer than maxWait (when not zero): a fallback answers sooner.
func (c *Client) chat(ctx context.Context, req *Request, onDelta func(Delta), retries int, maxWait time.Duration) (*Response, error) {
	wr := wireRequest{Model: req.Model, Messages: req.Messages, Tools: req.Tools, Stream: true}
	if wr.Model == "" {
		wr.Model = c.Model
	}
	wr.StreamOptions = &struct {
		IncludeUsage bool `json:"include_usage"`
	}{true}
	var body []byte
	var err error
	if c.anthropic() {
		body, err = c.encodeAnthropic(req, wr.Model)
	} else {
		body, err = encodeRequest(wr)
	}
	if err != nil {
		return nil, fmt.Errorf("encoding request: %w", err)
	}
	total := orDefault(c.AnswerTimeout, DefaultAnswerTimeout)
	ctx, cancel := context.WithTimeoutCause(ctx, total, &TimeoutError{Wait: "answer", After: total})
	defer cancel()
	malformed := 0
	for attempt := 0; ; attempt++ {
		started := false
		sent := time.Now()
		resp, status, err := c.attempt(ctx, body, func(d Delta) {
			started = true
			if onDelta != nil {
				onDelta(d)
			}
		})
		c.logRequest(ctx, &wr, status, time.Since(sent), err)
		if err == nil {
			return resp, nil
		}
		if ctx.Err() != nil {
			if te, ok := answerTimeout(ctx); ok {
				return answerRunOut(resp, started, err, te)
			}
			return nil, ctx.Err()
		}
		if started {
			return resp, err // never retried: the caller has seen part of it
		}
		if errors.Is(err, ErrMalformed) {
			malformed++
		}
		wait, ok := c.retryDelay(err, attempt)
		if !ok || attempt >= retries || malformed > 1 || (maxWait > 0 && wait > maxWait) {
			return nil, err
		}
		if onDelta != nil {
			onDelta(Delta{Retry: &Retry{Attempt: attempt + 1, After: wait, Reason: retryReason(err)}})
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			if te, ok := answerTimeout(ctx); ok {
				return nil, te
			}
			return nil, ctx.Err()
		case <-t.C:
		}
	}
}

// answerTimeout reports whether ctx ended by the answer timeout.
func answerTimeout(ctx context.Context) (*TimeoutError, bool) {
	var te *TimeoutError
	if errors.As(context.Cause(ctx), &te) && te.Wait == "answer" {
		return te, true
	}
	return nil, false
}

// answerRunOut is what Chat returns when the answer timeout ran out
// during an attempt that ended with err: the answer so far, if any was
// passed on, with an error wrapping ErrIncomplete.
func answerRunOut(resp *Response, started bool, err error, te *TimeoutError) (*Response, error) {
	if !started {
		return nil, te
	}
	if errors.Is(err, ErrTimeout) {
		return resp, err // already explained by the watchdog
	}
	return resp, fmt.Errorf("%w: %w", ErrIncomplete, te)
}

// readers are the buffers answers are read through, kept between
// requests: a stream's lines of any length are read through one
// (readSSE joins the pieces), so its size only sets how many reads a long
// event takes; a new 64 KiB buffer per request was 44 % of the bytes a
// turn allocated.
var readers = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, readerSize) }}

const readerSize = 16 << 10

// attempt sends one request and reads its answer, with the first-byte and
// idle deadlines enforced by a watchdog that cancels the request.
// The status is the answer's HTTP status, 0 when none came.
func (c *Client) attempt(ctx context.Context, body []byte, onDelta func(Delta)) (_ *Response, status int, _ error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	wd := newWatchdog(cancel)
	defer wd.stop()
	wd.arm(orDefault(c.FirstByteTimeout, DefaultFirstByteTimeout), "first byte")
	idle := orDefault(c.IdleTimeout, DefaultIdleTimeout)
	resp, err := c.do(ctx, body)
	if err != nil {
		var apiErr *APIError
		if errors.As(err, &apiErr) {
			status = apiErr.Status
		}
		return nil, status, wd.explain(ctx, err)
	}
	defer resp.Body.Close()
	status = resp.StatusCode
	limit := c.MaxResponseBytes
	if limit <= 0 {
		limit = DefaultMaxResponseBytes
	}
	wb := &watchedBody{r: resp.Body, wd: wd, idle: idle, left: wireLimit(limit)}
	br := readers.Get().(*bufio.Reader)
	br.Reset(wb)
	defer func() { br.Reset(nil); readers.Put(br) }() // nothing keeps br: events are copied out (readSSE)
	// Progress, which re-arms the watchdog, is a streamed event that
	// parses, not bytes: a server that sends only keep-alive comments
	// is as silent as one that sends nothing.
	d := decoder{limit: limit, maxLine: lineLimit(limit), onDelta: onDelta, redact: c.redact,
		onEvent: func() { wd.arm(idle, "idle") }}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	var out *Response
	switch kind := sniff(mt, br); kind {
	case "json":
		// A whole JSON document has begun: from here on its bytes are
		// progress.
		wd.arm(idle, "idle")
		wb.progress = true
		if c.anthropic() {
			out, err = d.anthropicWhole(br)
		} else {
			out, err = d.whole(br)
		}
	case "stream":
		if c.anthropic() {
			out, err = d.anthropicStream(br)
		} else {
			out, err = d.stream(br)
		}
	default:
		return nil, status, fmt.Errorf("%w: %s answered with %s (status %d); "+
			"check the base URL (OpenAI-compatible APIs usually end in /v1)", ErrNotAPI, c.endpoint(), kind, resp.StatusCode)
	}
	if err != nil {
		return out, status, wd.explain(ctx, err)
	}
	return out, status, nil
}

// sniff tells how to read a successful answer: by its content type and
// its first byte, which also catches an HTML page sent as something else.
func sniff(mediaType string, br *bufio.Reader) string {
	if mediaType == "text/html" || mediaType == "application/xhtml+xml" {
		return "an HTML page"
	}
	for {
		b, err := br.ReadByte()
		if err != nil {
			return "stream" // empty: reported as cut off
		}
		switch b {
		case ' ', '\t', '\r', '\n':
			continue
		case '<':
			return "an HTML page"
		}
		_ = br.UnreadByte()
		if b == '{' || mediaType == "application/json" {
			return "json"
		}
		return "stream"
	}
}

func (c *Client) endpoint() string {
	if c.anthropic() {
		return anthropicEndpoint(c.BaseURL)
	}
	return strings.TrimRight(c.BaseURL, "/") + "/chat/completions"
}

func (c *Client) redact(s string) string {
	if c.Redact != nil {
		return c.Redact(s)
	}
	var key redact.Secrets
	key.Add(c.APIKey)
	return key.All(s)
}

// maxIdleConnsPerHost is how many idle connections to the provider a
// client keeps.
const maxIdleConnsPerHost = 64

func (c *Client) httpClient() *http.Client {
	if c.HTTP != nil {
		return c.HTTP
	}
	c.once.Do(func() {
		connect := orDefault(c.ConnectTimeout, DefaultConnectTimeout)
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.DialContext = (&net.Dialer{Timeout: connect, KeepAlive: 30 * time.Second}).DialContext
		tr.TLSHandshakeTimeout = connect
		// A daemon answers many conversations at once, all to this one
		// host: keep their connections (the default keeps 2, and every
		// other turn would pay a new TCP and TLS handshake).
		tr.MaxIdleConnsPerHost = maxIdleConnsPerHost
		c.own = &http.Client{Transport: tr}
	})
	return c.own
}

func (c *Client) do(ctx context.Context, body []byte) (*http.Response, error) {
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint(), bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("building request: %w", err)
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "text/event-stream")
	c.setAuth(hreq.Header)
	resp, err := c.httpClient().Do(hreq)
	if err != nil {
		return nil, &netError{err: err, msg: c.redact(err.Error())}
	}
	if resp.StatusCode/100 == 2 {
		return resp, nil
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	apiErr := &APIError{Status: resp.StatusCode, Message: c.redact(errorMessage(b))}
	apiErr.RetryAfter = parseRetryAfter(resp.Header.Get("Retry-After"))
	return nil, apiErr
}

func orDefault(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// netError is a failure to reach the provider at all.
type netError struct {
	err error
	msg string // err's text, keys masked
}

func (e *netError) Error() string { return "cannot reach the provider: " + e.msg }
func (e *netError) Unwrap() error { return e.err }

// retryDelay says whether err is worth another try, and after how long.
func (c *Client) retryDelay(err error, attempt int) (time.Duration, bool) {
	var apiErr *APIError
	var nerr *netError
	switch {
	case errors.As(err, &apiErr):
		if !apiErr.retryable() {
			return 0, false
		}
		if apiErr.RetryAfter > 0 {
			limit := c.MaxRetryAfter
			if limit == 0 {
				limit = time.Minute
			}
			return apiErr.RetryAfter, apiErr.RetryAfter <= limit
		}
	case errors.As(err, &nerr), errors.Is(err, ErrTimeout), errors.Is(err, ErrIncomplete), errors.Is(err, ErrMalformed):
	default:
		return 0, false
	}
	base := c.Backoff
	if base == 0 {
		base = time.Second
	}
	d := base << attempt
	return d/2 + rand.N(d/2+1), true
}

// watchdog cancels a request whose provider keeps it waiting too long.
type watchdog struct {
	cancel context.CancelCauseFunc
	mu     sync.Mutex
	t      *time.Timer
	wait   string
	d      time.Duration
	kept   bool // bytes that were not progress came since the last arm
}

func newWatchdog(cancel context.CancelCauseFunc) *watchdog {
	return &watchdog{cancel: cancel}
}

// arm (re)starts the countdown: after d without another arm, the request
// is cancelled with a *TimeoutError naming wait.
func (w *watchdog) arm(d time.Duration, wait string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.wait, w.d, w.kept = wait, d, false
	if w.t == nil {
		w.t = time.AfterFunc(d, w.fire)
		return
	}
	w.t.Reset(d)
}

func (w *watchdog) fire() {
	w.mu.Lock()
	err := &TimeoutError{Wait: w.wait, After: w.d, KeptAlive: w.kept}
	w.mu.Unlock()
	w.cancel(err)
}

// keptAlive notes that bytes came which were not progress.
func (w *watchdog) keptAlive() {
	w.mu.Lock()
	w.kept = true
	w.mu.Unlock()
}

func (w *watchdog) stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.t != nil {
		w.t.Stop()
	}
}

// explain replaces the error of a request the watchdog cancelled by the
// timeout, keeping ErrIncomplete when the answer had begun (no part of it
// came before the first byte timeout).
func (w *watchdog) explain(ctx context.Context, err error) error {
	var te *TimeoutError
	if !errors.As(context.Cause(ctx), &te) {
		return err
	}
	if errors.Is(err, ErrIncomplete) && te.Wait != "first byte" {
		return fmt.Errorf("%w: %w", ErrIncomplete, te)
	}
	return te
}

// watchedBody stops reading after left bytes. Once progress is set, it
// re-arms the watchdog for the idle timeout whenever bytes arrive; before
// that, bytes only mark the wait as kept alive.
type watchedBody struct {
	r        io.Reader
	wd       *watchdog
	idle     time.Duration
	left     int64
	progress bool // set by the reading goroutine
}

func (b *watchedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, errWireLimit
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.r.Read(p)
	if n > 0 {
		if b.progress {
			b.wd.arm(b.idle, "idle")
		} else {
			b.wd.keptAlive()
		}
		b.left -= int64(n)
	}
	return n, err
}

func parseRetryAfter(v string) time.Duration {
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		// A hostile or broken provider's Inf, NaN or 1e30 is not a wait:
		// past a day it is one day (too long to wait for anyway).
		if !(secs >= 0) || math.IsInf(secs, 0) {
			return 0
		}
		return time.Duration(min(secs, maxRetryAfter.Seconds()) * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := time.Until(t); d > 0 {
			return min(d, maxRetryAfter)
		}
	}
	return 0
}

// maxRetryAfter bounds a Retry-After as read.
const maxRetryAfter = 24 * time.Hour

// errorMessage extracts the message of an OpenAI-style error body, or
// returns the body itself, shortened.
func errorMessage(b []byte) string {
	var e struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(b, &e) == nil && len(e.Error) > 0 {
		var obj wireError
		if json.Unmarshal(e.Error, &obj) == nil && obj.Message != "" {
			return obj.Message
		}
		var s string
		if json.Unmarshal(e.Error, &s) == nil && s != "" {
			return s
		}
	}
	s := strings.TrimSpace(string(b))
	if s == "" {
		return "(empty body)"
	}
	if strings.HasPrefix(s, "<") {
		// A web server's error page, not the API's: its title says enough.
		if m := htmlTitle.FindStringSubmatch(s); m != nil {
			return fmt.Sprintf("an HTML page titled %q (is the base URL right?)", truncate([]byte(strings.TrimSpace(m[1])), 100))
		}
		return "an HTML page (is the base URL right?)"
	}
	return truncate([]byte(s), 300)
}

var htmlTitle = regexp.MustCompile(`(?is)<title[^>]*>(.*?)</title>`)
