package main

import (
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/internal/config"
)

// Secrets in a stdio server's arguments that no env value holds (a DSN's
// password, a --token flag's value) are masked where the server is shown.
func TestDescribeServerMasksSecretArgs(t *testing.T) {
	got := describeServer(config.MCPServer{Command: "npx", Args: []string{"-y", "server-postgres", "postgres://u:dsn-pw@h/db", "--token", "tok123"}})
	if strings.Contains(got, "dsn-pw") || strings.Contains(got, "tok123") || !strings.Contains(got, "postgres://u:***@h/db --token ***") {
		t.Fatalf("%q", got)
	}
}
