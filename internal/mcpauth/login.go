package mcpauth

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"

	"github.com/hearth-agent/hearth/internal/config"
)

// CallbackPath is the path of Login's redirect URI on 127.0.0.1.
const CallbackPath = "/callback"

// Errors of Login callers branch on.
var (
	// ErrStateMismatch is a redirect whose state is not the one Login
	// sent: not the answer to this login (a forged or stale one). The
	// loopback listener answers it with 400 and Login keeps waiting.
	ErrStateMismatch = errors.New("the authorization answer does not belong to this login (state mismatch)")
	// ErrDenied wraps the authorization server's refusal (the user said
	// no, or the request was wrong).
	ErrDenied = errors.New("the authorization server refused")
	// ErrNotRequired is a server that answered without asking for
	// authorization: there is nothing to store.
	ErrNotRequired = errors.New("the server did not ask for authorization")
)

// LoginOptions configures Login; nil means the defaults.
type LoginOptions struct {
	// Out gets what the user reads: the address to open. Nil discards it.
	Out io.Writer
	// Open shows the user the authorization address (a browser); nil, or
	// an error, leaves it to the user, who has it from Out.
	Open func(ctx context.Context, url string) error
	// HTTPClient makes the requests to the MCP server and its
	// authorization server; nil means a client with a 30 second timeout.
	HTTPClient *http.Client
	// Version is Hearth's version, told to the server.
	Version string
}

