package pluginhost

import (
	"encoding/json"
	"errors"
	"sort"

	"github.com/hearth-agent/hearth/internal/config"
	"github.com/hearth-agent/hearth/internal/store"
)

// mcpBadKey is the key of an MCP server's error in Manager.bad, which is
// otherwise keyed by folder.
func mcpBadKey(server string) string { return "mcp:" + server }

// mcpPrint is the fingerprint of a server's configuration: a change
// restarts it.
func mcpPrint(cfg config.MCPServer) string {
	b, _ := json.Marshal(cfg)
	return string(b)
}

// scanMCP starts, stops and restarts the MCP servers to match the map
// SetMCPServers stored: a server disabled in config.json or by its plugin
// state (hearth plugin disable mcp-<name>) is stopped, a changed entry or
// a reload request restarts it. m.mu is not held.
func (m *Manager) scanMCP(states map[string]store.PluginState) error {
	m.mu.Lock()
	want := map[string]config.MCPServer{} // by plugin name
	servers := map[string]string{}        // plugin name -> server
	for server, cfg := range m.mcp {
		id := MCPPluginName(server)
		if st, ok := states[id]; cfg.Disabled || ok && !st.Enabled {
			delete(m.bad, mcpBadKey(server))
			continue
		}
		want[id], servers[id] = cfg, server
	}
	var stop []*managed
	for name, mp := range m.procs {
		if !mp.mcp {
			continue
		}
		cfg, ok := want[name]
		if !ok || mcpPrint(cfg) != mp.print || states[mp.id].ReloadAt.After(mp.reloadAt) {
			stop = append(stop, mp)
			delete(m.procs, name)
		}
	}
	m.mu.Unlock()
	stopAll(stop, func(mp *managed) { mp.proc.Stop() })
	m.mu.Lock()
	defer m.mu.Unlock()
	var errs []error
	ids := make([]string, 0, len(want))
	for id := range want {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		if _, running := m.procs[id]; running {
			continue
		}
		server, cfg := servers[id], want[id]
		p, err := StartMCP(server, cfg, &m.opts)
		if err != nil {
			if prev := m.bad[mcpBadKey(server)]; prev != err.Error() {
				errs = append(errs, err)
			}
			m.bad[mcpBadKey(server)] = err.Error()
			continue
		}
		delete(m.bad, mcpBadKey(server))
		m.procs[id] = &managed{proc: p, mcp: true, id: id, print: mcpPrint(cfg), reloadAt: states[id].ReloadAt}
	}
	return errors.Join(errs...)
}

// listMCP describes the configured MCP servers; m.mu is held.
func (m *Manager) listMCP(states map[string]store.PluginState) []Info {
	out := make([]Info, 0, len(m.mcp))
	for server, cfg := range m.mcp {
		id := MCPPluginName(server)
		info := Info{ID: id, Kind: "mcp", Runs: mcpRuns(cfg), Enabled: !cfg.Disabled, Error: m.bad[mcpBadKey(server)]}
		if st, ok := states[id]; ok && !st.Enabled {
			info.Enabled = false
		}
		if cfg.Disabled {
			info.Error = ""
		}
		if mp, ok := m.procs[id]; ok && mp.mcp {
			st := mp.proc.Status()
			info.Status = &st
		}
		out = append(out, info)
	}
	return out
}
