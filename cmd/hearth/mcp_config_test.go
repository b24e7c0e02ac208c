//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/internal/config"
)

// Secrets given on the command line in these tests; none may be printed.
const (
	mcpEnvSecret    = "env-s3cret-0123456789"
	mcpHeaderSecret = "hdr-s3cret-0123456789"
)

func loadConfig(t *testing.T, home string) *config.File {
	t.Helper()
	f, err := config.Load(home)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func noSecrets(t *testing.T, what string, texts ...string) {
	t.Helper()
	for _, s := range texts {
		if strings.Contains(s, mcpEnvSecret) || strings.Contains(s, mcpHeaderSecret) || strings.Contains(s, "pw-in-url") {
			t.Fatalf("%s printed a secret:\n%s", what, s)
		}
	}
}

// hearth mcp add, add-json, list and remove, with no Hearth running: the
// servers are written into config.json, a relative command is taken from
// the user's folder, and values given for env and headers are stored but
// never printed.
func TestMCPConfigCommands(t *testing.T) {
	home := t.TempDir()
	env := []string{"HEARTH_HOME=" + home}
	work := t.TempDir()
	os.WriteFile(filepath.Join(home, config.FileName), []byte(`{"system_prompt": "Be terse."}`), 0o600)

	out, errOut, code := hearthIn(t, work, env, "", "mcp", "add", "local", "--env", "API_KEY="+mcpEnvSecret,
		"--timeout", "90s", "--cwd", "data", "--", "./bin/server", "-y", "--port", "1")
	if code != 0 || !strings.Contains(out, "Added MCP server local (plugin mcp-local): stdio "+filepath.Join(work, "bin/server")+" -y --port 1; env API_KEY") {
		t.Fatalf("add stdio: %d %q %q", code, out, errOut)
	}
	noSecrets(t, "add", out, errOut)
	if !strings.Contains(out, "Note: "+filepath.Join(work, "bin/server")+" is not found here") {
		t.Fatalf("add of a missing program says nothing: %q", out)
	}
	s := loadConfig(t, home).MCPServers["local"]
	if s.Command != filepath.Join(work, "bin/server") || strings.Join(s.Args, " ") != "-y --port 1" ||
		s.Env["API_KEY"] != mcpEnvSecret || s.Cwd != filepath.Join(work, "data") || s.Timeout != config.Duration(90e9) {
		t.Fatalf("stored: %+v", s)
	}
	if loadConfig(t, home).SystemPrompt != "Be terse." {
		t.Fatal("the rest of config.json was lost")
	}

	// A bare command is looked up on PATH when the server starts, and
	// flags after NAME without "--" are Hearth's.
	if out, errOut, code := hearth(t, env, "", "mcp", "add", "everything", "npx", "@modelcontextprotocol/server-everything"); code != 0 {
		t.Fatalf("add without --: %d %q %q", code, out, errOut)
	}
	if s := loadConfig(t, home).MCPServers["everything"]; s.Command != "npx" || len(s.Args) != 1 {
		t.Fatalf("stored: %+v", s)
	}

	out, errOut, code = hearth(t, env, "", "mcp", "add", "remote", "--url", "https://u:pw-in-url@mcp.example.com/mcp",
		"--header", "Authorization: Bearer "+mcpHeaderSecret, "--header", "X-Team:  blue ")
	if code != 0 || !strings.Contains(out, "http https://u:***@mcp.example.com/mcp; headers Authorization, X-Team (values stored, not shown)") {
		t.Fatalf("add http: %d %q %q", code, out, errOut)
	}
	noSecrets(t, "add", out, errOut)
	if s := loadConfig(t, home).MCPServers["remote"]; s.Headers["Authorization"] != "Bearer "+mcpHeaderSecret || s.Headers["X-Team"] != "blue" {
		t.Fatalf("stored headers: %+v", s.Headers)
	}

	out, errOut, code = hearth(t, env, "", "mcp", "add-json", "time", `{"command": "uvx", "args": ["mcp-server-time"], "env": {"TZ_KEY": "`+mcpEnvSecret+`"}}`)
	if code != 0 || !strings.Contains(out, "Added MCP server time (plugin mcp-time): stdio uvx mcp-server-time; env TZ_KEY") {
		t.Fatalf("add-json: %d %q %q", code, out, errOut)
	}
	noSecrets(t, "add-json", out, errOut)

	out, errOut, code = hearth(t, env, "", "mcp", "list")
	if code != 0 {
		t.Fatalf("list: %d %q", code, errOut)
	}
	noSecrets(t, "list", out, errOut)
	for _, want := range []string{"everything  stdio  npx @modelcontextprotocol/server-everything", "remote      http   https://u:***@mcp.example.com/mcp", "unknown here", "no Hearth runs these servers now"} {
		if !strings.Contains(out, want) {
			t.Fatalf("list lacks %q:\n%s", want, out)
		}
	}
	// hearth plugin: an MCP server uses no Hearth services.
	out, errOut, code = hearth(t, env, "", "plugin")
	if l := lineWith(out, "mcp-everything"); code != 0 || !strings.Contains(l, "  -  ") || strings.Contains(l, "core") {
		t.Fatalf("plugin: %d %q\n%s", code, errOut, out)
	}
	out, _, code = hearth(t, env, "", "mcp", "list", "--json")
	noSecrets(t, "list --json", out)
	var listed []mcpListed
	if err := json.Unmarshal([]byte(out), &listed); err != nil || code != 0 || len(listed) != 4 {
		t.Fatalf("list --json: %d %v\n%s", code, err, out)
	}
	if l := listed[1]; l.Name != "local" || l.Plugin != "mcp-local" || l.Env[0] != "API_KEY" || l.Timeout != "1m30s" || !l.Enabled {
		t.Fatalf("list --json local: %+v", l)
	}

	// The same name, in any case, is refused unless forced.
	out, errOut, code = hearth(t, env, "", "mcp", "add", "Remote", "--url", "https://other.example.com/mcp")
	if code == 0 || !strings.Contains(errOut, "--force") {
		t.Fatalf("add over an existing name: %d %q %q", code, out, errOut)
	}
	if out, errOut, code := hearth(t, env, "", "mcp", "add", "Remote", "--force", "--url", "https://other.example.com/mcp"); code != 0 {
		t.Fatalf("add --force: %d %q %q", code, out, errOut)
	}
	if s := loadConfig(t, home).MCPServers; s["Remote"].URL != "https://other.example.com/mcp" || len(s) != 4 {
		t.Fatalf("after --force: %+v", s)
	}

	if out, errOut, code := hearth(t, env, "", "mcp", "disable", "time"); code != 0 || !strings.Contains(out, "mcp-time: disabled") {
		t.Fatalf("disable: %d %q %q", code, out, errOut)
	}
	out, _, _ = hearth(t, env, "", "mcp", "list")
	if !strings.Contains(lineWith(out, "time"), "disabled") {
		t.Fatalf("list after disable:\n%s", out)
	}
	if out, errOut, code := hearth(t, env, "", "mcp", "enable", "time"); code != 0 || !strings.Contains(out, "mcp-time: enabled") {
		t.Fatalf("enable: %d %q %q", code, out, errOut)
	}

	out, errOut, code = hearth(t, env, "", "mcp", "remove", "REMOTE")
	if code != 0 || !strings.Contains(out, "Removed MCP server Remote (plugin mcp-Remote)") {
		t.Fatalf("remove: %d %q %q", code, out, errOut)
	}
	if _, errOut, code := hearth(t, env, "", "mcp", "remove", "remote"); code == 0 || !strings.Contains(errOut, "no MCP server") {
		t.Fatalf("remove twice: %d %q", code, errOut)
	}
	if b, _ := os.ReadFile(filepath.Join(home, "hearth.log")); bytes.Contains(b, []byte(mcpEnvSecret)) || bytes.Contains(b, []byte(mcpHeaderSecret)) {
		t.Fatal("a secret is in hearth.log")
	}
}

// Mistakes are explained, and nothing is written for them.
func TestMCPAddRefuses(t *testing.T) {
	home := t.TempDir()
	env := []string{"HEARTH_HOME=" + home}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"mcp", "add"}, "give the server a name"},
		{[]string{"mcp", "add", "fs"}, "give the server's command"},
		{[]string{"mcp", "add", "a.b", "--", "x"}, `"a.b" may only have`},
		{[]string{"mcp", "add", "fs", "--url", "ftp://h/"}, "not an http(s) URL"},
		{[]string{"mcp", "add", "fs", "--url", "https://h/", "--", "x"}, "not both"},
		{[]string{"mcp", "add", "fs", "--header", "Authorization: Bearer " + mcpHeaderSecret, "--", "x"}, "for a remote server"},
		{[]string{"mcp", "add", "fs", "--env", mcpEnvSecret, "--", "x"}, "NAME=VALUE"},
		{[]string{"mcp", "add", "fs", "--url", "https://h/", "--header", mcpHeaderSecret}, `"Name: value"`},
		{[]string{"mcp", "add", "fs", "--timeout", mcpEnvSecret, "--", "x"}, "invalid value for flag -timeout"},
		{[]string{"mcp", "add", "fs", "-y", "npx"}, `after "--"`},
		{[]string{"mcp", "add", "a.b", "--", "x"}, "名称无效"},
		{[]string{"mcp", "add", "fs", "--url", "ftp://h/"}, "URL 必须是"},
		{[]string{"mcp", "remove", "nope"}, "配置中没有名为"},
		{[]string{"mcp", "add-json", "only2", `{"mcpServers": {"a": {"command": "a"}, "b": {"command": "b"}}}`}, `no entry "only2" (it has a, b)`},
		{[]string{"mcp", "add-json", "fs", `{"command": "x", "api_key": "` + mcpEnvSecret + `"}`}, `unknown field "api_key"`},
		{[]string{"mcp", "add-json", "fs", `{"command": 5}`}, `"command" should be string`},
		{[]string{"mcp", "add-json", "fs", `{"command": "` + mcpEnvSecret}, "not a server entry"},
		{[]string{"mcp", "frobnicate"}, "unknown subcommand"},
		{[]string{"mcp", "enable", "nope"}, "no MCP server"},
	} {
		out, errOut, code := hearth(t, env, "", c.args...)
		if code == 0 || !strings.Contains(errOut, c.want) {
			t.Errorf("%q: %d %q %q, want an error with %q", c.args, code, out, errOut, c.want)
		}
		noSecrets(t, strings.Join(c.args[:2], " "), out, errOut)
	}
	if _, errOut, _ := hearth(t, env, "", "mcp", "add", "fs", "--timeout", "abc", "--", "x"); strings.Contains(errOut, `after "--"`) {
		t.Errorf("a bad --timeout was told to go after \"--\": %q", errOut)
	}
	if _, err := os.Stat(filepath.Join(home, config.FileName)); !os.IsNotExist(err) {
		t.Fatalf("config.json was written: %v", err)
	}
	for _, args := range [][]string{{"mcp", "-h"}, {"mcp", "add", "-h"}, {"mcp", "add-json", "-h"}} {
		out, errOut, code := hearth(t, env, "", args...)
		if code != 0 || !strings.Contains(out, "Example") {
			t.Errorf("%q: %d %q %q", args, code, out, errOut)
		}
	}
	// Every subcommand's --help is its usage with what it does, not a
	// server's name.
	for _, sub := range []string{"list", "remove", "enable", "disable", "reload", "serve", "login"} {
		out, errOut, code := hearth(t, env, "", "mcp", sub, "--help")
		if code != 0 || !strings.Contains(strings.ToLower(out), "usage") || errOut != "" {
			t.Errorf("mcp %s --help: %d %q %q", sub, code, out, errOut)
		}
	}
	if _, err := os.Stat(filepath.Join(home, config.FileName)); !os.IsNotExist(err) {
		t.Fatalf("a --help wrote config.json: %v", err)
	}
}

