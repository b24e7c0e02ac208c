package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/internal/mcpauth"
	"github.com/hearth-agent/hearth/internal/mcpauth/mcpauthtest"
)

// TestMCPLogin logs in to a local authorization server as a user would:
// the address printed is opened by a browser, the tokens are stored as a
// secret that hearth settings masks, and --logout forgets them.
func TestMCPLogin(t *testing.T) {
	as := mcpauthtest.New(t)
	dir := t.TempDir()
	cfg, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"guarded": map[string]any{"url": as.URL},
		"local":   map[string]any{"command": "true"},
	}})
	if err := os.WriteFile(filepath.Join(dir, "config.json"), cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	pr, pw := io.Pipe()
	var out strings.Builder
	browsed := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		opened := false
		for sc.Scan() {
			line := sc.Text()
			out.WriteString(line + "\n")
			if addr := strings.TrimSpace(line); !opened && strings.Contains(addr, "/authorize?") {
				opened = true
				go func() { browsed <- mcpauthtest.Browser(nil)(ctx, addr) }()
			}
		}
	}()
	var stderr strings.Builder
	code := run(ctx, []string{"mcp", "login", "guarded", "--data-dir", dir, "--no-browser"}, nil, pw, &stderr)
	pw.Close()
	if code != 0 {
		t.Fatalf("login: exit %d: %s\n%s", code, stderr.String(), out.String())
	}
	if err := <-browsed; err != nil {
		t.Fatal(err)
	}

	var settingsOut, settingsErr strings.Builder
	if code := run(ctx, []string{"settings", "get", mcpauth.Namespace, mcpauth.Key("guarded"), "--data-dir", dir}, nil, &settingsOut, &settingsErr); code != 0 {
		t.Fatalf("settings: exit %d: %s", code, settingsErr.String())
	}
	if got := strings.TrimSpace(settingsOut.String()); got != `"******"` && got != "******" {
		t.Fatalf("hearth settings shows %q; want the mask", got)
	}

	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"local"}, 1, "stdio"},
		{[]string{"nosuch"}, 1, "no MCP server"},
		{[]string{}, 2, "Usage"},
		{[]string{"--logout", "guarded"}, 0, "Logged out"},
		{[]string{"--logout", "guarded"}, 0, "guarded was not logged in"},
		// Names are compared without regard to case, as by the other mcp
		// commands; the credentials are kept under config.json's spelling.
		{[]string{"--logout", "GUARDED"}, 0, "guarded was not logged in"},
		{[]string{"--help"}, 0, "reserved namespace"},
	} {
		var o, e strings.Builder
		got := run(ctx, append([]string{"mcp", "login", "--data-dir", dir}, c.args...), nil, &o, &e)
		if got != c.code || !strings.Contains(o.String()+e.String(), c.want) {
			t.Errorf("mcp login %q: exit %d, %q%q; want %d and %q", c.args, got, o.String(), e.String(), c.code, c.want)
		}
	}
}
