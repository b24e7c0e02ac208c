// Package mcpauth is the MCP authorization flow for remote MCP servers
// (OAuth 2.1 authorization code with PKCE, dynamic client registration,
// protected-resource and authorization-server metadata discovery), built
// on the official SDK's auth package.
//
// `hearth mcp login NAME` runs Login: the user authorizes Hearth in a
// browser, and the tokens and the client (registered dynamically when
// config.json names none) are stored as a secret setting of Hearth's
// own: Namespace "mcp", key NAME.oauth.credentials, bound to the origin
// of the server's url (they are never sent to another). At run time New's
// handler gives the MCP runtime those tokens,
// refreshes them when they expire and writes the refreshed ones back;
// nobody is at the keyboard then, so when the server wants a new
// authorization the handler fails with ErrAuthorizationNeeded, whose
// message tells the user to log in again.
package mcpauth

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"golang.org/x/oauth2"

	"github.com/hearth-agent/hearth/internal/settings"
	"github.com/hearth-agent/hearth/sdk"
)

// Namespace is the settings namespace of the MCP servers' OAuth
// credentials. It is a name reserved for Hearth itself (names.IsReserved)
// and not "core", so no plugin reads or writes it: not a folder plugin
// that takes the id mcp-NAME (the plugin an MCP server runs as), nor any
// plugin through the core settings API.
const Namespace = "mcp"

// Key returns the setting of Namespace that holds server's OAuth client
// and tokens. It is declared secret (and named like one): shown as the
// mask by `hearth settings`, the HTTP API and the web UI.
func Key(server string) string { return server + ".oauth.credentials" }

// Secrets is where credentials are kept: *settings.Service.
type Secrets interface {
	// Value returns namespace's setting as stored JSON; ok is false when
	// it is not set.
	Value(namespace, key string) (value json.RawMessage, ok bool, err error)
	// SetJSON stores namespace's setting.
	SetJSON(namespace, key string, value json.RawMessage) error
	// Register declares namespace's setting (here: as a secret).
	Register(namespace string, def sdk.ConfigDef) error
}

var _ Secrets = (*settings.Service)(nil)

// credentials is what Key's setting holds.
type credentials struct {
	// Resource is the origin (scheme://host:port) of the server's url
	// they were given for: they are sent nowhere else, so an entry whose
	// url moved to another host needs a new login.
	Resource string `json:"resource"`
	Client   client `json:"client"`
	Token    *token `json:"token,omitempty"`
}

// Origin returns raw's scheme and host (with its port), lowercased: the
// address stored credentials are bound to; "" when raw is not a URL.
func Origin(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return ""
	}
	return strings.ToLower(u.Scheme + "://" + u.Host)
}

// ErrNotLoggedIn means Logout found nothing to forget: the server never
// logged in, or logged out already.
var ErrNotLoggedIn = errors.New("was not logged in")

// client is the OAuth client Hearth is known by to the server's
// authorization server, and the endpoints a refresh needs.
type client struct {
	ID     string `json:"id"`
	Secret string `json:"secret,omitempty"`
	// Dynamic is true for a client registered by Login (RFC 7591): the
	// next login uses it again, with the same redirect URI.
	Dynamic     bool     `json:"dynamic,omitempty"`
	RedirectURI string   `json:"redirect_uri,omitempty"`
	AuthURL     string   `json:"auth_url,omitempty"`
	TokenURL    string   `json:"token_url"`
	AuthStyle   int      `json:"auth_style,omitempty"`
	Scopes      []string `json:"scopes,omitempty"`
}

// token is an OAuth token as stored.
type token struct {
	AccessToken  string    `json:"access_token"`
	TokenType    string    `json:"token_type,omitempty"`
	RefreshToken string    `json:"refresh_token,omitempty"`
	Expiry       time.Time `json:"expiry,omitzero"`
}

func fromOAuth2(t *oauth2.Token) *token {
	return &token{AccessToken: t.AccessToken, TokenType: t.TokenType, RefreshToken: t.RefreshToken, Expiry: t.Expiry}
}

