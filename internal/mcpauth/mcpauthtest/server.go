// Package mcpauthtest is a local OAuth 2.1 authorization server with an
// MCP server behind it, for tests of the MCP authorization flow without
// the network.
package mcpauthtest

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// Server is an OAuth 2.1 authorization server and an MCP server behind
// bearer tokens, on one loopback listener: RFC 9728 resource metadata
// (and a 401 with WWW-Authenticate: Bearer resource_metadata=...), RFC
// 8414 metadata, RFC 7591 registration, /authorize (S256 only; the user
// says yes at once) and /token (authorization_code with code_verifier,
// refresh_token with rotation). The MCP server at URL has the tool
// "echo" ({"text": ...} back as text).
type Server struct {
	// URL is the MCP server's endpoint.
	URL string

	srv *httptest.Server

	mu         sync.Mutex
	clients    map[string][]string // client id: redirect URIs
	registered int
	codes      map[string]grant
	access     map[string]time.Time // access token: expiry
	refresh    map[string]string    // refresh token: client id
	firstTTL   time.Duration        // lifetime of the tokens a code gives
	refreshTTL time.Duration        // lifetime of the tokens a refresh gives
	refreshes  int
}

type grant struct {
	client, redirect, challenge, resource string
}

// New starts a Server, closed when the test ends. Its tokens live an
// hour until SetTTL says otherwise.
func New(t testing.TB) *Server {
	t.Helper()
	a := &Server{
		clients: map[string][]string{}, codes: map[string]grant{},
		access: map[string]time.Time{}, refresh: map[string]string{},
		firstTTL: time.Hour, refreshTTL: time.Hour,
	}
	mux := http.NewServeMux()
	a.srv = httptest.NewServer(mux)
	a.URL = a.srv.URL + "/mcp"
	t.Cleanup(a.srv.Close)

	s := mcp.NewServer(&mcp.Implementation{Name: "guarded", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo"}, func(ctx context.Context, _ *mcp.CallToolRequest, in struct {
		Text string `json:"text"`
	}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
	})
	mcpHandler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	mux.Handle("/mcp", auth.RequireBearerToken(a.verify, &auth.RequireBearerTokenOptions{
		ResourceMetadataURL: a.srv.URL + "/.well-known/oauth-protected-resource/mcp",
	})(mcpHandler))
	mux.Handle("/.well-known/oauth-protected-resource/mcp", auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
		Resource:             a.srv.URL + "/mcp",
		AuthorizationServers: []string{a.srv.URL},
		ScopesSupported:      []string{"tools"},
	}))
	mux.HandleFunc("/.well-known/oauth-authorization-server", a.metadata)
	mux.HandleFunc("/register", a.register)
	mux.HandleFunc("/authorize", a.authorize)
	mux.HandleFunc("/token", a.token)
	return a
}

// SetTTL sets the lifetime of the tokens a code gives (first) and of
// those a refresh gives. Under ten seconds, oauth2 clients take a token
// for expired at once and refresh it before use.
func (a *Server) SetTTL(first, refresh time.Duration) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.firstTTL, a.refreshTTL = first, refresh
}

// Preregister adds a client registered beforehand, as an administrator
// would: its redirect URI is any loopback one (RFC 8252 section 7.3).
func (a *Server) Preregister(id string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.clients[id] = nil
}

// Registrations returns how many clients registered.
func (a *Server) Registrations() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.registered
}

// Refreshes returns how many refresh grants were given.
func (a *Server) Refreshes() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.refreshes
}

// Valid reports whether the server takes access token tok now.
func (a *Server) Valid(tok string) bool {
	_, err := a.verify(context.Background(), tok, nil)
	return err == nil
}

func (a *Server) verify(_ context.Context, tok string, _ *http.Request) (*auth.TokenInfo, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	exp, ok := a.access[tok]
	if !ok || time.Now().After(exp) {
		return nil, auth.ErrInvalidToken
	}
	return &auth.TokenInfo{Scopes: []string{"tools"}, Expiration: exp}, nil
}

// Revoke forgets every token: the next refresh is refused.
func (a *Server) Revoke() {
	a.mu.Lock()
	defer a.mu.Unlock()
	clear(a.access)
	clear(a.refresh)
}

// ExpireAccess forgets the access tokens alone: the server refuses them
// before the client thinks they expire.
func (a *Server) ExpireAccess() {
	a.mu.Lock()
	defer a.mu.Unlock()
	clear(a.access)
}

