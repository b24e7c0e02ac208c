package config

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestMCPServersValidation(t *testing.T) {
	long := strings.Repeat("a", MaxMCPNameLen)
	for _, tc := range []struct {
		name, servers string
		err           string // "" means valid; else a part of the error
	}{
		{"stdio", `{"fs": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]}}`, ""},
		{"stdio typed with env and cwd", `{"fs": {"type": "stdio", "command": "./srv", "env": {"API_KEY": "x", "_A1": ""}, "cwd": "/tmp", "timeout": "2m"}}`, ""},
		{"http", `{"remote": {"url": "https://mcp.example.com/mcp", "headers": {"Authorization": "Bearer abc"}}}`, ""},
		{"http typed", `{"remote": {"type": "http", "url": "http://127.0.0.1:3001/mcp"}}`, ""},
		{"sse", `{"old": {"type": "sse", "url": "https://mcp.example.com/sse"}}`, ""},
		{"oauth", `{"gh": {"url": "https://mcp.example.com/mcp", "oauth": {"client_id": "c", "scopes": ["read"]}}}`, ""},
		{"disabled", `{"fs": {"command": "npx", "disabled": true}}`, ""},
		{"longest name", `{"` + long + `": {"command": "x"}}`, ""},
		{"underscore and dash", `{"my_server-2": {"command": "x"}}`, ""},

		{"empty name", `{"": {"command": "x"}}`, "the name is empty"},
		{"name too long", `{"` + long + `b": {"command": "x"}}`, "longer than 32"},
		{"name with a dot", `{"a.b": {"command": "x"}}`, `"a.b" may only have`},
		{"name with a space", `{"a b": {"command": "x"}}`, "may only have"},
		{"name starting with a dash", `{"-a": {"command": "x"}}`, "may only have"},
		{"name with double underscore", `{"a__b": {"command": "x"}}`, "__"},
		{"names differing in case", `{"Fs": {"command": "x"}, "fs": {"command": "y"}}`, "same name"},
		{"nothing to run", `{"fs": {}}`, `"fs": a stdio server needs a "command"`},
		{"stdio without a command", `{"fs": {"type": "stdio", "args": ["a"]}}`, `needs a "command"`},
		{"stdio with a url", `{"fs": {"type": "stdio", "command": "x", "url": "http://h/"}}`, `not a "url"`},
		{"stdio with headers", `{"fs": {"command": "x", "headers": {"A": "b"}}}`, `"headers" are for`},
		{"stdio with oauth", `{"fs": {"command": "x", "oauth": {}}}`, `"oauth" is for`},
		{"http without a url", `{"r": {"type": "http"}}`, `a http server needs a "url"`},
		{"sse without a url", `{"r": {"type": "sse", "command": "x"}}`, `needs a "url"`},
		{"http with a command", `{"r": {"url": "https://h/mcp", "command": "x"}}`, `no "command"`},
		{"http with env", `{"r": {"url": "https://h/mcp", "env": {"A": "b"}}}`, `no "command", "args", "env"`},
		{"not http", `{"r": {"url": "ftp://h/mcp"}}`, "not an http(s) URL"},
		{"no host", `{"r": {"url": "https:///mcp"}}`, "not an http(s) URL"},
		{"unknown type", `{"r": {"type": "websocket", "url": "ws://h/"}}`, `type "websocket"`},
		{"bad env name", `{"fs": {"command": "x", "env": {"1A": "b"}}}`, `env: "1A"`},
		{"env name with =", `{"fs": {"command": "x", "env": {"A=B": "b"}}}`, `env: "A=B"`},
		{"bad header name", `{"r": {"url": "https://h/", "headers": {"Bad Header": "v"}}}`, `headers: "Bad Header"`},
		{"header value with a line break", `{"r": {"url": "https://h/", "headers": {"X-A": "v\r\nX-B: w"}}}`, "line break"},
		{"NUL in args", `{"fs": {"command": "x", "args": ["a\u0000b"]}}`, "NUL"},
		{"unknown field", `{"fs": {"command": "x", "transport": "stdio"}}`, `unknown field "transport"`},
		{"negative timeout", `{"fs": {"command": "x", "timeout": -1}}`, "negative"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := Parse("config.json", []byte(`{"mcpServers": `+tc.servers+`}`))
			switch {
			case tc.err == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.err == "" && len(f.MCPServers) == 0:
				t.Fatal("no servers decoded")
			case tc.err != "" && err == nil:
				t.Fatalf("accepted, want an error with %q", tc.err)
			case tc.err != "" && !strings.Contains(err.Error(), tc.err):
				t.Fatalf("error %q does not say %q", err, tc.err)
			}
		})
	}
}

