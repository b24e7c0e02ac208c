package main

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/internal/config"
	"github.com/hearth-agent/hearth/internal/pluginhost"
)

// Only --data-dir and -v before "--" are Hearth's; the rest, the server's
// own command line above all, is left to the subcommand.
func TestParseMCP(t *testing.T) {
	f, rest, err := parseMCP(&flags{}, []string{"add", "--data-dir", "/d", "fs", "-v", "--env", "A=b", "--", "srv", "--data-dir", "x", "-v"}, &bytes.Buffer{})
	if err != nil || f.dataDir != "/d" || !f.verbose {
		t.Fatalf("flags %+v, %v", f, err)
	}
	if want := []string{"add", "fs", "--env", "A=b", "--", "srv", "--data-dir", "x", "-v"}; !slices.Equal(rest, want) {
		t.Fatalf("rest %q, want %q", rest, want)
	}
	if f, _, _ := parseMCP(&flags{}, []string{"list", "--data-dir=/e", "--json"}, &bytes.Buffer{}); f.dataDir != "/e" {
		t.Fatalf("--data-dir=: %+v", f)
	}
	if _, _, err := parseMCP(&flags{}, []string{"list", "--data-dir"}, &bytes.Buffer{}); err == nil {
		t.Fatal("--data-dir without a folder was accepted")
	}
}

// What is printed about a server names its env and headers but shows no
// value of them, even where one turns up in an argument.
func TestDescribeServerHidesValues(t *testing.T) {
	const key = "0123456789abcdef-key"
	got := describeServer(config.MCPServer{Command: "srv", Args: []string{"--key", key, "--token=" + key}, Env: map[string]string{"KEY": key}})
	if strings.Contains(got, key) || !strings.Contains(got, "stdio srv --key ") || !strings.Contains(got, "env KEY (values stored, not shown)") {
		t.Fatalf("stdio: %q", got)
	}
	got = describeServer(config.MCPServer{URL: "https://h/mcp?k=" + key, Headers: map[string]string{"Authorization": "Bearer " + key}, Disabled: true})
	if strings.Contains(got, key) || got != "http https://h/mcp?k=***; headers Authorization (values stored, not shown); disabled in config.json" {
		t.Fatalf("http: %q", got)
	}
}

// An MCP server, which has no folder, says where it is configured in
// hearth plugin.
func TestPluginWhere(t *testing.T) {
	for _, c := range []struct {
		info pluginhost.Info
		want string
	}{
		{pluginhost.Info{ID: "weather", Dir: "/p/weather"}, "/p/weather"},
		{pluginhost.Info{ID: "mcp-fs"}, "config.json mcpServers (hearth mcp list)"},
		{pluginhost.Info{ID: "odd"}, "-"},
	} {
		if got := pluginWhere(c.info); got != c.want {
			t.Errorf("%+v: %q, want %q", c.info, got, c.want)
		}
	}
}

// A README's whole {"mcpServers": {...}} gives the entry named, or its
// only one; NAME may be left out when it has only one.
func TestPickMCPEntry(t *testing.T) {
	for _, c := range []struct{ text, name, wantName, want, wantErr string }{
		{`{"mcpServers": {"github": {"command": "gh"}}}`, "gh", "gh", `{"command": "gh"}`, ""},
		{`{"mcpServers": {"github": {"command": "gh"}}}`, "", "github", `{"command": "gh"}`, ""},
		{`{"mcpServers": {"a": {"command": "a"}, "B": {"command": "b"}}}`, "b", "b", `{"command": "b"}`, ""},
		{`{"mcpServers": {"a": {"command": "a"}, "b": {"command": "b"}}}`, "only2", "", "", `no entry "only2" (it has a, b)`},
		{`{"mcpServers": {"a": {"command": "a"}, "b": {"command": "b"}}}`, "", "", "", `it has 2 entries (a, b): give the NAME of one`},
		{`{"mcpServers": {}}`, "x", "", "", `"mcpServers" has no entry`},
		{`{"command": "x"}`, "x", "x", `{"command": "x"}`, ""},
		{`{"command": "x"}`, "", "", "", "give the server a NAME"},
	} {
		name, got, err := pickMCPEntry(c.text, c.name)
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("%s %q: err %v, want %q", c.text, c.name, err, c.wantErr)
			}
			continue
		}
		if err != nil || name != c.wantName || got != c.want {
			t.Errorf("%s %q: %q %s %v, want %q %s", c.text, c.name, name, got, err, c.wantName, c.want)
		}
	}
}

// FuzzPickMCPEntry: whatever is pasted, an entry is picked or an error
// said, and a picked one is part of the text.
func FuzzPickMCPEntry(f *testing.F) {
	f.Add(`{"mcpServers": {"a": {"command": "a"}, "b": {"command": "b"}}}`, "b")
	f.Add(`{"command": "x"}`, "")
	f.Fuzz(func(t *testing.T, text, name string) {
		got, entry, err := pickMCPEntry(text, name)
		if err == nil && (got == "" || !strings.Contains(text, entry)) {
			t.Fatalf("picked %q %q from %q", got, entry, text)
		}
	})
}

func TestDecodeMCPServer(t *testing.T) {
	if s, err := decodeMCPServer(` {"command": "npx", "args": ["-y", "x"]} `); err != nil || s.Command != "npx" {
		t.Fatalf("%+v %v", s, err)
	}
	for _, bad := range []string{`{"command": "x"} {}`, `{"command": "x"`, `[]`, `{"command": "x", "autoApprove": []}`, ``} {
		if _, err := decodeMCPServer(bad); err == nil {
			t.Errorf("%q was accepted", bad)
		}
	}
}

// FuzzDecodeMCPServer: what `hearth mcp add-json` accepts writes back as
// the same entry, and no error quotes a string value of the input (but a
// timeout's).
func FuzzDecodeMCPServer(f *testing.F) {
	f.Add(`{"command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything"], "env": {"K": "secret-value-123"}}`)
	f.Add(`{"type": "http", "url": "https://h/mcp", "headers": {"Authorization": "Bearer secret-value-123"}, "timeout": 30}`)
	f.Add(`{"url": 5}`)
	f.Add(`{"timeout": "not-a-duration"}`)
	f.Add(`{"command": "x"} trailing`)
	f.Fuzz(func(t *testing.T, text string) {
		s, err := decodeMCPServer(text)
		if err != nil {
			var v map[string]any
			if json.Unmarshal([]byte(text), &v) == nil {
				for k, val := range v {
					if k == "timeout" {
						continue // the duration's own error shows it: not a secret
					}
					if str, ok := val.(string); ok && len(str) >= 8 && strings.Contains(err.Error(), str) {
						t.Fatalf("the error %q quotes a value", err)
					}
				}
			}
			return
		}
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		back, err := decodeMCPServer(string(b))
		if err != nil {
			t.Fatalf("%s does not read back: %v", b, err)
		}
		if (back.Validate() == nil) != (s.Validate() == nil) {
			t.Fatalf("%s validates differently once written", b)
		}
	})
}
