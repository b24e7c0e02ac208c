package mcpauth

import (
	"errors"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/internal/config"
	"github.com/hearth-agent/hearth/internal/settings"
	"github.com/hearth-agent/hearth/internal/store/storetest"
)

// A logout of a server that never logged in says so and writes nothing:
// no empty secret for hearth settings to show as the mask, and a remote
// server that never logged in has no setting listed at all.
func TestLogoutWithoutLoginWritesNothing(t *testing.T) {
	svc := settings.New(storetest.Open(t), t.TempDir())
	if h, err := New(svc, nil)("typed", config.MCPServer{URL: "https://mcp.example.com/mcp"}); err != nil || h == nil {
		t.Fatalf("New: %v %v", h, err)
	}
	for _, forget := range []bool{false, true} {
		if err := Logout(svc, "typed", forget); !errors.Is(err, ErrNotLoggedIn) {
			t.Fatalf("Logout(forget=%v) = %v, want ErrNotLoggedIn", forget, err)
		}
	}
	if raw, ok, err := svc.Value(Namespace, Key("typed")); ok || err != nil {
		t.Fatalf("Logout wrote %s (%v)", raw, err)
	}
	if defs := svc.Defs(Namespace, ""); len(defs) != 0 {
		t.Fatalf("settings declared for a server that never logged in: %+v", defs[0])
	}
}

// Credentials are bound to the origin of the url they were given for:
// once the entry's url points elsewhere (a hand edit, mcp add --force),
// the token is not sent there, and the error asks for a new login.
func TestCredentialsStayWithTheirOrigin(t *testing.T) {
	f := newFixture(t)
	if err := f.login(nil); err != nil {
		t.Fatal(err)
	}
	if got, want := f.stored().Resource, Origin(f.cfg.URL); got != want || want == "" {
		t.Fatalf("stored for %q, want %q", got, want)
	}
	if d := f.svc.Defs(Namespace, ""); len(d) != 1 || !strings.Contains(d[0].DisplayName, "MCP server guarded") {
		t.Fatalf("declared: %+v", d)
	}
	// The same test server under another name is another origin: a
	// server that would accept the token, were it sent.
	moved := strings.Replace(f.cfg.URL, "127.0.0.1", "localhost", 1)
	if moved == f.cfg.URL {
		t.Fatalf("the test server's url %s is not on 127.0.0.1", f.cfg.URL)
	}
	f.cfg.URL = moved
	_, err := f.echo(f.handler())
	if !errors.Is(err, ErrAuthorizationNeeded) && (err == nil || !strings.Contains(err.Error(), "the stored login is for")) {
		t.Fatalf("echo at the moved url: %v, want a login needed", err)
	}
	if err == nil || !strings.Contains(err.Error(), "hearth mcp login guarded") {
		t.Fatalf("the error does not say what to do: %v", err)
	}
}
