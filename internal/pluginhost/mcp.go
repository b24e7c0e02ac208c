package pluginhost

import (
	"context"
	"errors"
	"maps"

	"github.com/hearth-agent/hearth/internal/config"
	"github.com/modelcontextprotocol/go-sdk/auth"
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
// name.
//
// Not implemented yet: it returns none.
func (m *Manager) MCPPrompts() []MCPPrompt { return nil }

// GetMCPPrompt asks plugin's server for its prompt name with args and
// returns the text to send as the user's message.
//
// Not implemented yet: it returns ErrMCPNotImplemented.
func (m *Manager) GetMCPPrompt(ctx context.Context, plugin, name string, args map[string]string) (string, error) {
	return "", ErrMCPNotImplemented
}

// ErrMCPNotImplemented is returned by the MCP entry points not built yet.
var ErrMCPNotImplemented = errors.New("MCP support is not implemented yet")