// While hearth serve runs, hearth mcp runs in it: the change is applied
// there at once, a relative command is the user's, and the values given
// are not in the daemon's log or stderr.
func TestMCPCommandsRunInTheDaemon(t *testing.T) {
	home := t.TempDir()
	s := startServe(t, home, nil)
	env := []string{"HEARTH_HOME=" + home}
	work := t.TempDir()

	out, errOut, code := hearthIn(t, work, env, "", "mcp", "add", "local", "--env", "API_KEY="+mcpEnvSecret, "--", "./server")
	if code != 0 || !strings.Contains(out, "Added MCP server local") || strings.Contains(out, "within seconds") {
		t.Fatalf("add in the daemon: %d %q %q", code, out, errOut)
	}
	if c := loadConfig(t, home).MCPServers["local"]; c.Command != filepath.Join(work, "server") {
		t.Fatalf("stored: %+v", c)
	}
	out, errOut, code = hearth(t, env, "", "mcp", "add", "remote", "--url", "https://mcp.example.com/mcp", "--header", "Authorization: Bearer "+mcpHeaderSecret)
	if code != 0 {
		t.Fatalf("add http in the daemon: %d %q %q", code, out, errOut)
	}
	out, errOut, code = hearth(t, env, "", "mcp", "list")
	if code != 0 || strings.Contains(out, "unknown here") || strings.Contains(out, "hearth serve runs") || !strings.Contains(out, "remote") {
		t.Fatalf("list in the daemon: %d %q %q", code, out, errOut)
	}
	if out, errOut, code := hearth(t, env, "", "mcp", "remove", "local"); code != 0 {
		t.Fatalf("remove in the daemon: %d %q %q", code, out, errOut)
	}
	if _, ok := loadConfig(t, home).MCPServers["local"]; ok {
		t.Fatal("local is still configured")
	}
	if b, _ := os.ReadFile(filepath.Join(home, "hearth.log")); bytes.Contains(b, []byte(mcpEnvSecret)) || bytes.Contains(b, []byte(mcpHeaderSecret)) {
		t.Fatal("a secret is in hearth.log")
	}
	noSecrets(t, "the daemon's stderr", s.stderr.String())
}
