package pluginhost

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strings"
	"sync/atomic"

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

// unsetVars returns the names of the variables that cfg's env and header
// values name as ${NAME} and the host does not set, sorted.
func unsetVars(cfg config.MCPServer) []string {
	seen := map[string]bool{}
	for _, m := range []map[string]string{cfg.Env, cfg.Headers} {
		for _, v := range m {
			for {
				i := strings.Index(v, "${")
				if i < 0 {
					break
				}
				j := strings.IndexByte(v[i:], '}')
				if j < 0 {
					break
				}
				if name := v[i+2 : i+j]; !seen[name] {
					if _, ok := os.LookupEnv(name); !ok {
						seen[name] = true
					}
				}
				v = v[i+j+1:]
			}
		}
	}
	out := make([]string, 0, len(seen))
	for name := range seen {
		out = append(out, "${"+name+"}")
	}
	sort.Strings(out)
	return out
}

// mcpTransportKind returns "stdio", "http" or "sse" for cfg.
func mcpTransportKind(cfg config.MCPServer) string {
	switch t := cfg.Transport(); t {
	case config.MCPHTTP, config.MCPSSE:
		return t
	}
	return config.MCPStdio
}

// mcpMaxJSONReply is the most a remote server's JSON reply may hold: the
// SDK's own cap on an SSE or stdio frame (it reads a JSON reply whole).
const mcpMaxJSONReply = 16 << 20

// errJSONReplyTooLarge ends a JSON reply past mcpMaxJSONReply.
var errJSONReplyTooLarge = fmt.Errorf("the server's JSON reply is over %d MiB", mcpMaxJSONReply>>20)

// headerTransport adds a remote server's configured headers to the
// requests to its origin (scheme, host and port of the configured URL)
// and refuses any other: a legacy SSE endpoint event or a redirect naming
// another origin must not get them. The values are secrets: they are
// never logged.
type headerTransport struct {
	base    http.RoundTripper
	origin  string                // of the configured URL
	headers map[string]string     // expanded
	refused atomic.Pointer[error] // the last request refused, if any
}

// refuse records and returns the refusal of a request to origin o.
func (t *headerTransport) refuse(format, o string) error {
	err := fmt.Errorf(format, o)
	t.refused.Store(&err)
	return err
}

// refusal returns the last refusal, or nil.
func (t *headerTransport) refusal() error {
	if e := t.refused.Load(); e != nil {
		return *e
	}
	return nil
}

// urlOrigin returns u's scheme://host:port, the port made explicit.
func urlOrigin(u *url.URL) string {
	port := u.Port()
	if port == "" {
		switch strings.ToLower(u.Scheme) {
		case "https":
			port = "443"
		case "http":
			port = "80"
		}
	}
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Hostname()) + ":" + port
}

// RoundTrip implements http.RoundTripper.
func (t *headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if o := urlOrigin(r.URL); o != t.origin {
		return nil, t.refuse("refused a request to another origin (%s) than the configured URL's", o)
	}
	if len(t.headers) > 0 {
		r = r.Clone(r.Context())
		for k, v := range t.headers {
			r.Header.Set(k, v)
		}
	}
	resp, err := t.base.RoundTrip(r)
	if err == nil && strings.HasPrefix(strings.ToLower(resp.Header.Get("Content-Type")), "application/json") {
		resp.Body = &cappedBody{rc: resp.Body, left: mcpMaxJSONReply}
	}
	return resp, err
}

// cappedBody fails a reply body past its limit.
type cappedBody struct {
	rc   io.ReadCloser
	left int64
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, errJSONReplyTooLarge
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *cappedBody) Close() error { return b.rc.Close() }

// mcpHTTPClient returns the client a remote server is reached with. It
// follows no redirect off the configured URL's origin.
func mcpHTTPClient(cfg config.MCPServer) *http.Client {
	h := make(map[string]string, len(cfg.Headers))
	for k, v := range cfg.Headers {
		h[k] = expandEnv(v)
	}
	origin := ""
	if u, err := url.Parse(cfg.URL); err == nil {
		origin = urlOrigin(u)
	}
	ht := &headerTransport{base: http.DefaultTransport, origin: origin, headers: h}
	return &http.Client{
		Transport: ht,
		CheckRedirect: func(r *http.Request, via []*http.Request) error {
			if o := urlOrigin(r.URL); o != origin {
				return ht.refuse("refused a redirect to another origin (%s)", o)
			}
			if len(via) >= 10 {
				return errors.New("stopped after 10 redirects")
			}
			return nil
		},
	}
}

