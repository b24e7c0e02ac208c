// Package remote lets the terminal talk to a running `hearth serve`
// instead of a kernel of its own: Agent implements terminal.Agent over the
// daemon's HTTP API (docs/http-api.md). A turn is sent as a message,
// followed on the session's event stream and shown as the kernel's events;
// approvals the daemon asks are put to the terminal's prompt and answered
// through the API, unless another channel answers first; answers to turns
// the terminal did not start (plugins' injections) arrive as
// notifications from the daemon's stream of every session.
package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/hearth-agent/hearth/internal/channel/terminal"
	"github.com/hearth-agent/hearth/internal/kernel"
)

// Agent is a daemon's agent as the terminal sees it. Its zero value is not
// usable; make one with New. It is safe for concurrent use.
type Agent struct {
	base  string // the daemon's address, without a trailing /
	token string
	hc    *http.Client
	v     Verifier // nil: the token is sent without proof (tests)

	mu        sync.Mutex
	sessions  map[sessionKey]id      // the session of each channel's chat
	info      map[id]sessionKey      // what each session is, for sinks
	sinks     map[string]kernel.Sink // see SetSink
	own       map[id][]string        // texts of turns sent here, not yet seen start on the sink stream
	abandoned map[id]bool            // sessions whose turn Ask left running (ctx ended)
	stop      context.CancelFunc     // ends the sink stream; nil when none runs
	stopped   chan struct{}          // closed when the sink stream has ended
}

var _ terminal.Agent = (*Agent)(nil)

type sessionKey struct{ channel, chat string }

// New returns an Agent talking to the daemon at baseURL (like
// http://127.0.0.1:8420, without /v1) with token. hc must not have a
// Timeout, which would cut event streams; nil means http.DefaultClient.
func New(baseURL, token string, hc *http.Client) *Agent {
	if hc == nil {
		hc = http.DefaultClient
	}
	return &Agent{
		base: strings.TrimRight(baseURL, "/"), token: token, hc: hc,
		sessions: map[sessionKey]id{}, info: map[id]sessionKey{},
		sinks: map[string]kernel.Sink{}, own: map[id][]string{}, abandoned: map[id]bool{},
	}
}

// Verifier proves that the server is the daemon (*daemon.Client is one,
// with GET /v1/hello). Prove is called before every request that carries
// the token: the daemon may have stopped since the last one and another
// program taken its port. (Through the daemon's socket in the private
// data directory, which daemon.Find prefers, no other user can be there;
// over TCP this narrows the window to one round trip.)
type Verifier interface {
	Prove(ctx context.Context) error
}

// VerifiedBy makes a prove the daemon with v before each request that
// sends the token. It returns a.
func (a *Agent) VerifiedBy(v Verifier) *Agent {
	a.v = v
	return a
}

// ErrDaemonGone is the cause of a turn or request that ended because the
// daemon could not be reached or stopped answering.
var ErrDaemonGone = errors.New("the Hearth daemon stopped answering (is `hearth serve` still running?) / Hearth 后台服务没有响应")

// APIError is an error answer of the daemon's API.
type APIError struct {
	Status  int
	Code    string
	Message string
}

func (e *APIError) Error() string {
	if e.Message == "" {
		return fmt.Sprintf("hearth daemon: HTTP %d", e.Status)
	}
	return "hearth daemon: " + e.Message
}

// request builds an API request with the token and a JSON body (nil for
// none).
func (a *Agent) request(ctx context.Context, method, path string, in any) (*http.Request, error) {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return nil, err
		}
		body = bytes.NewReader(b)
	}
	if a.v != nil {
		if err := a.v.Prove(ctx); err != nil {
			return nil, err
		}
	}
	req, err := http.NewRequestWithContext(ctx, method, a.base+path, body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+a.token)
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return req, nil
}

// send does one request and decodes a 2xx answer into out (nil to drop
// it). Errors are *APIError for the daemon's refusals and wrap
// ErrDaemonGone when it could not be reached; a cancelled ctx gives
// ctx's error.
func (a *Agent) send(ctx context.Context, method, path string, in, out any) error {
	req, err := a.request(ctx, method, path, in)
	if err != nil {
		return err
	}
	resp, err := a.hc.Do(req)
	if err != nil {
		return a.transportError(ctx, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return readAPIError(resp)
	}
	if out == nil {
		io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
		return nil
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 16<<20)).Decode(out); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("%s %s: %w: %w", method, path, ErrDaemonGone, err)
	}
	return nil
}

// transportError is err from the client, as the cause the caller should
// see.
func (a *Agent) transportError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return fmt.Errorf("%w: %s: %w", ErrDaemonGone, a.base, err)
}

// readAPIError decodes the contract's error shape from resp.
func readAPIError(resp *http.Response) error {
	var body struct {
		Error struct {
			Message string `json:"message"`
			Code    string `json:"code"`
		} `json:"error"`
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	e := &APIError{Status: resp.StatusCode}
	if json.Unmarshal(b, &body) == nil {
		e.Message, e.Code = body.Error.Message, body.Error.Code
	}
	return e
}

// session is the daemon's session for channel's chat, opened once.
func (a *Agent) session(ctx context.Context, channel, chat string) (id, error) {
	key := sessionKey{channel, chat}
	a.mu.Lock()
	sid, ok := a.sessions[key]
	a.mu.Unlock()
	if ok {
		return sid, nil
	}
	var s wireSession
	if err := a.send(ctx, http.MethodPost, "/v1/sessions", openSession{Channel: channel, ChatID: chat}, &s); err != nil {
		return "", fmt.Errorf("opening the session: %w", err)
	}
	if s.ID == "" {
		return "", fmt.Errorf("opening the session: %w: no id in the answer", ErrDaemonGone)
	}
	a.mu.Lock()
	a.sessions[key] = s.ID
	a.info[s.ID] = sessionKey{s.Channel, s.ChatID}
	a.mu.Unlock()
	return s.ID, nil
}

// forget drops the cached session of channel's chat (after the daemon
// said it does not know it, or after it was reset).
func (a *Agent) forget(channel, chat string) {
	a.mu.Lock()
	delete(a.sessions, sessionKey{channel, chat})
	a.mu.Unlock()
}

// openSession is the body of POST /v1/sessions.
type openSession struct {
	Channel string `json:"channel"`
	ChatID  string `json:"chat_id"`
}

// wireSession is the contract's Session, the fields used here.
type wireSession struct {
	ID      id     `json:"id"`
	Channel string `json:"channel"`
	ChatID  string `json:"chat_id"`
	Busy    bool   `json:"busy"`
}

// ResetSession forgets the history of channel's chat in the daemon
// (DELETE /v1/sessions/{id}); while a turn runs it returns an error
// wrapping kernel.ErrBusy.
func (a *Agent) ResetSession(ctx context.Context, channel, chatID string) error {
	sid, err := a.session(ctx, channel, chatID)
	if err != nil {
		return err
	}
	var apiErr *APIError
	err = a.send(ctx, http.MethodDelete, "/v1/sessions/"+string(sid), nil, nil)
	switch {
	case errors.As(err, &apiErr) && apiErr.Status == http.StatusConflict:
		return fmt.Errorf("%w: %w", kernel.ErrBusy, err)
	case errors.As(err, &apiErr) && apiErr.Status == http.StatusNotFound:
		err = nil // nothing to forget
	}
	a.forget(channel, chatID)
	return err
}