// The name rule leaves a tool of its own 64-character budget and keeps
// mcp-<name> a single plugin name (no "__" inside it).
func TestCheckMCPName(t *testing.T) {
	for _, bad := range []string{"a__b", "_a", "a/b", "é", strings.Repeat("x", 33)} {
		if err := CheckMCPName(bad); !errors.Is(err, ErrMCPName) {
			t.Errorf("%q: %v, want ErrMCPName", bad, err)
		}
	}
	for _, ok := range []string{"a", "A1", "github", "my-server_2", strings.Repeat("x", 32)} {
		if err := CheckMCPName(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
}

// An error about a server's URL never shows what may be a key in it.
func TestMCPErrorsHideValues(t *testing.T) {
	_, err := Parse("config.json", []byte(`{"mcpServers": {"r": {"url": "ftp://user:hunter2@h/mcp?key=s3cret"}}}`))
	if err == nil || strings.Contains(err.Error(), "hunter2") || strings.Contains(err.Error(), "s3cret") {
		t.Fatalf("error: %v", err)
	}
	_, err = Parse("config.json", []byte(`{"mcpServers": {"r": {"url": "https://h/", "headers": {"X-Key": "s3cret\n"}}}}`))
	if err == nil || strings.Contains(err.Error(), "s3cret") {
		t.Fatalf("error: %v", err)
	}
}

func TestMCPRedactedURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://mcp.example.com/mcp":               "https://mcp.example.com/mcp",
		"https://u:pw@h/mcp?api_key=abc&x=1#frag":   "https://u:***@h/mcp?api_key=***&x=***",
		"https://tok@h/mcp":                         "https://***@h/mcp",
		"http://127.0.0.1:3001/mcp?token=a%20b&t=2": "http://127.0.0.1:3001/mcp?t=***&token=***",
	} {
		if got := (MCPServer{URL: in}).RedactedURL(); got != want {
			t.Errorf("%s: %s, want %s", in, got, want)
		}
	}
}

func TestMCPTransport(t *testing.T) {
	for s, want := range map[*MCPServer]string{
		{Command: "x"}:                  MCPStdio,
		{URL: "https://h/"}:             MCPHTTP,
		{Type: "sse", URL: "https://h"}: MCPSSE,
		{}:                              MCPStdio,
	} {
		if got := s.Transport(); got != want {
			t.Errorf("%+v: %s, want %s", *s, got, want)
		}
	}
}

// Adding and removing MCP servers keeps the rest of the file as it was:
// other fields, sources and other servers, byte for byte in value.
func TestPutAndDeleteMCPServerKeepTheRest(t *testing.T) {
	dir := t.TempDir()
	writeConfig(t, dir, `{
  "system_prompt": "Be terse.",
  "serve": {"listen": "127.0.0.1:9000", "shutdown_grace": "5s"},
  "sources": {"local": {"base_url": "http://127.0.0.1:11434/v1", "api_key": "sk-keep"}},
  "mcpServers": {
    "everything": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything"], "env": {"DEBUG": "1"}}
  }
}`)
	before := readTop(t, dir)
	gh := MCPServer{URL: "https://api.githubcopilot.com/mcp/", Headers: map[string]string{"Authorization": "Bearer ghp_secret"}}
	if err := PutMCPServer(dir, "github", gh, false); err != nil {
		t.Fatal(err)
	}
	after := readTop(t, dir)
	for _, k := range []string{"system_prompt", "serve", "sources"} {
		if !reflect.DeepEqual(before[k], after[k]) {
			t.Errorf("%s: %v became %v", k, before[k], after[k])
		}
	}
	servers := after["mcpServers"].(map[string]any)
	if !reflect.DeepEqual(servers["everything"], before["mcpServers"].(map[string]any)["everything"]) {
		t.Errorf("the other server changed: %v", servers["everything"])
	}
	f, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := f.MCPServers["github"]; !reflect.DeepEqual(got, gh) {
		t.Errorf("read back %+v, want %+v", got, gh)
	}
	if fi, err := os.Stat(filepath.Join(dir, FileName)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("mode: %v %v", fi.Mode(), err)
	}

	// The same name in another case is the same server.
	if err := PutMCPServer(dir, "GitHub", MCPServer{Command: "x"}, false); !errors.Is(err, ErrMCPExists) {
		t.Fatalf("a second github: %v, want ErrMCPExists", err)
	}
	if err := PutMCPServer(dir, "GitHub", MCPServer{Command: "gh-mcp"}, true); err != nil {
		t.Fatalf("forced: %v", err)
	}
	f, _ = Load(dir)
	if _, ok := f.MCPServers["github"]; ok || f.MCPServers["GitHub"].Command != "gh-mcp" || len(f.MCPServers) != 2 {
		t.Fatalf("after the forced replacement: %+v", f.MCPServers)
	}
	if s, name, ok := f.MCPServerNamed("github"); !ok || name != "GitHub" || s.Command != "gh-mcp" {
		t.Fatalf("MCPServerNamed: %+v %q %v", s, name, ok)
	}

	if name, err := DeleteMCPServer(dir, "github"); err != nil || name != "GitHub" {
		t.Fatalf("delete: %q %v", name, err)
	}
	if _, err := DeleteMCPServer(dir, "github"); !errors.Is(err, ErrNoMCPServer) {
		t.Fatalf("delete twice: %v, want ErrNoMCPServer", err)
	}
	if _, err := DeleteMCPServer(dir, "everything"); err != nil {
		t.Fatal(err)
	}
	after = readTop(t, dir)
	if _, ok := after["mcpServers"]; ok {
		t.Errorf("an empty mcpServers was left: %v", after["mcpServers"])
	}
	for _, k := range []string{"system_prompt", "serve", "sources"} {
		if !reflect.DeepEqual(before[k], after[k]) {
			t.Errorf("%s: %v became %v", k, before[k], after[k])
		}
	}
}