// Login runs the authorization flow for server: it connects to its URL,
// and when the server asks for authorization it discovers the
// authorization server, registers a client if none is configured or kept
// from before, has the user authorize Hearth at the address it prints
// (and opens), receives the answer on a loopback listener
// (http://127.0.0.1:PORT/callback), checks its state, exchanges the code
// (PKCE S256) and stores the client and the tokens as server's secret
// credentials. The context bounds the whole flow: the user's time
// included.
func Login(ctx context.Context, st Secrets, server string, cfg config.MCPServer, opts *LoginOptions) error {
	var o LoginOptions
	if opts != nil {
		o = *opts
	}
	if o.Out == nil {
		o.Out = io.Discard
	}
	if o.HTTPClient == nil {
		o.HTTPClient = &http.Client{Timeout: 30 * time.Second}
	}
	if cfg.URL == "" {
		return fmt.Errorf("%s has no url: only a remote MCP server logs in", server)
	}
	prev, _, err := load(st, server)
	if err != nil && !errors.Is(err, errBadCredentials) {
		return err
	}
	configured := cfg.OAuth != nil && cfg.OAuth.ClientID != ""
	origin := Origin(cfg.URL)
	// A client registered for another address is not offered to this one.
	reuse := !configured && prev != nil && prev.Client.Dynamic && prev.Client.RedirectURI != "" && prev.Resource == origin

	ln, redirect, reuse, err := listen(ctx, prev, reuse)
	if err != nil {
		return err
	}
	cb := &callback{result: make(chan callbackResult, 1)}
	srv := &http.Server{Handler: cb, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	defer srv.Close()

	var (
		mu      sync.Mutex
		gotCfg  *oauth2.Config
		gotTok  *oauth2.Token
		flowErr error
	)
	hcfg := &auth.AuthorizationCodeHandlerConfig{
		RedirectURL: redirect,
		DynamicClientRegistrationConfig: &auth.DynamicClientRegistrationConfig{
			Metadata: &oauthex.ClientRegistrationMetadata{
				RedirectURIs:            []string{redirect},
				ClientName:              "Hearth",
				GrantTypes:              []string{"authorization_code", "refresh_token"},
				ResponseTypes:           []string{"code"},
				TokenEndpointAuthMethod: "none",
			},
		},
		RequestRefreshToken: true,
		Client:              o.HTTPClient,
		AuthorizationCodeFetcher: func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
			res, err := cb.await(ctx, server, args.URL, o)
			if err != nil {
				mu.Lock()
				flowErr = err
				mu.Unlock()
			}
			return res, err
		},
		// The token kept is the newest: one refreshed during the login
		// replaces the first (whose refresh token may be spent).
		NewTokenSource: func(ctx context.Context, c *oauth2.Config, t *oauth2.Token) (oauth2.TokenSource, error) {
			mu.Lock()
			gotCfg, gotTok = c, t
			mu.Unlock()
			inner := c.TokenSource(ctx, t)
			return tokenFunc(func() (*oauth2.Token, error) {
				t, err := inner.Token()
				if err == nil {
					mu.Lock()
					gotTok = t
					mu.Unlock()
				}
				return t, err
			}), nil
		},
	}
	switch {
	case configured:
		hcfg.PreregisteredClient = &oauthex.ClientCredentials{ClientID: cfg.OAuth.ClientID}
		if cfg.OAuth.ClientSecret != "" {
			hcfg.PreregisteredClient.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: cfg.OAuth.ClientSecret}
		}
	case reuse:
		hcfg.PreregisteredClient = &oauthex.ClientCredentials{ClientID: prev.Client.ID}
		if prev.Client.Secret != "" {
			hcfg.PreregisteredClient.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: prev.Client.Secret}
		}
	}
	if cfg.OAuth != nil && len(cfg.OAuth.Scopes) > 0 {
		scopes := cfg.OAuth.Scopes
		hcfg.ScopeFilter = func([]string) []string { return scopes }
	}
	h, err := auth.NewAuthorizationCodeHandler(hcfg)
	if err != nil {
		return fmt.Errorf("logging in to %s: %w", server, err)
	}

	c := mcp.NewClient(&mcp.Implementation{Name: "hearth", Version: o.Version}, nil)
	session, connErr := c.Connect(ctx, &mcp.StreamableClientTransport{
		Endpoint:             cfg.URL,
		HTTPClient:           o.HTTPClient,
		OAuthHandler:         h,
		MaxRetries:           -1,
		DisableStandaloneSSE: true,
	}, nil)
	if connErr == nil {
		session.Close()
	}

	mu.Lock()
	defer mu.Unlock()
	if gotTok == nil {
		err := flowErr
		if err == nil {
			err = connErr
		}
		switch {
		case err == nil:
			return fmt.Errorf("%s: %w", server, ErrNotRequired)
		case reuse && !errors.Is(err, ErrStateMismatch):
			return fmt.Errorf("logging in to %s with the client registered before: %w (if the server forgot it: hearth mcp login --logout --forget-client %s, then log in again)", server, err, server)
		}
		return fmt.Errorf("logging in to %s: %w", server, err)
	}
	creds := &credentials{
		Resource: origin,
		Client: client{
			ID:          gotCfg.ClientID,
			Secret:      gotCfg.ClientSecret,
			Dynamic:     !configured,
			RedirectURI: redirect,
			AuthURL:     gotCfg.Endpoint.AuthURL,
			TokenURL:    gotCfg.Endpoint.TokenURL,
			AuthStyle:   int(gotCfg.Endpoint.AuthStyle),
			Scopes:      gotCfg.Scopes,
		},
		Token: fromOAuth2(gotTok),
	}
	if _, err := save(st, server, creds); err != nil {
		return err
	}
	if connErr != nil {
		return fmt.Errorf("%s: the tokens are stored, but connecting with them failed: %w", server, connErr)
	}
	return nil
}

// tokenFunc is an oauth2.TokenSource made of a function.
type tokenFunc func() (*oauth2.Token, error)

func (f tokenFunc) Token() (*oauth2.Token, error) { return f() }

// listen opens the loopback listener of the redirect URI: the port of
// the kept client's redirect URI when it is free (the client is
// registered with it), else a random one, and then a new client is
// registered.
func listen(ctx context.Context, prev *credentials, reuse bool) (net.Listener, string, bool, error) {
	var lc net.ListenConfig
	if reuse {
		if u, err := url.Parse(prev.Client.RedirectURI); err == nil && u.Hostname() == "127.0.0.1" && u.Path == CallbackPath {
			if ln, err := lc.Listen(ctx, "tcp", u.Host); err == nil {
				return ln, prev.Client.RedirectURI, true, nil
			}
		}
	}
	ln, err := lc.Listen(ctx, "tcp", "127.0.0.1:0")
	if err != nil {
		return nil, "", false, fmt.Errorf("listening for the authorization answer: %w", err)
	}
	return ln, "http://" + ln.Addr().String() + CallbackPath, false, nil
}

