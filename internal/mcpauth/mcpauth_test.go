package mcpauth

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hearth-agent/hearth/internal/config"
	"github.com/hearth-agent/hearth/internal/mcpauth/mcpauthtest"
	"github.com/hearth-agent/hearth/internal/settings"
	"github.com/hearth-agent/hearth/internal/store/storetest"
)

const plugin = "mcp-guarded"

type fixture struct {
	t   *testing.T
	as  *mcpauthtest.Server
	st  *storetest.Faulty
	svc *settings.Service
	cfg config.MCPServer
}

func newFixture(t *testing.T) *fixture {
	as := mcpauthtest.New(t)
	st := storetest.Open(t)
	return &fixture{t: t, as: as, st: st, svc: settings.New(st, t.TempDir()), cfg: config.MCPServer{URL: as.URL}}
}

// login runs Login with a browser that follows the authorization; a
// browser that fails ends the login.
func (f *fixture) login(tamper func(*url.URL)) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	follow := mcpauthtest.Browser(tamper)
	var out strings.Builder
	err := Login(ctx, f.svc, "guarded", f.cfg, &LoginOptions{Out: &out, Open: func(ctx context.Context, addr string) error {
		if err := follow(ctx, addr); err != nil {
			f.t.Errorf("browser: %v", err)
			cancel()
		}
		return nil
	}})
	if !strings.Contains(out.String(), "/authorize?") {
		f.t.Errorf("Login did not show the address to open:\n%s", out.String())
	}
	return err
}

func (f *fixture) stored() *credentials {
	f.t.Helper()
	raw, ok, err := f.svc.Value(plugin, Key)
	if err != nil || !ok {
		f.t.Fatalf("stored credentials: ok=%v err=%v", ok, err)
	}
	c, err := decodeCredentials(raw)
	if err != nil || c == nil {
		f.t.Fatalf("stored credentials: %v %v", c, err)
	}
	return c
}

func (f *fixture) handler() auth.OAuthHandler {
	f.t.Helper()
	h, err := New(f.svc, nil)("guarded", f.cfg)
	if err != nil || h == nil {
		f.t.Fatalf("New: %v %v", h, err)
	}
	return h
}

// echo connects through h and calls the tool echo.
func (f *fixture) echo(h auth.OAuthHandler) (string, error) {
	ctx := context.Background()
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	s, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: f.cfg.URL, OAuthHandler: h, MaxRetries: -1, DisableStandaloneSSE: true}, nil)
	if err != nil {
		return "", err
	}
	defer s.Close()
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"}})
	if err != nil {
		return "", err
	}
	return res.Content[0].(*mcp.TextContent).Text, nil
}

func TestLoginStoresSecretCredentials(t *testing.T) {
	f := newFixture(t)
	if err := f.login(nil); err != nil {
		t.Fatal(err)
	}
	c := f.stored()
	if !c.Client.Dynamic || c.Client.ID != "client-1" || c.Token == nil || c.Token.RefreshToken == "" {
		t.Fatalf("stored %+v", c)
	}
	// Secret: the plugin reads it, nobody else does, a new process too.
	if v, err := f.svc.For(plugin).Get(Key); err != nil || v == settings.Mask {
		t.Errorf("own plugin reads %v, %v", v, err)
	}
	if v, err := f.svc.For("other").GetPlugin(plugin, Key); err != nil || v != settings.Mask {
		t.Errorf("another plugin reads %v, %v; want the mask", v, err)
	}
	fresh := settings.New(f.st, t.TempDir())
	dump, err := fresh.Dump()
	if err != nil {
		t.Fatal(err)
	}
	if got := dump[plugin].(map[string]any)[Key]; got != settings.Mask {
		t.Errorf("Dump shows %v; want the mask", got)
	}
	b, _ := json.Marshal(dump)
	if strings.Contains(string(b), c.Token.AccessToken) || strings.Contains(string(b), c.Token.RefreshToken) {
		t.Errorf("Dump shows a token: %s", b)
	}

	// A second login keeps the registered client (and its redirect URI).
	if err := f.login(nil); err != nil {
		t.Fatal(err)
	}
	again := f.stored()
	if f.as.Registrations() != 1 || again.Client.ID != c.Client.ID || again.Client.RedirectURI != c.Client.RedirectURI {
		t.Errorf("second login registered again: %d registrations, client %+v", f.as.Registrations(), again.Client)
	}
	if again.Token.AccessToken == c.Token.AccessToken {
		t.Error("second login kept the old token")
	}
}

