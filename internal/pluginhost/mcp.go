package pluginhost

import (
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
