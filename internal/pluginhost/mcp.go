package pluginhost

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"sort"
	"strings"

	"github.com/hearth-agent/hearth/internal/config"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MCPPrefix starts the plugin name of every MCP server: the server "github"
// of config.json runs as the plugin "mcp-github", its tool "search" is
// offered to the model as "mcp-github__search".
const MCPPrefix = "mcp-"

// MCPPluginName returns the plugin name MCP server name runs as.
func MCPPluginName(server string) string { return MCPPrefix + server }

// MCPAuthFunc returns the OAuth handler for the remote MCP server named
// server (its tokens kept as secrets), or nil when it needs none.
type MCPAuthFunc func(server string, cfg config.MCPServer) (auth.OAuthHandler, error)

// SetMCPServers tells the manager which MCP servers config.json names;
// the next Scan starts, stops and restarts them to match, as it does for
// plugin folders.
func (m *Manager) SetMCPServers(servers map[string]config.MCPServer) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.mcp = maps.Clone(servers)
}

// MCPPrompt is a prompt an MCP server offers; chat shows it as the command
// /<plugin>:<name>.
type MCPPrompt struct {
	Plugin      string // mcp-<server>
	Name        string
	Title       string
	Description string
	Arguments   []MCPPromptArgument
}

// MCPPromptArgument is one argument of an MCPPrompt.
type MCPPromptArgument struct {
	Name        string
	Description string
	Required    bool
}

// MCPPrompts returns the prompts of the running MCP servers, by plugin and
// name. Each server's list is cached from prompts/list and refreshed when
// the server says it changed.
func (m *Manager) MCPPrompts() []MCPPrompt {
	m.mu.Lock()
	var out []MCPPrompt
	for _, mp := range m.procs {
		if s := mp.proc.mcp; s != nil {
			s.mu.Lock()
			out = append(out, s.prompts...)
			s.mu.Unlock()
		}
	}
	m.mu.Unlock()
	sort.Slice(out, func(i, j int) bool {
		if out[i].Plugin != out[j].Plugin {
			return out[i].Plugin < out[j].Plugin
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// GetMCPPrompt asks plugin's server for its prompt name with args and
// returns the text to send as the user's message: the text of its
// messages, one after the other (another role's message is marked with
// it). It fails with ErrMCPNotRunning when the server is not running.
func (m *Manager) GetMCPPrompt(ctx context.Context, plugin, name string, args map[string]string) (string, error) {
	m.mu.Lock()
	mp, ok := m.procs[plugin]
	m.mu.Unlock()
	if !ok || mp.proc.mcp == nil {
		return "", fmt.Errorf("%w: %s", ErrMCPNotRunning, plugin)
	}
	cs := mp.proc.mcp.current()
	if cs == nil {
		return "", fmt.Errorf("%w: %s", ErrMCPNotRunning, plugin)
	}
	res, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: name, Arguments: args})
	if err != nil {
		return "", mp.proc.mcp.redact(fmt.Errorf("getting prompt %q of %s: %w", name, plugin, err))
	}
	var parts []string
	for _, msg := range res.Messages {
		if msg == nil || msg.Content == nil {
			continue
		}
		text, _ := renderContent(msg.Content)
		if msg.Role != "" && msg.Role != "user" {
			text = "[" + string(msg.Role) + "] " + text
		}
		parts = append(parts, text)
	}
	return strings.Join(parts, "\n\n"), nil
}

// ErrMCPNotRunning is returned for a prompt of an MCP server that is not
// running (or not an MCP server).
var ErrMCPNotRunning = errors.New("the MCP server is not running")

// ErrMCPNotImplemented is returned by the MCP entry points not built yet.
//
// Deprecated: every entry point is built; kept for callers written
// against the stubs.
var ErrMCPNotImplemented = errors.New("MCP support is not implemented yet")

// listPrompts caches the server's prompts.
func (p *Process) listPrompts(cs *mcp.ClientSession) {
	ctx, cancel := context.WithTimeout(context.Background(), p.opts.HandshakeTimeout)
	defer cancel()
	var list []MCPPrompt
	for pr, err := range cs.Prompts(ctx, nil) {
		if err != nil {
			p.log.Warn("listing the MCP server's prompts", "err", p.mcp.redact(err))
			return
		}
		mp := MCPPrompt{Plugin: p.name, Name: pr.Name, Title: cleanText(pr.Title, 200), Description: cleanText(pr.Description, 2000)}
		for _, a := range pr.Arguments {
			if a != nil {
				mp.Arguments = append(mp.Arguments, MCPPromptArgument{Name: a.Name, Description: cleanText(a.Description, 500), Required: a.Required})
			}
		}
		list = append(list, mp)
	}
	p.mcp.mu.Lock()
	p.mcp.prompts = list
	p.mcp.mu.Unlock()
}