// connectHTTP connects client to a remote server: Streamable HTTP, and
// the legacy SSE transport when the server refuses the initialize POST as
// one (or cfg.Type is "sse").
func (p *Process) connectHTTP(ctx context.Context, client *mcp.Client) (*mcp.ClientSession, error) {
	cfg := p.mcp.cfg
	hc := mcpHTTPClient(cfg)
	ht := hc.Transport.(*headerTransport)
	// A refused request (to another origin) is what went wrong, whatever
	// the SDK made of it.
	connect := func(t mcp.Transport) (*mcp.ClientSession, error) {
		cs, err := client.Connect(ctx, t, nil)
		if err != nil {
			if r := ht.refusal(); r != nil {
				return nil, r
			}
		}
		return cs, err
	}
	sse := &mcp.SSEClientTransport{Endpoint: cfg.URL, HTTPClient: hc}
	if mcpTransportKind(cfg) == "sse" {
		return connect(sse)
	}
	st := &mcp.StreamableClientTransport{Endpoint: cfg.URL, HTTPClient: hc}
	if p.opts.MCPAuth != nil {
		h, err := p.opts.MCPAuth(p.mcp.name, cfg)
		if err != nil {
			return nil, fmt.Errorf("authorization: %w", err)
		}
		st.OAuthHandler = h
	}
	cs, err := connect(st)
	if err == nil || ctx.Err() != nil || ht.refusal() != nil {
		return cs, err
	}
	cs, serr := connect(sse)
	if serr != nil {
		return nil, errors.Join(err, fmt.Errorf("as a legacy SSE server: %w", serr))
	}
	p.log.Info("MCP server speaks the legacy SSE transport")
	return cs, nil
}

// mcpRuns describes what an MCP server runs, for `hearth plugin`: the
// command line (its secrets masked, see config.MaskArgs), or the URL without its user info and query values. Env
// and header values are never shown.
func mcpRuns(cfg config.MCPServer) string {
	if mcpTransportKind(cfg) == "stdio" {
		return strings.Join(append([]string{cfg.Command}, config.MaskArgs(cfg.Args)...), " ")
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

// secretPairs returns the replacer pairs that mask what must not reach
// logs, Status or the model: the URL (its query may hold a key) and the
// values of the server's headers and env (of 4 bytes or more).
func (s *mcpServer) secretPairs() []string {
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
	for _, v := range MCPSecretValues(s.cfg, 4) {
		pairs = append(pairs, v, "***")
	}
	return pairs
}

// maskText masks the server's secrets (see secretPairs) in text.
func (s *mcpServer) maskText(text string) string {
	pairs := s.secretPairs()
	if len(pairs) == 0 {
		return text
	}
	return strings.NewReplacer(pairs...).Replace(text)
}

// MCPSecrets returns what of cfg is masked wherever Hearth masks its model
// keys (tool results, events, hearth.log, chat): the values of env
// variables and headers named like credentials (see SecretName), a
// header's token after "Bearer ", the password of a URL in any env value,
// and the OAuth client secret, at least minLen bytes long, longest first.
// Values under other names (NODE_ENV=production, a folder's path) are
// not: masking every occurrence of "production" in the model's answers
// would only hide text. The server's own log and errors mask every value
// (MCPSecretValues).
func MCPSecrets(cfg config.MCPServer, minLen int) []string {
	return mcpSecrets(cfg, minLen, SecretName)
}

// mcpSecrets returns the expanded values of cfg's env variables and
// headers whose name named accepts (with a header's token after "Bearer "
// and the password of a URL in an env value), and the OAuth client
// secret, at least minLen bytes long, longest first (so a replacer masks
// a value before any value inside it).
func mcpSecrets(cfg config.MCPServer, minLen int, named func(string) bool) []string {
	var out []string
	add := func(v string) {
		if len(v) >= minLen {
			out = append(out, v)
		}
	}
	for k, v := range cfg.Env {
		v = expandEnv(v)
		if named(k) {
			add(v)
		}
		if u, err := url.Parse(v); err == nil && u.User != nil {
			if pw, ok := u.User.Password(); ok {
				add(pw)
			}
		}
	}
	for k, v := range cfg.Headers {
		if !named(k) {
			continue
		}
		v = expandEnv(v)
		add(v)
		// "Bearer xyz": the token alone is a secret too.
		if _, tok, ok := strings.Cut(v, " "); ok {
			add(tok)
		}
	}
	if cfg.OAuth != nil {
		add(cfg.OAuth.ClientSecret)
	}
	sort.Slice(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return out
}

// SecretName reports whether an env variable or header of this name
// probably holds a credential: token, secret, password, key, auth,
// credential, cookie or session in it (GITHUB_PERSONAL_ACCESS_TOKEN,
// BRAVE_API_KEY, Authorization, X-Api-Key, Cookie).
func SecretName(name string) bool {
	n := strings.ToLower(name)
	for _, w := range []string{"token", "secret", "password", "passwd", "key", "auth", "credential", "cookie", "session", "pat"} {
		if w == "pat" {
			if n == "pat" || strings.HasSuffix(n, "_pat") || strings.HasPrefix(n, "pat_") {
				return true
			}
			continue
		}
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// MCPSecretValues returns the values of cfg's env and headers after
// ${NAME} expansion (a header's token after "Bearer " too) and its OAuth
// client secret that are at least min bytes long, longest first (so
// a replacer masks a value before any value inside it).
func MCPSecretValues(cfg config.MCPServer, minLen int) []string {
	return mcpSecrets(cfg, minLen, func(string) bool { return true })
}

// redact masks the server's secrets (see secretPairs) in err's text.
func (s *mcpServer) redact(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	red := s.maskText(msg)
	if red == msg {
		return err
	}
	return &redactedError{msg: red, err: err}
}
