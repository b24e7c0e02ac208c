package server

import (
	"net/http"
	"slices"
)

// route is one API route. The table of them is the single source of the
// mux and of docs/openapi.json (TestOpenAPIInSync regenerates it from
// here: run it with -update after changing a route).
type route struct {
	method string // GET, POST, PUT, PATCH, DELETE
	path   string // a net/http pattern path: /v1/sessions/{id}
	// summary is the one-line description in the OpenAPI file.
	summary string
	// in and out are zero values of the request and response body types
	// (nil for none), from which the OpenAPI schemas are made; stream
	// marks a text/event-stream answer whose events are out.
	in, out any
	stream  bool
	// public routes need no token: the web UI's static files, which hold
	// nothing secret, and /v1/hello, where the daemon proves it knows the
	// token without being sent it.
	public bool
	// client routes also take the client token (Options.ClientTokenFunc),
	// the one an OpenAI client holds: only the OpenAI-compatible ones.
	// Every other route takes the owner's token alone.
	client bool
	h      http.HandlerFunc
}

// routes is every route the server answers, by area; each area's file
// defines its part.
func (s *Server) routes() []route {
	return slices.Concat(
		s.uiRoutes(),        // ui.go: the web UI's files
		s.healthRoutes(),    // health.go
		s.sessionRoutes(),   // sessions.go: sessions, messages, sending, events
		s.approvalRoutes(),  // approvals.go
		s.openAIRoutes(),    // openai.go: /v1/chat/completions, /v1/models
		s.pluginRoutes(),    // plugins.go
		s.widgetRoutes(),    // widgets.go: plugins' web widgets
		s.promptRoutes(),    // prompts.go: MCP servers' prompts for chat
		s.settingsRoutes(),  // settings.go
		s.memoryRoutes(),    // memory.go
		s.knowledgeRoutes(), // knowledge.go
		s.traceRoutes(),     // traces.go
		s.usageRoutes(),     // usage.go: model usage and cost totals
		s.providerRoutes(),  // providers.go: model sources, onboarding
		s.cliRoutes(),       // cli.go: commands run for a client
		s.mcpRoutes(),       // mcp.go: /mcp, the MCP server
	)
}
