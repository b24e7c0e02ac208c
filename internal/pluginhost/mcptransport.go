package pluginhost

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hearth-agent/hearth/internal/config"
)

// expandEnv replaces ${NAME} in s with the host's variable NAME (empty
// when unset). Only the braced form is expanded: a "$" elsewhere, common
// in passwords, stays as it is.
func expandEnv(s string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		b.WriteString(os.Getenv(s[i+2 : i+j]))
		s = s[i+j+1:]
	}
}

// mcpTransportKind returns "stdio", "http" or "sse" for cfg.
func mcpTransportKind(cfg config.MCPServer) string {
	switch t := cfg.Transport(); t {
	case config.MCPHTTP, config.MCPSSE:
		return t
	}
	return config.MCPStdio
}

// headerTransport adds a remote server's configured headers to every
// request. The values are secrets: they are never logged.
type headerTransport struct {
	base    http.RoundTripper
	headers map[string]string // expanded
}

// RoundTrip implements http.RoundTripper.
func (t *headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if len(t.headers) > 0 {
		r = r.Clone(r.Context())
		for k, v := range t.headers {
			r.Header.Set(k, v)
		}
	}
	return t.base.RoundTrip(r)
}

// mcpHTTPClient returns the client a remote server is reached with.
func mcpHTTPClient(cfg config.MCPServer) *http.Client {
	h := make(map[string]string, len(cfg.Headers))
	for k, v := range cfg.Headers {
		h[k] = expandEnv(v)
	}
	return &http.Client{Transport: &headerTransport{base: http.DefaultTransport, headers: h}}
}

// connectHTTP connects client to a remote server: Streamable HTTP, and
// the legacy SSE transport when the server refuses the initialize POST as
// one (or cfg.Type is "sse").
func (p *Process) connectHTTP(ctx context.Context, client *mcp.Client) (*mcp.ClientSession, error) {
	cfg := p.mcp.cfg
	hc := mcpHTTPClient(cfg)
	sse := &mcp.SSEClientTransport{Endpoint: cfg.URL, HTTPClient: hc}
	if mcpTransportKind(cfg) == "sse" {
		return client.Connect(ctx, sse, nil)
	}
	st := &mcp.StreamableClientTransport{Endpoint: cfg.URL, HTTPClient: hc}
	if p.opts.MCPAuth != nil {
		h, err := p.opts.MCPAuth(p.mcp.name, cfg)
		if err != nil {
			return nil, fmt.Errorf("authorization: %w", err)
		}
		st.OAuthHandler = h
	}
	cs, err := client.Connect(ctx, st, nil)
	if err == nil || ctx.Err() != nil {
		return cs, err
	}
	cs, serr := client.Connect(ctx, sse, nil)
	if serr != nil {
		return nil, errors.Join(err, fmt.Errorf("as a legacy SSE server: %w", serr))
	}
	p.log.Info("MCP server speaks the legacy SSE transport")
	return cs, nil
}

// mcpRuns describes what an MCP server runs, for `hearth plugin`: the
// command line, or the URL without its user info and query values. Env
// and header values are never shown.
func mcpRuns(cfg config.MCPServer) string {
	if mcpTransportKind(cfg) == "stdio" {
		return strings.Join(append([]string{cfg.Command}, cfg.Args...), " ")
	}
	u, err := url.Parse(cfg.URL)
	if err != nil {
		return "(an invalid URL)"
	}
	if u.User != nil {
		u.User = url.User("***")
	}
	if q := u.Query(); len(q) > 0 {
		keys := make([]string, 0, len(q))
		for k := range q {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for i, k := range keys {
			keys[i] = url.QueryEscape(k) + "=***"
		}
		u.RawQuery = strings.Join(keys, "&")
	}
	return strings.Replace(u.String(), "%2A%2A%2A@", "***@", 1)
}

// redactedError is an error whose text had an MCP server's secrets
// masked; it unwraps to the original.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// redact masks in err's text what must not reach logs, Status or the
// model: the URL (its query may hold a key) and the values of the
// server's headers and env.
func (s *mcpServer) redact(err error) error {
	if err == nil {
		return nil
	}
	var pairs []string
	if s.cfg.URL != "" {
		masked := mcpRuns(s.cfg)
		pairs = append(pairs, s.cfg.URL, masked)
		if u, perr := url.Parse(s.cfg.URL); perr == nil {
			pairs = append(pairs, u.Redacted(), masked)
			if u.RawQuery != "" {
				pairs = append(pairs, u.RawQuery, "***")
			}
		}
	}
	for _, m := range []map[string]string{s.cfg.Headers, s.cfg.Env} {
		for _, v := range m {
			if v := expandEnv(v); len(v) >= 4 {
				pairs = append(pairs, v, "***")
			}
		}
	}
	msg := err.Error()
	if len(pairs) == 0 {
		return err
	}
	red := strings.NewReplacer(pairs...).Replace(msg)
	if red == msg {
		return err
	}
	return &redactedError{msg: red, err: err}
}
