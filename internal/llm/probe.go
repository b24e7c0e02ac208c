package llm

import (
	"context"
	"net/http"
	"time"
)

// ProbeTimeout bounds Probe.
const ProbeTimeout = 30 * time.Second

// Probe tests src with a one-line chat, without retries: the address
// answers, the key is accepted and the model exists. hc sends the
// request (nil: a client of its own); redact masks secrets in the
// provider's messages before they become the error (nil: src's key and
// anything that looks like a key). The error is the Client's, so callers
// branch on ErrAuth, APIError and the others as for any chat.
func Probe(ctx context.Context, src Source, hc *http.Client, redact func(string) string) error {
	ctx, cancel := context.WithTimeout(ctx, ProbeTimeout)
	defer cancel()
	c := &Client{BaseURL: src.BaseURL, APIKey: src.APIKey, Model: src.Model, HTTP: hc, MaxRetries: -1,
		ConnectTimeout: src.ConnectTimeout, FirstByteTimeout: src.FirstByteTimeout, IdleTimeout: src.IdleTimeout,
		AnswerTimeout: ProbeTimeout, MaxResponseBytes: 64 << 10, Redact: redact,
		API: src.API, MaxTokens: 64}
	_, err := c.Chat(ctx, &Request{Messages: []Message{{Role: "user", Content: "Reply with the word OK."}}}, nil)
	return err
}
