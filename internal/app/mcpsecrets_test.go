package app

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hearth-agent/hearth/internal/config"
)

// The MCP servers' credentials (env and header values named like one, a
// URL's password) join the secrets the kernel, the log and chat mask, at
// Open and when the servers change live; values under redact.MinSecret
// bytes, and values under other names, do not.
func TestMCPServerValuesAreSecrets(t *testing.T) {
	t.Setenv("HEARTH_TEST_MCP_TOKEN", "expanded-token-value")
	a, dir := openWithConfig(t, `{"mcpServers": {"one": {"command": "one-server", "disabled": true,
		"env": {"API_KEY": "env-secret-value-1", "DEBUG": "short", "NODE_ENV": "production",
			"DATABASE_URL": "postgres://me:db-password-9@db.example/x"}},
		"remote": {"url": "https://mcp.example.com/mcp", "disabled": true,
		"headers": {"Authorization": "Bearer ${HEARTH_TEST_MCP_TOKEN}"}}}}`,
		&Options{Plugins: PluginsStart, WatchInterval: time.Hour})
	s := a.Sources.Secrets()
	for _, v := range []string{"env-secret-value-1", "expanded-token-value", "db-password-9"} {
		if got := s.String("it is " + v); strings.Contains(got, v) {
			t.Errorf("%s not masked: %s", v, got)
		}
	}
	if got := s.String("DEBUG=short"); got != "DEBUG=short" {
		t.Errorf("a short value masked: %s", got)
	}
	if got := s.String("the production build"); got != "the production build" {
		t.Errorf("a value not named like a credential masked: %s", got)
	}
	if err := config.PutMCPServer(dir, "two", config.MCPServer{Command: "two", Env: map[string]string{"SERVICE_TOKEN": "added-later-secret"}, Disabled: true}, false); err != nil {
		t.Fatal(err)
	}
	if err := a.ApplyMCPServers(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := s.String("added-later-secret"); strings.Contains(got, "added-later-secret") {
		t.Errorf("a live change's value not masked: %s", got)
	}
}
