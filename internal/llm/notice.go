package llm

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Retry says that a model call failed before any part of the answer came
// and will be tried again: Chat passes it to onDelta as Delta.Retry, just
// before it waits.
type Retry struct {
	Attempt int           // the retry's number: 1 for the first retry
	After   time.Duration // how long Chat waits before it
	// Reason is why, short and with keys masked: "429 rate limited",
	// "503 service unavailable", "cannot reach the provider", "timed out",
	// "answer cut off", "malformed answer".
	Reason string
	// Source, when set, says the call goes on with another source (a
	// fallback, Sources.Chat) at once: Reason then names the source that
	// failed ("deepseek: 429 rate limited"), and Attempt and After are 0.
	Source string
}

// String is "429 rate limited, retrying in 2 s", or for a fallback
// "deepseek: 429 rate limited; answering with qwen".
func (r Retry) String() string {
	if r.Source != "" {
		return fmt.Sprintf("%s; answering with %s", r.Reason, r.Source)
	}
	return fmt.Sprintf("%s, retrying in %s", r.Reason, roundWait(r.After))
}

// roundWait shows a wait in whole seconds, or in milliseconds under one.
func roundWait(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%d ms", d.Milliseconds())
	}
	return fmt.Sprintf("%d s", int((d+time.Second/2)/time.Second))
}

// retryReason names the failure that a retry follows, for people.
func retryReason(err error) string {
	var apiErr *APIError
	var nerr *netError
	switch {
	case errors.As(err, &apiErr):
		switch apiErr.Status {
		case http.StatusTooManyRequests:
			return "429 rate limited"
		case StatusOverloaded:
			return "529 overloaded"
		}
		return fmt.Sprintf("%d %s", apiErr.Status, strings.ToLower(http.StatusText(apiErr.Status)))
	case errors.As(err, &nerr):
		return "cannot reach the provider"
	case errors.Is(err, ErrTimeout):
		return "timed out"
	case errors.Is(err, ErrIncomplete):
		return "answer cut off"
	case errors.Is(err, ErrMalformed):
		return "malformed answer"
	}
	return "failed"
}

// logRequest records one request at debug level: method, URL (without
// user info or query, where keys may hide), model, message and tool
// counts, the answer's status (0 when none came), duration and error.
// The API key is never among them; the error's text is masked.
func (c *Client) logRequest(ctx context.Context, wr *wireRequest, status int, took time.Duration, err error) {
	log := c.Logger
	if log == nil {
		log = slog.Default()
	}
	if !log.Enabled(ctx, slog.LevelDebug) {
		return
	}
	attrs := []slog.Attr{
		slog.String("method", http.MethodPost),
		slog.String("url", c.redact(safeURL(c.endpoint()))),
		slog.String("model", wr.Model),
		slog.Int("messages", len(wr.Messages)),
		slog.Int("tools", len(wr.Tools)),
		slog.Int("status", status),
		slog.Duration("duration", took.Round(time.Millisecond)),
	}
	if err != nil {
		attrs = append(attrs, slog.String("error", c.redact(err.Error())))
	}
	log.LogAttrs(ctx, slog.LevelDebug, "provider request", attrs...)
}

// safeURL drops a URL's user info, query and fragment.
func safeURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable URL)"
	}
	u.User, u.RawQuery, u.Fragment, u.ForceQuery = nil, "", "", false
	return u.String()
}
