package pluginhost

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"strconv"
	"strings"
	"sync"

	"github.com/hearth-agent/hearth/internal/scope"
	"github.com/hearth-agent/hearth/sdk/wire"
)

// callTokens are the calls of one plugin that run for a turn: each
// request the host sends the plugin to run its code for a turn
// (tool.call, stage.run, hook.decide, plugin.context) carries a fresh
// unguessable token, which the plugin's SDK attaches to the memory.* and
// knowledge.* requests it makes while serving it. The host maps a token
// that is live and this plugin's to that turn's conversation scope. A
// request without a token acts in Global; one with any other token (one
// whose call ended, another plugin's, a made-up one) reads in Global and
// may not write (tokenEnded, tokenUnknown). A plugin can never name a
// scope itself.
//
// A token is "<n>.<random>", n counting the plugin's calls from 1, so
// that an ended token is told from one never issued without keeping the
// ended ones: only live calls are kept.
type callTokens struct {
	mu     sync.Mutex
	issued uint64 // the number of the last token issued
	live   map[string]scope.Scope
}

// tokenState is what a token sent with a memory.* or knowledge.*
// request names.
type tokenState int

const (
	tokenNone    tokenState = iota // no token: the plugin's own work, in Global
	tokenLive                      // a call of this plugin still running
	tokenEnded                     // a call of this plugin that has ended (or a token made to look like one)
	tokenUnknown                   // never issued to this plugin: another plugin's, or made up
)

// open issues the token of a call made in the conversation conv, and
// the function that ends it.
func (c *callTokens) open(conv scope.Scope) (token string, end func()) {
	var b [18]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("pluginhost: no randomness for a call token: " + err.Error()) // crypto/rand does not fail on Linux
	}
	c.mu.Lock()
	if c.live == nil {
		c.live = map[string]scope.Scope{}
	}
	c.issued++
	token = strconv.FormatUint(c.issued, 10) + "." + base64.RawURLEncoding.EncodeToString(b[:])
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

// lookup returns what token names, and for a live call its
// conversation (Global otherwise).
func (c *callTokens) lookup(token string) (scope.Scope, tokenState) {
	if token == "" {
		return scope.Global, tokenNone
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if s, ok := c.live[token]; ok {
		return s, tokenLive
	}
	n, _, ok := strings.Cut(token, ".")
	if seq, err := strconv.ParseUint(n, 10, 64); ok && err == nil && seq >= 1 && seq <= c.issued {
		return scope.Global, tokenEnded
	}
	return scope.Global, tokenUnknown
}

// scope returns the conversation of the live call token names, Global
// for any other token.
func (c *callTokens) scope(token string) scope.Scope {
	s, _ := c.lookup(token)
	return s
}

// refusal is the error of a write (method) sent with a token in state
// st, nil when the write may go ahead.
func refusal(method string, st tokenState) error {
	switch st {
	case tokenEnded:
		return &wire.Error{Code: wire.CodeCallEnded, Message: "call ended: " + method +
			" carries the token of a call that has returned; a write outside the call that started it is refused" +
			" (work the plugin does on its own, outside any call, sends no token and writes in global)"}
	case tokenUnknown:
		return &wire.Error{Code: wire.CodeCallEnded, Message: "call ended: " + method +
			" carries a call token this plugin was never given; a write outside the call that started it is refused"}
	}
	return nil
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
