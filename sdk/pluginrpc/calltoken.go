package pluginrpc

// token returns the call token of the host request the calling goroutine
// serves ("" outside any): the memory and knowledge proxies send it with
// each request, so the host acts in that request's conversation
// (wire.TokenParams). HomeAgent's memory API takes no context, so the
// request is told by the goroutine: a handler's own goroutines send no
// token, and act in the global scope.
func (c *child) token() string {
	t, _ := c.calls.Get()
	return t
}
