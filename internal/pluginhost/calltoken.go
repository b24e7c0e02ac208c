package pluginhost

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"sync"

	"github.com/hearth-agent/hearth/internal/scope"
	"github.com/hearth-agent/hearth/sdk/wire"
)

// callTokens are the calls of one plugin that run for a turn: each
// request the host sends the plugin to run its code for a turn
// (tool.call, stage.run, hook.decide, plugin.context) carries a fresh
// unguessable token, which the plugin's SDK attaches to the memory.* and
// knowledge.* requests it makes while serving it. The host maps a token
// that is live and this plugin's to that turn's conversation scope; any
// other (none, one whose call ended, another plugin's, a made-up one) to
// Global. A plugin can never name a scope itself.
type callTokens struct {
	mu   sync.Mutex
	live map[string]scope.Scope
}

// open issues the token of a call made in the conversation conv, and
// the function that ends it.
func (c *callTokens) open(conv scope.Scope) (token string, end func()) {
	var b [18]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("pluginhost: no randomness for a call token: " + err.Error()) // crypto/rand does not fail on Linux
	}
	token = base64.RawURLEncoding.EncodeToString(b[:])
	c.mu.Lock()
	if c.live == nil {
		c.live = map[string]scope.Scope{}
	}
	c.live[token] = conv
	c.mu.Unlock()
	var once sync.Once
	return token, func() {
		once.Do(func() {
			c.mu.Lock()
			delete(c.live, token)
			c.mu.Unlock()
		})
	}
}

// scope returns the conversation of the live call token names, Global
// for any other token.
func (c *callTokens) scope(token string) scope.Scope {
	if token == "" {
		return scope.Global
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if s, ok := c.live[token]; ok {
		return s
	}
	return scope.Global
}

// count returns how many calls are live (for tests).
func (c *callTokens) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.live)
}

// tokenOf reads the "callToken" member of a memory.* or knowledge.*
// request's params; "" when there is none or the params are not an
// object (the method's own decoding reports that).
func tokenOf(raw json.RawMessage) string {
	var t struct {
		CallToken string `json:"callToken"`
	}
	if len(raw) == 0 || wire.DecodeParams(raw, &t) != nil {
		return ""
	}
	return t.CallToken
}
