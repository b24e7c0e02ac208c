package server

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hearth-agent/hearth/internal/mcpserve"
)

// mcpEndpoint is the daemon's MCP server (Streamable HTTP at /mcp): the
// owner's tools under the policy, for MCP clients holding the owner's
// token, and for `hearth mcp serve` run while the daemon owns the data
// directory (it bridges its stdio here).
type mcpEndpoint struct {
	once    sync.Once
	handler http.Handler
	stop    context.CancelFunc
}

// mcpSessionTimeout ends an MCP session idle this long (a client that
// went away without DELETE).
const mcpSessionTimeout = 30 * time.Minute

// mcpRoutes are /mcp's methods: POST sends messages, GET opens the
// stream of the server's own messages, DELETE ends a session.
func (s *Server) mcpRoutes() []route {
	h := func(w http.ResponseWriter, r *http.Request) { s.mcpHandler().ServeHTTP(w, r) }
	return []route{
		{method: "POST", path: "/mcp", h: h,
			summary: "MCP over Streamable HTTP: JSON-RPC messages from an MCP client (the owner's tools under the policy; see docs/mcp-server.md)."},
		{method: "GET", path: "/mcp", h: h,
			summary: "MCP over Streamable HTTP: the stream of the server's messages to an MCP client session."},
		{method: "DELETE", path: "/mcp", h: h,
			summary: "MCP over Streamable HTTP: end an MCP client session."},
	}
}

// mcpHandler starts the MCP server at first use: one for the owner's
// clients (every caller of /mcp holds the owner's token), its tool list
// kept in step with the registry until the server closes.
func (s *Server) mcpHandler() http.Handler {
	m := &s.mcp
	m.once.Do(func() {
		ms := mcpserve.New(s.app.Kernel, &mcpserve.Options{Version: Version, Logger: s.log.With("component", "mcp")})
		ctx, cancel := context.WithCancel(context.Background())
		m.stop = cancel
		go ms.Watch(ctx)
		m.handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return ms.MCP() },
			&mcp.StreamableHTTPOptions{
				Logger: s.log.With("component", "mcp"),
				// checkHost refuses rebound names already, and accepts
				// the names of serve.hosts the SDK's check would refuse.
				DisableLocalhostProtection: true,
				SessionTimeout:             mcpSessionTimeout,
			})
	})
	return m.handler
}

// closeMCP stops the MCP server's watch of the registry.
func (s *Server) closeMCP() {
	m := &s.mcp
	m.once.Do(func() {}) // nothing starts after Close
	if m.stop != nil {
		m.stop()
	}
}
