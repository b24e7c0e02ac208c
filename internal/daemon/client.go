package daemon

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"

	"github.com/hearth-agent/hearth/internal/server"
)

// Client calls a running daemon's HTTP API with its token. Before its
// first authorized request it asks the server to prove it knows the token
// (Verify): the token is never sent to a server that cannot.
type Client struct {
	// BaseURL is the daemon's address, without a trailing slash:
	// "http://127.0.0.1:8420".
	BaseURL string
	// Token is sent as "Authorization: Bearer TOKEN".
	Token string
	// HTTP makes the requests; nil means http.DefaultClient.
	HTTP *http.Client
	// PID is the daemon's process id, when Find made the client; when
	// set, Verify also checks that the server answers for it.
	PID int

	verified atomic.Bool // the server proved it knows Token
}

// ErrUnproven means the server at a daemon's address did not prove that
// it knows the API token, so the token was not sent to it.
var ErrUnproven = errors.New("the server did not prove it knows the API token")

// unproven explains ErrUnproven to the user.
func unproven(url string, why error) error {
	return fmt.Errorf("%w (%s: %v), so the token was not sent: another program may hold the daemon's port, "+
		"or the token changed (`hearth token` prints the current one) / %s 上的服务未能证明它知道 API 令牌，令牌未发送："+
		"可能是其他程序占用了守护进程的端口，或令牌已更换（用 `hearth token` 查看当前令牌）",
		ErrUnproven, url, why, url)
}

// Verify asks GET /v1/hello, without the token, with a fresh random
// nonce, and checks in constant time that the answer's proof is
// server.HelloProof(Token, nonce) (and, when PID is set, that the server
// answers for that pid). Do calls it before the first authorized request;
// it fails with ErrUnproven, or with the network's error when nothing
// answers.
func (c *Client) Verify(ctx context.Context) error {
	if c.verified.Load() {
		return nil
	}
	h, err := c.hello(ctx)
	if err != nil {
		return err
	}
	if c.PID != 0 && h.PID != c.PID {
		return unproven(c.BaseURL, fmt.Errorf("it answers for pid %d, not %d", h.PID, c.PID))
	}
	c.verified.Store(true)
	return nil
}

// Suspect forgets that the daemon was proven: after a connection failed,
// whoever answers on the port next may be another program, so the next
// request proves it again before sending the token.
func (c *Client) Suspect() { c.verified.Store(false) }

// Prove checks, now, that the server knows the token (GET /v1/hello), as
// Verify does the first time; for a caller that is about to send the token
// on a connection that may be new.
func (c *Client) Prove(ctx context.Context) error {
	c.Suspect()
	return c.Verify(ctx)
}

// errNoAnswer marks hello's failures to reach the server at all.
type errNoAnswer struct{ err error }

func (e *errNoAnswer) Error() string { return e.err.Error() }
func (e *errNoAnswer) Unwrap() error { return e.err }

// hello asks for and checks the proof; a server that cannot be reached
// is an *errNoAnswer, one whose answer proves nothing ErrUnproven.
func (c *Client) hello(ctx context.Context) (*server.Hello, error) {
	nonce := make([]byte, server.HelloNonceLen)
	_, _ = rand.Read(nonce) // never fails (crypto/rand)
	n := hex.EncodeToString(nonce)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.BaseURL+"/v1/hello?nonce="+n, nil)
	if err != nil {
		return nil, fmt.Errorf("the request to the Hearth daemon: %w", err)
	}
	resp, err := c.httpClient().Do(req)
	if err != nil {
		return nil, &errNoAnswer{fmt.Errorf("calling the Hearth daemon at %s: %w", c.BaseURL, err)}
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, unproven(c.BaseURL, decodeError(resp))
	}
	var h server.Hello
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxErrorBody)).Decode(&h); err != nil {
		return nil, unproven(c.BaseURL, fmt.Errorf("reading its answer: %w", err))
	}
	want := server.HelloProof(c.Token, n)
	if !hmac.Equal([]byte(h.Proof), []byte(want)) {
		return nil, unproven(c.BaseURL, errors.New("wrong proof"))
	}
	return &h, nil
}

