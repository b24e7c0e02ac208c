package app

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sync"
	"time"

	"github.com/hearth-agent/hearth/internal/config"
	"github.com/hearth-agent/hearth/internal/mcpauth"
	"github.com/hearth-agent/hearth/internal/pluginhost"
	"github.com/hearth-agent/hearth/internal/redact"
)

// MCP servers are configured in config.json's "mcpServers" and run by the
// plugin manager as the plugins mcp-<name>. The process that runs the
// plugins applies a change to them at once when `hearth mcp add` or
// `remove` runs in it (ApplyMCPServers), and within a watch interval when
// config.json is edited by hand (watchConfig).

// newMCPAuth returns what gives remote MCP servers their OAuth handler:
// tokens kept as a secret setting of Hearth's reserved namespace "mcp" in
// a.Settings, bound to the server's origin, stored
// by `hearth mcp login NAME` and refreshed as they expire.
func newMCPAuth(a *App) pluginhost.MCPAuthFunc {
	return mcpauth.New(a.Settings, &mcpauth.Options{Logger: a.Logger})
}

// configStamp is what tells that config.json changed: its modification
// time and size (zero when it does not exist).
type configStamp struct {
	mod  time.Time
	size int64
}

func statConfig(dir string) configStamp {
	fi, err := os.Stat(filepath.Join(dir, config.FileName))
	if err != nil {
		return configStamp{}
	}
	return configStamp{fi.ModTime(), fi.Size()}
}

// mcpState is the MCP servers last applied, and when config.json was
// read for them.
type mcpState struct {
	mu      sync.Mutex
	stamp   configStamp
	servers map[string]config.MCPServer
	// failed is the config.json that could not be applied, last warned
	// about: it is not read or warned about again until it changes.
	failed configStamp
}

// setMCPServers hands servers to the plugin manager and remembers them.
// Their credentials (env and header values named like one, expanded: see
// pluginhost.MCPSecrets) join the model keys' secrets, which the kernel
// masks in tool results and events, the log in hearth.log and chat in
// what it prints; like the keys, they stay masked after the server is
// removed.
func (a *App) setMCPServers(servers map[string]config.MCPServer) {
	for _, cfg := range servers {
		a.Sources.Secrets().Add(pluginhost.MCPSecrets(cfg, redact.MinSecret)...)
	}
	a.mcp.servers = maps.Clone(servers)
	a.Plugins.SetMCPServers(servers)
}

// MCPServers returns the MCP servers this process applied last, from
// config.json when it opened or changed since, by name.
func (a *App) MCPServers() map[string]config.MCPServer {
	a.mcp.mu.Lock()
	defer a.mcp.mu.Unlock()
	return maps.Clone(a.mcp.servers)
}

// ApplyMCPServers re-reads config.json's "mcpServers" and makes the
// running MCP servers match: new ones start, removed ones stop, changed
// ones restart; when they are as last applied, nothing is done. It is for
// the process that runs the plugins (the daemon,
// after `hearth mcp add` or `remove`); elsewhere it only reads the file.
// A config.json that does not load is an error, and nothing changes.
func (a *App) ApplyMCPServers(ctx context.Context) error {
	a.mcp.mu.Lock()
	defer a.mcp.mu.Unlock()
	return a.applyMCPServersLocked(ctx)
}

func (a *App) applyMCPServersLocked(ctx context.Context) error {
	stamp := statConfig(a.DataDir)
	cfg, err := config.Load(a.DataDir)
	if err != nil {
		return fmt.Errorf("MCP servers not changed: %w", err)
	}
	a.mcp.stamp = stamp
	a.applyMoney(cfg)
	if reflect.DeepEqual(cfg.MCPServers, a.mcp.servers) ||
		(len(cfg.MCPServers) == 0 && len(a.mcp.servers) == 0) {
		return nil // another part of config.json changed
	}
	a.setMCPServers(cfg.MCPServers)
	a.Logger.Info("applied config.json's MCP servers", "servers", slices.Sorted(maps.Keys(cfg.MCPServers)))
	if a.lock == nil {
		return nil
	}
	return a.Plugins.Scan(ctx)
}

// watchConfig applies config.json's MCP servers, budgets and fallback
// chain again whenever the file changes, until ctx ends: a hand edit
// applies as `hearth mcp add` does.
func (a *App) watchConfig(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		a.recheckConfig(ctx)
	}
}

// recheckConfig is one look of watchConfig: a changed config.json is
// applied; one that cannot be is warned about once, and not read again
// until it changes. It reports whether it warned.
func (a *App) recheckConfig(ctx context.Context) (warned bool) {
	a.mcp.mu.Lock()
	defer a.mcp.mu.Unlock()
	now := statConfig(a.DataDir)
	if now == a.mcp.stamp || now == a.mcp.failed {
		return false
	}
	if err := a.applyMCPServersLocked(ctx); err != nil && ctx.Err() == nil {
		a.mcp.failed = now
		a.Logger.Warn("config.json changed but its MCP servers could not be applied", "err", err)
		return true
	}
	return false
}
