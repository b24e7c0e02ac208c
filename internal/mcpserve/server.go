// Package mcpserve offers Hearth's tools to MCP clients (Claude Desktop,
// an IDE, the MCP Inspector) with the official MCP Go SDK: one mcp.Server
// per kind of caller, whose tools are the tools the policy offers that
// caller, kept in step with the registry; every call runs through the
// kernel's policy (kernel.Kernel.CallTool), approvals asked through the
// client's elicitation when it has it.
package mcpserve

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hearth-agent/hearth/internal/kernel"
	"github.com/hearth-agent/hearth/internal/names"
	"github.com/hearth-agent/hearth/internal/tools"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/toolcall"
)

// Kernel is what a Server needs of the kernel; *kernel.Kernel has it.
type Kernel interface {
	DirectTools(in sdk.Injection) []*tools.Tool
	CallTool(ctx context.Context, c kernel.DirectCall) (toolcall.Result, error)
	Tools() *tools.Registry
}

var _ Kernel = (*kernel.Kernel)(nil)

// Channel is the channel of the owner's MCP clients: `hearth mcp serve`
// over stdio (only the owner can launch it) and the daemon's /mcp with the
// main API token. The policy counts it as local (the owner's).
const Channel = names.ChannelMCP

// Owner is the requester of the owner's MCP clients.
var Owner = sdk.Injection{Channel: Channel, ChatID: "mcp", UserID: "owner"}

// Options configures a Server; nil means defaults.
type Options struct {
	// Requester is who the server's callers are to the policy (default
	// Owner).
	Requester sdk.Injection
	// Version is Hearth's version, told to clients.
	Version string
	// Logger receives the server's logs (default slog.Default()). Never
	// stdout: over stdio that is the protocol's.
	Logger *slog.Logger
}

// Server is the MCP server of one kind of caller.
type Server struct {
	k   Kernel
	req sdk.Injection
	log *slog.Logger
	srv *mcp.Server

	mu      sync.Mutex
	current map[string]*tools.Tool // the tools the SDK server has

	sessions sync.Map // *mcp.ServerSession -> *sessionState
	states   *approvalStates
}

// sessionState is what a Server keeps of one MCP session while it lasts.
type sessionState struct {
	taint atomic.Bool
	// id names the session to approval states: the session's id over
	// HTTP, and a random one drawn for it, so that no other session (over
	// stdio, where there is no id, or after a reconnection) shares it.
	id string
}

// New returns the server of the callers opts names, with the tools they
// are offered now. Run Watch to keep them in step with the registry.
func New(k Kernel, opts *Options) *Server {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Requester.Channel == "" {
		o.Requester = Owner
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Version == "" {
		o.Version = "dev"
	}
	s := &Server{k: k, req: o.Requester, log: o.Logger, current: map[string]*tools.Tool{}, states: newApprovalStates()}
	s.srv = mcp.NewServer(&mcp.Implementation{Name: "hearth", Title: "Hearth", Version: o.Version}, &mcp.ServerOptions{
		Logger:       o.Logger,
		Instructions: "Hearth's tools, under the owner's Hearth policy: calls that need approval are asked through this client, or refused when it cannot ask.",
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: true}},
	})
	s.srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/list" || method == "tools/call" {
				// The policy may have changed since the registry did (an
				// override, a role): the list answers what holds now.
				s.Sync()
			}
			return next(ctx, method, req)
		}
	})
	s.Sync()
	return s
}

// MCP returns the SDK server, to run on a transport or serve over HTTP.
func (s *Server) MCP() *mcp.Server { return s.srv }

// Run serves one session on t (stdio: &mcp.StdioTransport{}) until the
// client goes or ctx ends, keeping the tool list in step meanwhile.
func (s *Server) Run(ctx context.Context, t mcp.Transport) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go s.Watch(ctx)
	return s.srv.Run(ctx, t)
}

// Watch keeps the tool list in step with the registry until ctx ends:
// each change (a plugin started or stopped) updates the list, and the
// SDK tells the connected clients (notifications/tools/list_changed).
func (s *Server) Watch(ctx context.Context) {
	reg := s.k.Tools()
	for {
		ch := reg.Changed()
		s.Sync()
		select {
		case <-ctx.Done():
			return
		case <-ch:
		}
	}
}

// Sync makes the SDK server's tools the ones offered to the callers now.
func (s *Server) Sync() {
	offered := s.k.DirectTools(s.req)
	s.mu.Lock()
	defer s.mu.Unlock()
	keep := make(map[string]bool, len(offered))
	for _, t := range offered {
		keep[t.Name] = true
		if s.current[t.Name] == t {
			continue
		}
		s.current[t.Name] = t
		s.srv.AddTool(mcpTool(t), s.call)
	}
	var gone []string
	for name := range s.current {
		if !keep[name] {
			gone = append(gone, name)
			delete(s.current, name)
		}
	}
	if len(gone) > 0 {
		s.srv.RemoveTools(gone...)
	}
}

// taint is the session's taint, kept while the session lasts.
func (s *Server) taint(ss *mcp.ServerSession) *atomic.Bool {
	if ss == nil {
		return nil
	}
	return &s.session(ss).taint
}

// session is what the server keeps of ss, made on first use and dropped
// when ss ends.
func (s *Server) session(ss *mcp.ServerSession) *sessionState {
	if v, ok := s.sessions.Load(ss); ok {
		return v.(*sessionState)
	}
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		panic("mcpserve: no randomness: " + err.Error()) // crypto/rand does not fail on supported systems
	}
	v, loaded := s.sessions.LoadOrStore(ss, &sessionState{id: ss.ID() + "/" + hex.EncodeToString(b)})
	if !loaded {
		go func() {
			ss.Wait()
			s.sessions.Delete(ss)
		}()
	}
	return v.(*sessionState)
}