func (t *token) oauth2() *oauth2.Token {
	return &oauth2.Token{AccessToken: t.AccessToken, TokenType: t.TokenType, RefreshToken: t.RefreshToken, Expiry: t.Expiry}
}

// config is the oauth2 configuration a refresh uses.
func (c *client) config() *oauth2.Config {
	return &oauth2.Config{
		ClientID:     c.ID,
		ClientSecret: c.Secret,
		Endpoint:     oauth2.Endpoint{AuthURL: c.AuthURL, TokenURL: c.TokenURL, AuthStyle: oauth2.AuthStyle(c.AuthStyle)},
		RedirectURL:  c.RedirectURI,
		Scopes:       c.Scopes,
	}
}

// errBadCredentials wraps a stored value that cannot be used; the message
// never quotes it.
var errBadCredentials = errors.New("the stored OAuth credentials are unreadable")

// decodeCredentials reads Key's setting. JSON null (a logout) and a value
// without a client are no credentials: nil, nil.
func decodeCredentials(raw []byte) (*credentials, error) {
	var c *credentials
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, errBadCredentials // the decoder's message can quote a token
	}
	if c == nil || c.Client.ID == "" {
		return nil, nil
	}
	if c.Client.TokenURL == "" {
		return nil, fmt.Errorf("%w: no token endpoint", errBadCredentials)
	}
	if c.Token != nil && c.Token.AccessToken == "" {
		c.Token = nil
	}
	return c, nil
}

// declare makes server's Key a secret.
func declare(st Secrets, server string) error {
	err := st.Register(Namespace, sdk.ConfigDef{
		Key:         Key(server),
		Type:        "object",
		DisplayName: "MCP server " + server + ": OAuth login",
		Secret:      true,
		Description: "The OAuth client and tokens Hearth uses for the MCP server " + server + "; set by hearth mcp login " + server + ", cleared by hearth mcp login --logout " + server,
	})
	if err != nil {
		return fmt.Errorf("declaring the OAuth credentials of %s: %w", server, err)
	}
	return nil
}

// load returns server's stored credentials and their stored JSON, or nil.
func load(st Secrets, server string) (*credentials, string, error) {
	raw, ok, err := st.Value(Namespace, Key(server))
	if err != nil {
		return nil, "", fmt.Errorf("reading the OAuth credentials of %s: %w", server, err)
	}
	if !ok {
		return nil, "", nil
	}
	c, err := decodeCredentials(raw)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w: run hearth mcp login %s", server, err, server)
	}
	return c, string(raw), nil
}

// save stores server's credentials (nil clears them) and returns the JSON
// stored.
func save(st Secrets, server string, c *credentials) (string, error) {
	if err := declare(st, server); err != nil {
		return "", err
	}
	raw, err := json.Marshal(c)
	if err != nil {
		return "", fmt.Errorf("encoding the OAuth credentials of %s: %w", server, err)
	}
	if err := st.SetJSON(Namespace, Key(server), raw); err != nil {
		return "", fmt.Errorf("storing the OAuth credentials of %s: %w", server, err)
	}
	return string(raw), nil
}

// Logout forgets server's tokens; with forgetClient, the client
// registered for it too, so the next login registers a new one. When
// there is nothing to forget it writes nothing and returns an error
// wrapping ErrNotLoggedIn.
func Logout(st Secrets, server string, forgetClient bool) error {
	c, _, err := load(st, server)
	bad := errors.Is(err, errBadCredentials)
	if err != nil && !bad {
		return err
	}
	if !bad && (c == nil || c.Token == nil && !forgetClient) {
		return fmt.Errorf("%s %w", server, ErrNotLoggedIn)
	}
	if c == nil || forgetClient || !c.Client.Dynamic {
		_, err = save(st, server, nil)
		return err
	}
	c.Token = nil
	_, err = save(st, server, c)
	return err
}
