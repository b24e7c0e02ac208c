package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Errors callers branch on.
var (
	// ErrAuth means the provider rejected the API key (HTTP 401 or 403).
	ErrAuth = errors.New("the provider rejected the API key")
	// ErrNoSource means no model source is configured.
	ErrNoSource = errors.New("no model provider is configured")
)

// APIError is an error answer from the provider.
type APIError struct {
	Status  int    // HTTP status, 0 for an error inside a stream
	Message string // the provider's message
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
		http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// Client is an OpenAI-compatible chat completions client. The zero value is
// not usable; fill BaseURL at least.
type Client struct {
	BaseURL string // e.g. https://api.deepseek.com/v1
	APIKey  string // sent as a bearer token; never logged
	Model   string // used when a request names none
	HTTP    *http.Client

	// MaxRetries is how many times a 429 or 5xx answer, or a connection
	// failure before any answer, is retried. Zero means 3; negative none.
	MaxRetries int
	// Backoff is the first retry delay, doubled on each retry with
	// jitter. Zero means one second. A Retry-After header wins.
	Backoff time.Duration
	// MaxRetryAfter caps how long a Retry-After may make it wait; a
	// longer one fails at once. Zero means one minute.
	MaxRetryAfter time.Duration
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
// before any part of the answer arrived, so onDelta never sees text twice.
func (c *Client) Chat(ctx context.Context, req *Request, onDelta func(Delta)) (*Response, error) {
	wr := wireRequest{Model: req.Model, Messages: req.Messages, Tools: req.Tools, Stream: true}
	if wr.Model == "" {
		wr.Model = c.Model
	}
	wr.StreamOptions = &struct {
		IncludeUsage bool `json:"include_usage"`
	}{true}
	body, err := json.Marshal(wr)
	if err != nil {
		return nil, fmt.Errorf("encoding request: %w", err)
	}
	retries := c.MaxRetries
	if retries == 0 {
		retries = 3
	}
	for attempt := 0; ; attempt++ {
		resp, err := c.do(ctx, body)
		if err == nil {
			defer resp.Body.Close()
			mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
			if mt == "application/json" {
				return decodeWhole(resp.Body, onDelta)
			}
			out, err := decodeStream(resp.Body, onDelta)
			if err != nil && ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return out, err
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		wait, ok := c.retryDelay(err, attempt)
		if !ok || attempt >= retries {
			return nil, err
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
	}
}

func (c *Client) do(ctx context.Context, body []byte) (*http.Response, error) {
	url := strings.TrimRight(c.BaseURL, "/") + "/chat/completions"
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("building request: %w", err)
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "text/event-stream")
	if c.APIKey != "" {
		hreq.Header.Set("Authorization", "Bearer "+c.APIKey)
	}
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(hreq)
	if err != nil {
		return nil, &netError{err}
	}
	if resp.StatusCode/100 == 2 {
		return resp, nil
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	apiErr := &APIError{Status: resp.StatusCode, Message: errorMessage(b)}
	apiErr.RetryAfter = parseRetryAfter(resp.Header.Get("Retry-After"))
	return nil, apiErr
}

// netError is a failure to reach the provider at all.
type netError struct{ err error }

func (e *netError) Error() string { return "cannot reach the provider: " + e.err.Error() }
func (e *netError) Unwrap() error { return e.err }

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
	case errors.As(err, &nerr):
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

func parseRetryAfter(v string) time.Duration {
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil && secs >= 0 {
		return time.Duration(secs * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := time.Until(t); d > 0 {
			return d
		}
	}
	return 0
}

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
	return truncate([]byte(s), 300)
}
