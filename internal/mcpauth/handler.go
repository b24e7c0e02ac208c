package mcpauth

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"

	"github.com/hearth-agent/hearth/internal/config"
	"github.com/hearth-agent/hearth/internal/pluginhost"
)

// ErrAuthorizationNeeded is what a server's handler fails with when the
// server wants an authorization that only the user can give: no token is
// stored, the refresh token was refused, or the server wants more scopes.
// Its message ends "run hearth mcp login NAME".
var ErrAuthorizationNeeded = errors.New("authorization needed")

// needLogin is ErrAuthorizationNeeded for server, with why (never a
// secret) when it helps.
func needLogin(server, why string) error { return &loginError{server: server, why: why} }

// loginError is ErrAuthorizationNeeded for one server.
type loginError struct{ server, why string }

func (e *loginError) Error() string {
	msg := ErrAuthorizationNeeded.Error() + ": run hearth mcp login " + e.server
	if e.why != "" {
		msg += " (" + e.why + ")"
	}
	return msg
}

func (e *loginError) Unwrap() error { return ErrAuthorizationNeeded }

// AuthorizationNeeded marks the error for packages that cannot import
// this one: pluginhost finds it with errors.As(err, &x) where x is an
// interface{ AuthorizationNeeded() bool }, and then need not try another
// transport, as only a login helps.
func (e *loginError) AuthorizationNeeded() bool { return true }

// Options configures New; nil means the defaults.
type Options struct {
	// HTTPClient makes the requests to the authorization servers (token
	// refreshes); nil means a client with a 30 second timeout.
	HTTPClient *http.Client
	// Logger gets what cannot be returned (a refreshed token that could
	// not be stored); nil means slog.Default().
	Logger *slog.Logger
}

func (o *Options) client() *http.Client {
	if o != nil && o.HTTPClient != nil {
		return o.HTTPClient
	}
	return &http.Client{Timeout: 30 * time.Second}
}

// New returns the MCPAuthFunc Hearth's MCP runtime calls for each server:
// a remote server gets a handler whose tokens are server's stored
// credentials (see Key), refreshed when they expire and written back; a
// stdio server, and a remote one whose configured headers already carry
// an Authorization without an "oauth" entry, get none.
//
// The handler reads the store when it has no token and when the server
// refuses one, so tokens a later `hearth mcp login` stores are used at
// the next connect. It never asks the user: what only a login can fix
// fails with ErrAuthorizationNeeded.
func New(st Secrets, opts *Options) pluginhost.MCPAuthFunc {
	hc := opts.client()
	log := slog.Default()
	if opts != nil && opts.Logger != nil {
		log = opts.Logger
	}
	return func(server string, cfg config.MCPServer) (auth.OAuthHandler, error) {
		if cfg.URL == "" || cfg.Type == "stdio" {
			return nil, nil
		}
		if cfg.OAuth == nil {
			for k := range cfg.Headers {
				if strings.EqualFold(k, "Authorization") {
					return nil, nil
				}
			}
		}
		// Not declared here: a server that never logged in has no
		// setting to list (save declares it).
		return &handler{st: st, server: server, origin: Origin(cfg.URL), hc: hc,
			log: log.With("plugin", pluginhost.MCPPluginName(server))}, nil
	}
}

// handler is one server's auth.OAuthHandler at run time.
type handler struct {
	st     Secrets
	server string
	origin string // Origin of the server's url: credentials for another are not used
	hc     *http.Client
	log    *slog.Logger

	authMu sync.Mutex // held by Authorize

	mu     sync.Mutex
	raw    string       // the stored JSON creds and ts come from
	creds  *credentials // nil: none stored
	ts     *persisting
	forced string // the access token Authorize's own refresh gave
}

var _ auth.OAuthHandler = (*handler)(nil)

// TokenSource implements auth.OAuthHandler: the stored token, refreshed
// as needed; nil while none is stored.
func (h *handler) TokenSource(ctx context.Context) (oauth2.TokenSource, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.ts == nil {
		if _, err := h.reload(); err != nil {
			return nil, err
		}
	}
	if h.ts == nil {
		return nil, nil
	}
	return h.ts, nil
}

// reload reads the store; stored credentials other than those in use
// replace them, and it reports so. h.mu is held.
func (h *handler) reload() (changed bool, err error) {
	c, raw, err := load(h.st, h.server)
	if err != nil {
		return false, err
	}
	if c != nil && c.Resource != h.origin {
		// A hand edit or `mcp add --force` moved the entry: its token
		// is not sent to the new host.
		h.raw, h.creds, h.ts, h.forced = "", nil, nil, ""
		return false, needLogin(h.server, movedWhy(c.Resource, h.origin))
	}
	if raw == h.raw && h.ts != nil {
		return false, nil
	}
	h.raw, h.creds, h.ts, h.forced = raw, c, nil, ""
	if c != nil && c.Token != nil {
		h.ts = h.source(c.Client.config(), c.Token.oauth2())
	}
	return true, nil
}

// movedWhy says why credentials stored for the origin had are not used
// for want.
func movedWhy(had, want string) string {
	if had == "" {
		had = "an unrecorded address"
	}
	return "the stored login is for " + had + ", and the server's url is now at " + want
}

