package pluginrpc

import "github.com/hearth-agent/hearth/internal/goid"

// token returns the call token of the host request the calling goroutine
// serves ("" outside any): the memory and knowledge proxies send it with
// each request, so the host acts in that request's conversation
// (wire.TokenParams). HomeAgent's memory API takes no context, so the
// request is told by the goroutine: each handler of a request that
// carries a token runs on a goroutine of its own bound to it (inCall), a
// goroutine the handler starts inherits the token, and keeps sending it
// after the handler has returned, when the host refuses its writes ("call
// ended") instead of writing them in the global scope. A plugin's own
// goroutines, started outside any request (in Start), send no token and
// act in global.
func (c *child) token() string {
	t, st := c.calls.Lookup()
	if st == goid.None {
		return ""
	}
	return t
}

// inCall runs fn, the handler of a host request carrying token. When the
// plugin may use memory or knowledge (the requests that send tokens), it
// runs on a goroutine of its own bound to token (goid.Local.Run), not on
// the connection's reader, which goes on to serve other requests: the
// goroutines fn starts inherit the token, and no later request's. Other
// plugins run fn right here, as nothing of theirs reads the token.
func (c *child) inCall(token string, fn func()) {
	if token == "" || !c.scoped.Load() {
		fn()
		return
	}
	c.calls.Run(token, fn)
}
