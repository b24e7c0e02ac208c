// Package server is the HTTP side of `hearth serve`: the API under /v1
// (sessions, server-sent events, approvals, plugins, settings, memory,
// knowledge, traces, providers), the OpenAI-compatible chat completions
// endpoint, and the embedded web UI. Every /v1 request needs the daemon's
// token but GET /v1/hello, where the daemon proves it knows the token;
// the OpenAI-compatible routes also take the client token, which reaches
// nothing else; see docs/http-api.md.
package server

import (
	"crypto/subtle"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/hearth-agent/hearth/internal/app"
)

// DefaultMaxBody is the default cap on a request body (1 MiB).
const DefaultMaxBody = 1 << 20

// Options configure a Server. A nil *Options means the defaults, which
// refuse every API call: a server without a token serves nobody.
type Options struct {
	// Token is the secret every /v1 request presents, as
	// "Authorization: Bearer TOKEN": the owner's, good for every route
	// (it runs hearth commands through /v1/cli: it is as good as a shell).
	// Empty refuses every API call.
	Token string
	// TokenFunc, when set, is asked for the token at each request instead
	// of Token, so a rotated token takes effect without a restart (see
	// daemon.TokenSource). Its empty answer refuses the request.
	TokenFunc func() string
	// ClientTokenFunc, when set, gives the client token at each request:
	// the one handed to OpenAI clients, which reaches only the routes
	// marked client (GET /v1/models, GET /v1/models/{id}, POST
	// /v1/chat/completions) and gets 401 on every other. Its empty answer
	// lets no client in (see daemon.ClientTokenSource).
	ClientTokenFunc func() string
	// Logger receives request errors; nil means the app's logger.
	Logger *slog.Logger
	// UI is the web UI's files, served at /; nil serves none.
	UI fs.FS
	// CLI, when set, serves POST /v1/cli: the daemon runs a hearth
	// command for a client (see internal/daemon).
	CLI http.Handler
	// MaxBody caps request bodies in bytes; zero means DefaultMaxBody.
	MaxBody int64
	// Hosts are the host names (without port) accepted in the Host header
	// besides the loopback ones (localhost, 127.0.0.1, ::1): the names a
	// non-loopback listener is reached by. "*" accepts any, for a server
	// behind a reverse proxy that checks them.
	Hosts []string
	// Prompts serves GET /v1/prompts and POST /v1/prompts/{plugin}/{name};
	// nil means the app's plugin manager (the MCP servers' prompts).
	Prompts PromptSource
}

// Server is the daemon's HTTP handler over a running app.
type Server struct {
	app  *app.App
	opts Options
	log  *slog.Logger
	mux  *http.ServeMux

	coreOnce sync.Once // sessions, events, approvals (events.go)
	core     *core

	// providersMu serialises changes to the model sources, so that a read
	// of config.json, its change and the live update are one step.
	providersMu sync.Mutex

	mcp mcpEndpoint // mcp.go: the /mcp endpoint
}

// New returns the server for a. Routes are registered at once; call
// Handler to serve them and Close when the listener is shut down.
func New(a *app.App, opts *Options) *Server {
	s := &Server{app: a, mux: http.NewServeMux()}
	if opts != nil {
		s.opts = *opts
	}
	if s.opts.MaxBody <= 0 {
		s.opts.MaxBody = DefaultMaxBody
	}
	s.log = s.opts.Logger
	if s.log == nil {
		s.log = a.Logger
	}
	for _, rt := range s.routes() {
		h := rt.h
		if !rt.public {
			h = s.authorized(h, rt.client)
		}
		s.mux.Handle(rt.method+" "+rt.path, h)
	}
	return s
}

// Handler returns the server's HTTP handler.
func (s *Server) Handler() http.Handler {
	return s.checkHost(s.mux)
}

// Close ends the server's long-lived streams (server-sent events) so a
// graceful http.Server.Shutdown does not wait for them.
func (s *Server) Close() error {
	s.closeStreams()
	s.closeMCP()
	return nil
}

// authorized refuses a request without the token (or, on a client route,
// the client token), and a state-changing request whose Origin is not
// this server (CSRF from a web page: the token travels in a header a
// foreign page cannot set, this is the second lock).
func (s *Server) authorized(h http.HandlerFunc, client bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !s.tokenOK(r) && !(client && s.clientTokenOK(r)) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="hearth"`)
			writeError(w, http.StatusUnauthorized, "unauthorized",
				"missing or wrong token: send Authorization: Bearer <token> (hearth token prints it)")
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead && !sameOrigin(r) {
			writeError(w, http.StatusForbidden, "bad_origin", "cross-origin request refused")
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, s.opts.MaxBody)
		h(w, r)
	}
}

// token is the token as it is now ("" refuses every request).
func (s *Server) token() string {
	if s.opts.TokenFunc != nil {
		return s.opts.TokenFunc()
	}
	return s.opts.Token
}

// tokenOK reports whether r carries the owner's token as it is now: at
// the start of every request, and again during a long event stream
// (events.go), so a rotated token ends what it opened.
func (s *Server) tokenOK(r *http.Request) bool { return bearerIs(r, s.token()) }

// clientTokenOK reports whether r carries the client token.
func (s *Server) clientTokenOK(r *http.Request) bool {
	return s.opts.ClientTokenFunc != nil && bearerIs(r, s.opts.ClientTokenFunc())
}

// bearerIs reports whether r's bearer token is want, which is not empty.
func bearerIs(r *http.Request, want string) bool {
	if want == "" {
		return false
	}
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return ok && subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}

// sameOrigin reports whether a request's Origin, when it has one, is the
// host it was sent to. Programs (curl, the OpenAI clients) send none.
func sameOrigin(r *http.Request) bool {
	o := r.Header.Get("Origin")
	if o == "" {
		return true
	}
	_, host, ok := strings.Cut(o, "://")
	return ok && strings.EqualFold(host, r.Host)
}

// checkHost refuses requests whose Host header is not a name this server
// is reached by: a page on another site resolving its own name to 127.0.0.1
// (DNS rebinding) must not reach the API or the UI.
func (s *Server) checkHost(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.hostOK(r.Host) {
			writeError(w, http.StatusMisdirectedRequest, "bad_host",
				"this Hearth does not answer to host "+r.Host+" (see serve.hosts in docs/configuration.md)")
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (s *Server) hostOK(hostport string) bool {
	if slices.Contains(s.opts.Hosts, "*") {
		return true
	}
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		host = strings.Trim(hostport, "[]")
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return true
	}
	return slices.ContainsFunc(s.opts.Hosts, func(h string) bool { return strings.EqualFold(h, host) })
}
