// Package mcpauth is the MCP authorization flow for remote MCP servers
// (OAuth 2.1 authorization code with PKCE, dynamic client registration,
// protected-resource and authorization-server metadata discovery), built
// on the official SDK's auth package.
//
// `hearth mcp login NAME` runs Login: the user authorizes Hearth in a
// browser, and the tokens and the client (registered dynamically when
// config.json names none) are stored as a secret setting of the plugin
// mcp-NAME. At run time New's handler gives the MCP runtime those tokens,
// refreshes them when they expire and writes the refreshed ones back;
// nobody is at the keyboard then, so when the server wants a new
// authorization the handler fails with ErrAuthorizationNeeded, whose
// message tells the user to log in again.
package mcpauth

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"golang.org/x/oauth2"

	"github.com/hearth-agent/hearth/internal/pluginhost"
	"github.com/hearth-agent/hearth/internal/settings"
	"github.com/hearth-agent/hearth/sdk"
)

// Key is the setting of plugin mcp-NAME that holds server NAME's OAuth
// client and tokens. It is declared secret: readable by that plugin only,
// masked for everyone else (other plugins, `hearth settings`, the HTTP
// API).
const Key = "oauth.credentials"

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

// credentials is what Key holds.
type credentials struct {
	Client client `json:"client"`
	Token  *token `json:"token,omitempty"`
}

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

// decodeCredentials reads Key's value. JSON null (a logout) and a value
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

// declare makes Key a secret of server's plugin.
func declare(st Secrets, server string) error {
	err := st.Register(pluginhost.MCPPluginName(server), sdk.ConfigDef{
		Key:         Key,
		Type:        "object",
		DisplayName: "OAuth credentials",
		Secret:      true,
		Description: "OAuth client and tokens of this MCP server (hearth mcp login)",
	})
	if err != nil {
		return fmt.Errorf("declaring the OAuth credentials of %s: %w", server, err)
	}
	return nil
}

// load returns server's stored credentials and their stored JSON, or nil.
func load(st Secrets, server string) (*credentials, string, error) {
	raw, ok, err := st.Value(pluginhost.MCPPluginName(server), Key)
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
	if err := st.SetJSON(pluginhost.MCPPluginName(server), Key, raw); err != nil {
		return "", fmt.Errorf("storing the OAuth credentials of %s: %w", server, err)
	}
	return string(raw), nil
}

// Logout forgets server's tokens; with forgetClient, the client
// registered for it too, so the next login registers a new one.
func Logout(st Secrets, server string, forgetClient bool) error {
	c, _, err := load(st, server)
	if err != nil && !errors.Is(err, errBadCredentials) {
		return err
	}
	if c == nil || forgetClient || !c.Client.Dynamic {
		_, err = save(st, server, nil)
		return err
	}
	c.Token = nil
	_, err = save(st, server, c)
	return err
}