func TestHandlerCallsTool(t *testing.T) {
	f := newFixture(t)
	if err := f.login(nil); err != nil {
		t.Fatal(err)
	}
	got, err := f.echo(f.handler())
	if err != nil || got != "hi" {
		t.Fatalf("echo = %q, %v", got, err)
	}
}

func TestRefreshedTokenIsStored(t *testing.T) {
	f := newFixture(t)
	f.as.SetTTL(5*time.Second, 5*time.Second) // inside oauth2's 10s margin: stale at once
	if err := f.login(nil); err != nil {
		t.Fatal(err)
	}
	before := f.stored().Token
	if _, err := f.echo(f.handler()); err != nil {
		t.Fatal(err)
	}
	after := f.stored().Token
	if f.as.Refreshes() == 0 || after.AccessToken == before.AccessToken || after.RefreshToken == before.RefreshToken {
		t.Fatalf("after %d refreshes the stored token is still the first", f.as.Refreshes())
	}
	if !f.as.Valid(after.AccessToken) {
		t.Fatal("the stored token is not the one in use")
	}
	// Another process starts from what was stored: the rotated refresh
	// token, not the spent one.
	f.as.ExpireAccess()
	if got, err := f.echo(f.handler()); err != nil || got != "hi" {
		t.Fatalf("from the stored token: %q, %v", got, err)
	}
}

func TestRefusedTokenIsRefreshedOnce(t *testing.T) {
	f := newFixture(t)
	if err := f.login(nil); err != nil {
		t.Fatal(err)
	}
	h := f.handler()
	if _, err := f.echo(h); err != nil {
		t.Fatal(err)
	}
	f.as.ExpireAccess() // the server drops the token before its time
	if got, err := f.echo(h); err != nil || got != "hi" {
		t.Fatalf("after the server dropped the token: %q, %v", got, err)
	}
	if f.as.Refreshes() != 1 {
		t.Errorf("%d refreshes, want 1", f.as.Refreshes())
	}
}

func TestRevokedRefreshNeedsLogin(t *testing.T) {
	for _, ttl := range []time.Duration{5 * time.Second, time.Hour} {
		// 5s: the client refreshes before it sends; an hour: the server
		// refuses the token and the client's refresh is refused too.
		f := newFixture(t)
		f.as.SetTTL(ttl, ttl)
		if err := f.login(nil); err != nil {
			t.Fatal(err)
		}
		h := f.handler()
		f.as.Revoke()
		_, err := f.echo(h)
		if !errors.Is(err, ErrAuthorizationNeeded) || !strings.Contains(err.Error(), "authorization needed: run hearth mcp login guarded") {
			t.Fatalf("ttl %v: with a revoked refresh token: %v", ttl, err)
		}
		var marked interface{ AuthorizationNeeded() bool }
		if !errors.As(err, &marked) || !marked.AuthorizationNeeded() {
			t.Fatalf("ttl %v: %v is not marked for pluginhost", ttl, err)
		}
		// A later login is picked up by the same handler at the next connect.
		f.as.SetTTL(time.Hour, time.Hour)
		if err := f.login(nil); err != nil {
			t.Fatal(err)
		}
		if got, err := f.echo(h); err != nil || got != "hi" {
			t.Fatalf("ttl %v: after a new login: %q, %v", ttl, got, err)
		}
	}
}

func TestNoTokenNeedsLogin(t *testing.T) {
	f := newFixture(t)
	_, err := f.echo(f.handler())
	if err == nil || !strings.Contains(err.Error(), "authorization needed: run hearth mcp login guarded") {
		t.Fatalf("without a login: %v", err)
	}
	// Logging out forgets the tokens but keeps the registered client.
	if err := f.login(nil); err != nil {
		t.Fatal(err)
	}
	if err := Logout(f.svc, "guarded", false); err != nil {
		t.Fatal(err)
	}
	if _, err := f.echo(f.handler()); err == nil || !errors.Is(err, ErrAuthorizationNeeded) && !strings.Contains(err.Error(), "run hearth mcp login") {
		t.Fatalf("after logout: %v", err)
	}
	if c := f.stored(); c.Token != nil || c.Client.ID != "client-1" {
		t.Fatalf("after logout: %+v", c)
	}
	if err := Logout(f.svc, "guarded", true); err != nil {
		t.Fatal(err)
	}
	if raw, _, _ := f.svc.Value(plugin, Key); string(raw) != "null" {
		t.Fatalf("after logout --forget: %s", raw)
	}
}

