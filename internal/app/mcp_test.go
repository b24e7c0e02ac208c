package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hearth-agent/hearth/internal/config"
)

func openWithConfig(t *testing.T, text string, o *Options) (*App, string) {
	t.Helper()
	dir := t.TempDir()
	if text != "" {
		if err := os.WriteFile(filepath.Join(dir, config.FileName), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	o.DataDir, o.Getenv = dir, func(string) string { return "" }
	a, err := Open(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	return a, dir
}

// The MCP servers of config.json reach the plugin manager at Open, and
// again when ApplyMCPServers reads the changed file; a file that does not
// load changes nothing.
func TestApplyMCPServers(t *testing.T) {
	ctx := context.Background()
	a, dir := openWithConfig(t, `{"mcpServers": {"one": {"command": "one-server", "disabled": true}}}`,
		&Options{Plugins: PluginsStart, WatchInterval: time.Hour})
	if got := a.MCPServers(); len(got) != 1 || got["one"].Command != "one-server" {
		t.Fatalf("at Open: %+v", got)
	}
	if err := config.PutMCPServer(dir, "two", config.MCPServer{URL: "https://mcp.example.com/mcp", Disabled: true}, false); err != nil {
		t.Fatal(err)
	}
	if err := a.ApplyMCPServers(ctx); err != nil {
		t.Fatal(err)
	}
	if got := a.MCPServers(); len(got) != 2 || got["two"].URL != "https://mcp.example.com/mcp" {
		t.Fatalf("after add: %+v", got)
	}
	if err := os.WriteFile(filepath.Join(dir, config.FileName), []byte(`{"mcpServers": {"bad name": {}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := a.ApplyMCPServers(ctx); err == nil || !strings.Contains(err.Error(), "bad name") {
		t.Fatalf("a broken config: %v", err)
	}
	if got := a.MCPServers(); len(got) != 2 {
		t.Fatalf("a broken config changed the servers: %+v", got)
	}
}

// A hand edit of config.json applies without a command: the watcher sees
// the file change.
func TestHandEditedMCPServersApply(t *testing.T) {
	a, dir := openWithConfig(t, "", &Options{Plugins: PluginsStart, WatchInterval: time.Millisecond})
	if got := a.MCPServers(); len(got) != 0 {
		t.Fatalf("at Open: %+v", got)
	}
	edit := `{"mcpServers": {"fs": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"], "disabled": true}}}`
	if err := os.WriteFile(filepath.Join(dir, config.FileName), []byte(edit), 0o600); err != nil {
		t.Fatal(err)
	}
	for a.MCPServers()["fs"].Command != "npx" {
		time.Sleep(time.Millisecond) // polling the watcher's result, not synchronising with it
	}
}

// A config.json that stays broken is warned about once per change, not
// at every look of the watcher.
func TestBrokenConfigWarnsOncePerChange(t *testing.T) {
	ctx := context.Background()
	a, dir := openWithConfig(t, "", &Options{Plugins: PluginsStart, WatchInterval: time.Hour})
	write := func(text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, config.FileName), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(`{"mcpServers": {"handbad": {"command": "node", "bogus": 1}}}`)
	if !a.recheckConfig(ctx) {
		t.Fatal("a broken config.json was not warned about")
	}
	if a.recheckConfig(ctx) || a.recheckConfig(ctx) {
		t.Fatal("the same broken config.json was warned about again")
	}
	write(`{"mcpServers": {"handbad": {"command": "node", "bogus": 12}}}`) // another size: another stamp
	if !a.recheckConfig(ctx) {
		t.Fatal("a changed, still broken config.json was not warned about")
	}
	write(`{"mcpServers": {"fixed": {"command": "node", "disabled": true}}}`)
	if a.recheckConfig(ctx) || a.MCPServers()["fixed"].Command != "node" {
		t.Fatalf("the fixed config.json was not applied: %+v", a.MCPServers())
	}
}

// Budgets and the fallback chain edited in config.json apply while the
// daemon runs: a raised budget lets calls through without a restart, as
// the refusal's advice ("raise budgets.day in config.json") promises.
func TestHandEditedBudgetsAndFallbackApply(t *testing.T) {
	ctx := context.Background()
	sources := `"sources": {"a": {"base_url": "http://127.0.0.1:1/v1", "model": "m"}, "b": {"base_url": "http://127.0.0.1:2/v1", "model": "m"}}, "source": "a"`
	a, dir := openWithConfig(t, `{`+sources+`, "budgets": {"day": {"tokens": 1000}}}`,
		&Options{Plugins: PluginsStart, WatchInterval: time.Hour})
	if b := a.Kernel.Budgets(); b == nil || b.Day.Tokens != 1000 || len(a.Sources.Fallback()) != 0 {
		t.Fatalf("at Open: %+v, fallback %v", b, a.Sources.Fallback())
	}
	edit := `{` + sources + `, "fallback": ["b"], "budgets": {"day": {"tokens": 500000}, "session": {"tokens": 9000}}}`
	if err := os.WriteFile(filepath.Join(dir, config.FileName), []byte(edit), 0o600); err != nil {
		t.Fatal(err)
	}
	if a.recheckConfig(ctx) {
		t.Fatal("the edit was warned about")
	}
	if b := a.Kernel.Budgets(); b == nil || b.Day.Tokens != 500000 || b.Session == nil || b.Session.Tokens != 9000 {
		t.Fatalf("budgets after the edit: %+v", b)
	}
	if fb := a.Sources.Fallback(); len(fb) != 1 || fb[0] != "b" {
		t.Fatalf("fallback after the edit: %v", fb)
	}
	if err := os.WriteFile(filepath.Join(dir, config.FileName), []byte(`{`+sources+`}`), 0o600); err != nil {
		t.Fatal(err)
	}
	a.recheckConfig(ctx)
	if a.Kernel.Budgets() != nil || len(a.Sources.Fallback()) != 0 {
		t.Fatalf("after removing them: %+v, %v", a.Kernel.Budgets(), a.Sources.Fallback())
	}
}