// callback receives the authorization server's redirect.
type callback struct {
	mu     sync.Mutex
	state  string // what the answer must carry; empty: no login waits
	result chan callbackResult
}

type callbackResult struct {
	res *auth.AuthorizationResult
	err error
}

// await shows the user authURL and waits for the answer.
func (cb *callback) await(ctx context.Context, server, authURL string, o LoginOptions) (*auth.AuthorizationResult, error) {
	u, err := url.Parse(authURL)
	if err != nil {
		return nil, fmt.Errorf("the authorization address: %w", err)
	}
	cb.mu.Lock()
	cb.state = u.Query().Get("state")
	cb.mu.Unlock()
	fmt.Fprintf(o.Out, "To let Hearth use %s, open this address in a browser and authorize it:\n"+
		"请在浏览器中打开以下地址并授权 Hearth 使用 %s：\n\n  %s\n\n", server, server, authURL)
	if o.Open != nil {
		if err := o.Open(ctx, authURL); err != nil {
			fmt.Fprintf(o.Out, "(no browser opened: %v)\n", err)
		}
	}
	fmt.Fprintf(o.Out, "Waiting for the answer on %s ...\n", CallbackPath)
	select {
	case r := <-cb.result:
		return r.res, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// ServeHTTP answers the browser's redirect. Only the answer to this
// login ends the wait: one with the state await is waiting for and a
// code or an error. Anything else (a wrong or missing state, a request
// before the login waits, an answer without a code) gets 400 and the wait
// goes on, so another local user or a web page cannot end or spoil a
// login by requesting the address. The pages are fixed text: they never
// repeat what the request carried.
func (cb *callback) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-store")
	h.Set("Referrer-Policy", "no-referrer")
	if r.URL.Path != CallbackPath || r.Method != http.MethodGet {
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, "Not found.\n")
		return
	}
	cb.mu.Lock()
	state := cb.state
	cb.mu.Unlock()
	res, err := parseCallback(r.URL.Query(), state)
	switch {
	case err == nil:
		fmt.Fprint(w, "Hearth is authorized; you can close this page.\nHearth 已获授权，可以关闭此页。\n")
	case errors.Is(err, ErrDenied):
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, "Hearth was not authorized; the terminal says why.\nHearth 未获授权，原因见终端。\n")
	default: // not this login's answer: keep waiting
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, "This is not the answer Hearth is waiting for.\n这不是 Hearth 正在等待的授权结果。\n")
		return
	}
	select {
	case cb.result <- callbackResult{res, err}:
	default: // an answer came already
	}
}

// errNoCode is an answer with the login's state but neither a code nor
// an error: not an answer, the wait goes on.
var errNoCode = errors.New("the authorization answer has no code")

// parseCallback reads the authorization response (RFC 6749 section
// 4.1.2) of a login that sent state: its state must match before
// anything else counts.
func parseCallback(q url.Values, state string) (*auth.AuthorizationResult, error) {
	if state == "" || q.Get("state") != state {
		return nil, ErrStateMismatch
	}
	if e := q.Get("error"); e != "" {
		msg := printable(e, 64)
		if d := q.Get("error_description"); d != "" {
			msg += ": " + printable(d, 200)
		}
		return nil, fmt.Errorf("%w: %s", ErrDenied, msg)
	}
	code := q.Get("code")
	if code == "" {
		return nil, errNoCode
	}
	return &auth.AuthorizationResult{Code: code, State: state, Iss: q.Get("iss")}, nil
}

// printable is s for a message: control characters dropped, at most max
// runes.
func printable(s string, max int) string {
	var b strings.Builder
	n := 0
	for _, r := range s {
		if n == max {
			b.WriteString("...")
			break
		}
		if unicode.IsPrint(r) {
			b.WriteRune(r)
			n++
		}
	}
	return b.String()
}