func (a *Server) metadata(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{
		"issuer":                                a.srv.URL,
		"authorization_endpoint":                a.srv.URL + "/authorize",
		"token_endpoint":                        a.srv.URL + "/token",
		"registration_endpoint":                 a.srv.URL + "/register",
		"response_types_supported":              []string{"code"},
		"grant_types_supported":                 []string{"authorization_code", "refresh_token"},
		"code_challenge_methods_supported":      []string{"S256"},
		"token_endpoint_auth_methods_supported": []string{"none"},
		"scopes_supported":                      []string{"tools", "offline_access"},
	})
}

func (a *Server) register(w http.ResponseWriter, r *http.Request) {
	var m oauthex.ClientRegistrationMetadata
	if err := json.NewDecoder(r.Body).Decode(&m); err != nil || len(m.RedirectURIs) == 0 {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_client_metadata"})
		return
	}
	a.mu.Lock()
	a.registered++
	id := fmt.Sprintf("client-%d", a.registered)
	a.clients[id] = m.RedirectURIs
	a.mu.Unlock()
	writeJSON(w, http.StatusCreated, map[string]any{
		"client_id": id, "redirect_uris": m.RedirectURIs, "token_endpoint_auth_method": "none",
	})
}

// authorize is the user saying yes at once: it redirects with a code.
func (a *Server) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	a.mu.Lock()
	uris, ok := a.clients[q.Get("client_id")]
	a.mu.Unlock()
	redirect := q.Get("redirect_uri")
	if ru, err := url.Parse(redirect); ok && uris == nil && err == nil && ru.Hostname() == "127.0.0.1" {
		uris = []string{redirect} // a preregistered client: any loopback port
	}
	if !ok || !slices.Contains(uris, redirect) {
		http.Error(w, "unknown client or redirect_uri", http.StatusBadRequest)
		return
	}
	if q.Get("response_type") != "code" || q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" {
		http.Error(w, "PKCE S256 required", http.StatusBadRequest)
		return
	}
	code := rand.Text()
	a.mu.Lock()
	a.codes[code] = grant{client: q.Get("client_id"), redirect: redirect, challenge: q.Get("code_challenge"), resource: q.Get("resource")}
	a.mu.Unlock()
	u, _ := url.Parse(redirect)
	u.RawQuery = url.Values{"code": {code}, "state": {q.Get("state")}}.Encode()
	http.Redirect(w, r, u.String(), http.StatusFound)
}

func (a *Server) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_request"})
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	client := r.PostForm.Get("client_id")
	if id, _, ok := r.BasicAuth(); ok {
		client = id
	}
	ttl := a.firstTTL
	switch r.PostForm.Get("grant_type") {
	case "authorization_code":
		g, ok := a.codes[r.PostForm.Get("code")]
		delete(a.codes, r.PostForm.Get("code"))
		sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
		if !ok || g.client != client || g.redirect != r.PostForm.Get("redirect_uri") ||
			base64.RawURLEncoding.EncodeToString(sum[:]) != g.challenge || g.resource != a.URL {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant"})
			return
		}
	case "refresh_token":
		rt := r.PostForm.Get("refresh_token")
		if a.refresh[rt] != client || client == "" {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant"})
			return
		}
		delete(a.refresh, rt) // rotation: a refresh token works once
		a.refreshes++
		ttl = a.refreshTTL
	default:
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "unsupported_grant_type"})
		return
	}
	at, rt := "at-"+rand.Text(), "rt-"+rand.Text()
	a.access[at] = time.Now().Add(ttl)
	a.refresh[rt] = client
	writeJSON(w, http.StatusOK, map[string]any{
		"access_token": at, "token_type": "Bearer", "refresh_token": rt, "expires_in": int(ttl / time.Second),
	})
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v)
}

// Browser returns a function that opens an authorization address like a
// browser whose user says yes: it follows the server's redirect to the
// client's redirect URI (its loopback listener); tamper, if not nil, may
// change that redirect first.
func Browser(tamper func(*url.URL)) func(ctx context.Context, addr string) error {
	return func(ctx context.Context, addr string) error {
		c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, addr, nil)
		resp, err := c.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusFound {
			return fmt.Errorf("authorize: %s", resp.Status)
		}
		next, err := url.Parse(resp.Header.Get("Location"))
		if err != nil {
			return err
		}
		if tamper != nil {
			tamper(next)
		}
		req, _ = http.NewRequestWithContext(ctx, http.MethodGet, next.String(), nil)
		resp, err = c.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		return nil
	}
}