func (c *Client) httpClient() *http.Client {
	if c.HTTP == nil {
		return http.DefaultClient
	}
	return c.HTTP
}

// APIError is an error answer of the API, decoded from its
// {"error": {"message", "type", "code", "fields"}} body.
type APIError struct {
	Status  int               // the HTTP status
	Code    string            // stable snake_case identifier: "unauthorized", "invalid_fields"...
	Type    string            // OpenAI's error type: "authentication_error"...
	Message string            // for people
	Fields  map[string]string // per-field problems of a 422
}

// Error is the message, with the status; a refused token says what to do.
func (e *APIError) Error() string {
	if e.Status == http.StatusUnauthorized {
		return fmt.Sprintf("the Hearth daemon refused the token (%d %s): %s; `hearth token` prints the current one / 守护进程拒绝了令牌，用 `hearth token` 查看当前令牌",
			e.Status, e.Code, e.Message)
	}
	return fmt.Sprintf("the Hearth daemon answered %d %s: %s", e.Status, e.Code, e.Message)
}

// maxErrorBody caps how much of an error answer is read.
const maxErrorBody = 64 << 10

// Do sends a request to path ("/v1/health") with in as its JSON body (nil
// for none) and decodes a 2xx answer's JSON into out (nil to discard it).
// An error answer is an *APIError. Every call proves the server (Prove)
// before the token goes out: the daemon may have stopped since the last
// one, and another program taken its port.
func (c *Client) Do(ctx context.Context, method, path string, in, out any) error {
	if err := c.Prove(ctx); err != nil {
		return err
	}
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return fmt.Errorf("encoding the request: %w", err)
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.BaseURL+path, body)
	if err != nil {
		return fmt.Errorf("the request to the Hearth daemon: %w", err)
	}
	req.Header.Set("Authorization", "Bearer "+c.Token)
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.httpClient().Do(req)
	if err != nil {
		return fmt.Errorf("calling the Hearth daemon at %s: %w", c.BaseURL, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return decodeError(resp)
	}
	if out == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		return nil
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("reading the Hearth daemon's answer to %s %s: %w", method, path, err)
	}
	return nil
}

// decodeError reads an error answer; a body not in the API's shape (a
// proxy's page) becomes the message, cut short.
func decodeError(resp *http.Response) error {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	return parseError(resp.StatusCode, b)
}

func parseError(status int, b []byte) *APIError {
	var body struct {
		Error struct {
			Message string            `json:"message"`
			Type    string            `json:"type"`
			Code    string            `json:"code"`
			Fields  map[string]string `json:"fields"`
		} `json:"error"`
	}
	e := &APIError{Status: status}
	if json.Unmarshal(b, &body) == nil && body.Error.Message != "" {
		e.Code, e.Type, e.Message, e.Fields = body.Error.Code, body.Error.Type, body.Error.Message, body.Error.Fields
		return e
	}
	e.Code = strings.ToLower(strings.ReplaceAll(http.StatusText(status), " ", "_"))
	msg := strings.TrimSpace(string(b))
	if len(msg) > 200 {
		msg = msg[:200] + "..."
	}
	if msg == "" {
		msg = http.StatusText(status)
	}
	if msg == "" {
		msg = fmt.Sprintf("HTTP status %d", status)
	}
	e.Message = msg
	return e
}

// Health asks GET /v1/health.
func (c *Client) Health(ctx context.Context) (*server.Health, error) {
	var h server.Health
	if err := c.Do(ctx, http.MethodGet, "/v1/health", nil, &h); err != nil {
		return nil, err
	}
	return &h, nil
}

// RunCLI runs a hearth command in the daemon (POST /v1/cli).
func (c *Client) RunCLI(ctx context.Context, req *server.CLIRequest) (*server.CLIResult, error) {
	var res server.CLIResult
	if err := c.Do(ctx, http.MethodPost, "/v1/cli", req, &res); err != nil {
		return nil, err
	}
	return &res, nil
}