// Nothing invalid is written, and a file that does not parse is left
// alone.
func TestPutMCPServerRefuses(t *testing.T) {
	dir := t.TempDir()
	for name, s := range map[string]MCPServer{
		"a.b": {Command: "x"},
		"ok":  {URL: "file:///etc/passwd"},
		"ok2": {},
	} {
		if err := PutMCPServer(dir, name, s, false); err == nil {
			t.Errorf("%q %+v was written", name, s)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, FileName)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a config was written: %v", err)
	}
	writeConfig(t, dir, `{"mcpServers": {"x": {}}}`)
	if err := PutMCPServer(dir, "y", MCPServer{Command: "y"}, false); !errors.Is(err, ErrUnparsable) {
		t.Fatalf("over a broken file: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, FileName)); string(b) != `{"mcpServers": {"x": {}}}` {
		t.Fatalf("the broken file changed: %s", b)
	}
}

func FuzzParseMCPServers(f *testing.F) {
	f.Add([]byte(`{"fs": {"command": "npx", "args": ["-y", "x"], "env": {"K": "v"}, "cwd": "/tmp", "timeout": "1m"}}`))
	f.Add([]byte(`{"r": {"type": "http", "url": "https://h/mcp", "headers": {"Authorization": "Bearer x"}, "oauth": {"client_id": "c"}}}`))
	f.Add([]byte(`{"s": {"type": "sse", "url": "http://u:p@127.0.0.1:1/sse?k=v"}}`))
	f.Add([]byte(`{"A": {"command": "x"}, "a": {"command": "y"}}`))
	f.Fuzz(func(t *testing.T, servers []byte) {
		cfg, err := Parse("config.json", append(append([]byte(`{"mcpServers": `), servers...), '}'))
		if err != nil {
			return
		}
		for name, s := range cfg.MCPServers {
			if err := CheckMCPName(name); err != nil {
				t.Fatalf("accepted name %q: %v", name, err)
			}
			if len("mcp-"+name+"__") > 64-20 {
				t.Fatalf("name %q leaves too little room for tool names", name)
			}
			if err := s.Validate(); err != nil {
				t.Fatalf("accepted server %q: %v", name, err)
			}
			// What was accepted writes and reads back the same.
			b, err := json.Marshal(s)
			if err != nil {
				t.Fatal(err)
			}
			var back MCPServer
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatalf("%s does not read back: %v", b, err)
			}
			if err := back.Validate(); err != nil || back.Transport() != s.Transport() {
				t.Fatalf("%s read back as %+v: %v", b, back, err)
			}
			if u := s.RedactedURL(); strings.ContainsAny(u, "\r\n") {
				t.Fatalf("redacted URL %q", u)
			}
		}
	})
}

func TestParseNamesTheMCPEntryWithAnUnknownField(t *testing.T) {
	_, err := Parse("config.json", []byte(`{"mcpServers": {"good": {"command": "node"}, "handbad": {"command": "node", "bogus": 1}}}`))
	if err == nil || !strings.Contains(err.Error(), `mcpServers.handbad: unknown field "bogus"`) {
		t.Fatalf("err = %v, want it to name mcpServers.handbad", err)
	}
}

// FuzzMCPEntryError: a config.json that does not decode gets an error
// naming the entry, and never one quoting a value of it.
func FuzzMCPEntryError(f *testing.F) {
	f.Add(`{"command": "node", "bogus": 1}`, "secret-value-123")
	f.Add(`{"command": 5, "env": {"K": "%s"}}`, "secret-value-123")
	f.Add(`{"url": "https://h/", "headers": {"A": "%s"}, "timeout": []}`, "secret-value-123")
	f.Fuzz(func(t *testing.T, entry, secret string) {
		if len(secret) < 8 || strings.ContainsAny(secret, "\"\\%") || strings.ContainsFunc(secret, func(r rune) bool { return r < ' ' || r > '~' }) {
			return
		}
		entry = strings.ReplaceAll(entry, "%s", secret)
		if strings.Contains(strings.ReplaceAll(entry, `"`+secret+`"`, ""), secret) {
			return // the secret is not only a string value here
		}
		err := mcpEntryError([]byte(`{"mcpServers": {"x": ` + entry + `}}`))
		if err == nil {
			return
		}
		if !strings.HasPrefix(err.Error(), "mcpServers.x: ") {
			t.Fatalf("error %q does not name the entry", err)
		}
		if strings.Contains(err.Error(), secret) {
			t.Fatalf("error %q quotes a value", err)
		}
	})
}