// current is the newest token: the one in use, which may be newer than
// the stored one when storing it failed. h.mu is held.
func (h *handler) current() *oauth2.Token {
	if h.ts == nil {
		return nil
	}
	return h.ts.latest()
}

// refreshContext is what a refresh runs in: the token source outlives
// any one request, so it cannot be a request's context.
func (h *handler) refreshContext() context.Context {
	return context.WithValue(context.Background(), oauth2.HTTPClient, h.hc)
}

func (h *handler) source(cfg *oauth2.Config, t *oauth2.Token) *persisting {
	return &persisting{h: h, inner: cfg.TokenSource(h.refreshContext(), t), last: t}
}

// Authorize implements auth.OAuthHandler: the server refused the request
// (401, or 403 insufficient_scope). Tokens stored since are used; a
// token the server refused before its time is refreshed once; anything
// else needs the user (ErrAuthorizationNeeded).
func (h *handler) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	if resp.StatusCode == http.StatusForbidden {
		cs, _ := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
		for _, c := range cs {
			if c.Scheme == "bearer" && c.Params["error"] == "insufficient_scope" {
				return needLogin(h.server, "the server wants more scopes: "+c.Params["scope"])
			}
		}
		return nil // not ours to fix: the retry gets the 403 again and reports it
	}
	sent := strings.TrimPrefix(req.Header.Get("Authorization"), "Bearer ")

	// One at a time: requests refused together refresh once, and the
	// others retry with what that refresh gave.
	h.authMu.Lock()
	defer h.authMu.Unlock()
	h.mu.Lock()
	changed, err := h.reload()
	if err != nil {
		h.mu.Unlock()
		return err
	}
	c, cur, forced := h.creds, h.current(), h.forced
	h.mu.Unlock()
	if cur != nil && cur.AccessToken != sent && (changed || sent != "") {
		return nil // a login or a refresh gave another token since: retry with it
	}
	switch {
	case c == nil || cur == nil:
		return needLogin(h.server, "")
	case cur.RefreshToken == "":
		return needLogin(h.server, "the server refused the token and gave no refresh token")
	case sent != "" && sent == forced:
		return needLogin(h.server, "the server refused a freshly refreshed token")
	}
	cfg := c.Client.config()
	expired := *cur
	expired.Expiry = time.Unix(1, 0)
	t, err := cfg.TokenSource(context.WithValue(ctx, oauth2.HTTPClient, h.hc), &expired).Token()
	if err != nil {
		var re *oauth2.RetrieveError
		if errors.As(err, &re) && refused(re.ErrorCode) {
			return needLogin(h.server, "the authorization server refused the refresh token: "+re.ErrorCode)
		}
		return fmt.Errorf("refreshing the token of %s: %w", h.server, err)
	}
	h.persist(t)
	h.mu.Lock()
	h.ts = h.source(cfg, t)
	h.forced = t.AccessToken
	h.mu.Unlock()
	return nil
}

// refused reports whether a token endpoint's error code (RFC 6749
// section 5.2) means the grant or the client is no good any more, rather
// than a passing failure.
func refused(code string) bool {
	switch code {
	case "invalid_grant", "invalid_client", "unauthorized_client":
		return true
	}
	return false
}

// persist stores a refreshed token, unless a login stored other
// credentials meanwhile (those win). A failure is logged: the token still
// works until the process ends.
func (h *handler) persist(t *oauth2.Token) {
	h.mu.Lock()
	defer h.mu.Unlock()
	c, raw, err := load(h.st, h.server)
	if err == nil && (c == nil || raw != h.raw) {
		return
	}
	if err == nil {
		c.Token = fromOAuth2(t)
		raw, err = save(h.st, h.server, c)
	}
	if err != nil {
		h.log.Warn("mcp: the refreshed OAuth token could not be stored; the next start needs the old one or a login", "err", err)
		return
	}
	h.raw, h.creds = raw, c
}

// persisting is the token source the transport gets: the oauth2 one,
// whose new tokens are stored.
type persisting struct {
	h     *handler
	inner oauth2.TokenSource

	mu   sync.Mutex
	last *oauth2.Token
}

func (p *persisting) latest() *oauth2.Token {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.last
}

// Token implements oauth2.TokenSource. A refused refresh token comes back
// as the oauth2.RetrieveError it is (invalid_grant), so the transport
// sends the request without a token and the 401 reaches Authorize; a
// refused client is ErrAuthorizationNeeded at once.
func (p *persisting) Token() (*oauth2.Token, error) {
	t, err := p.inner.Token()
	if err != nil {
		var re *oauth2.RetrieveError
		if errors.As(err, &re) && re.ErrorCode != "invalid_grant" && refused(re.ErrorCode) {
			return nil, needLogin(p.h.server, "the authorization server refused the client: "+re.ErrorCode)
		}
		return nil, err
	}
	p.mu.Lock()
	fresh := t.AccessToken != p.last.AccessToken
	p.last = t
	p.mu.Unlock()
	if fresh {
		p.h.persist(t)
	}
	return t, nil
}