func TestLoginRefusesWrongState(t *testing.T) {
	f := newFixture(t)
	err := f.login(func(u *url.URL) {
		q := u.Query()
		q.Set("state", "forged")
		u.RawQuery = q.Encode()
	})
	if !errors.Is(err, ErrStateMismatch) {
		t.Fatalf("Login = %v; want ErrStateMismatch", err)
	}
	if raw, ok, _ := f.svc.Value(plugin, Key); ok {
		t.Fatalf("stored %s after a refused answer", raw)
	}
}

func TestNewGivesNoHandlerWithoutOAuth(t *testing.T) {
	f := newFixture(t)
	newFor := New(f.svc, nil)
	for name, cfg := range map[string]config.MCPServer{
		"stdio":  {Command: "server"},
		"static": {URL: f.cfg.URL, Headers: map[string]string{"authorization": "Bearer x"}},
	} {
		if h, err := newFor(name, cfg); h != nil || err != nil {
			t.Errorf("%s: %v, %v; want no handler", name, h, err)
		}
	}
}

func TestLoginNeedsURL(t *testing.T) {
	f := newFixture(t)
	if err := Login(context.Background(), f.svc, "local", config.MCPServer{Command: "x"}, nil); err == nil {
		t.Fatal("a stdio server logged in")
	}
}

func TestLoginReportsRefusal(t *testing.T) {
	f := newFixture(t)
	err := f.login(func(u *url.URL) {
		q := u.Query()
		q.Del("code")
		q.Set("error", "access_denied")
		q.Set("error_description", "the user said no\x1b[2J")
		u.RawQuery = q.Encode()
	})
	if !errors.Is(err, ErrDenied) || !strings.Contains(err.Error(), "access_denied: the user said no[2J") {
		t.Fatalf("Login = %v; want ErrDenied with the reason, control characters dropped", err)
	}
}

func TestRefreshedTokenNotStoredStillWorks(t *testing.T) {
	f := newFixture(t)
	f.as.SetTTL(5*time.Second, 5*time.Second)
	if err := f.login(nil); err != nil {
		t.Fatal(err)
	}
	before := f.stored().Token
	f.st.FailAfter("SetSetting", 0, nil)
	if got, err := f.echo(f.handler()); err != nil || got != "hi" {
		t.Fatalf("with a store that cannot write: %q, %v", got, err)
	}
	f.st.Heal()
	if after := f.stored().Token; after.AccessToken != before.AccessToken {
		t.Fatal("a failed write stored something")
	}
}

func TestConcurrentRefusalsRefreshOnce(t *testing.T) {
	f := newFixture(t)
	if err := f.login(nil); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	s, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: f.cfg.URL, OAuthHandler: f.handler(), MaxRetries: -1, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	f.as.ExpireAccess()
	errs := make(chan error, 4)
	for range 4 {
		go func() {
			_, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"}})
			errs <- err
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	if n := f.as.Refreshes(); n != 1 {
		t.Errorf("%d refreshes; want 1 (rotation would refuse a second one)", n)
	}
}

func TestLoginWithConfiguredClient(t *testing.T) {
	f := newFixture(t)
	f.as.Preregister("hearth-at-home")
	f.cfg.OAuth = &config.MCPOAuth{ClientID: "hearth-at-home", Scopes: []string{"tools"}}
	if err := f.login(nil); err != nil {
		t.Fatal(err)
	}
	c := f.stored()
	if c.Client.ID != "hearth-at-home" || c.Client.Dynamic || f.as.Registrations() != 0 {
		t.Fatalf("stored client %+v after %d registrations", c.Client, f.as.Registrations())
	}
	if got, err := f.echo(f.handler()); err != nil || got != "hi" {
		t.Fatalf("echo = %q, %v", got, err)
	}
}

func TestLoginToOpenServer(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "open", Version: "1"}, nil)
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	defer srv.Close()
	f := newFixture(t)
	err := Login(context.Background(), f.svc, "open", config.MCPServer{URL: srv.URL}, nil)
	if !errors.Is(err, ErrNotRequired) {
		t.Fatalf("Login = %v; want ErrNotRequired", err)
	}
}
