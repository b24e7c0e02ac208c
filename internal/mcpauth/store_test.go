package mcpauth

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/internal/names"
	"github.com/hearth-agent/hearth/internal/settings"
	"github.com/hearth-agent/hearth/internal/store/storetest"
)

// The credentials live in a namespace no plugin owns. (The security
// review's finding: they were secrets of the plugin mcp-NAME, so a folder
// plugin that took the id mcp-github read github's tokens in the clear.)
func TestCredentialsNoPluginReads(t *testing.T) {
	if !names.IsReserved(Namespace) || Namespace == settings.Core {
		t.Fatalf("Namespace %q must be reserved for Hearth and not core (every plugin reads core settings)", Namespace)
	}
	st := storetest.Open(t)
	svc := settings.New(st, t.TempDir())
	const access, refresh = "ACCESS-SECRET-123", "REFRESH-SECRET-456"
	if _, err := save(svc, "github", &credentials{Client: client{ID: "c", TokenURL: "https://as/token"},
		Token: &token{AccessToken: access, RefreshToken: refresh}}); err != nil {
		t.Fatal(err)
	}
	leaks := func(what string, v any) {
		t.Helper()
		b, _ := json.Marshal(v)
		if strings.Contains(string(b), access) || strings.Contains(string(b), refresh) {
			t.Errorf("%s shows a token: %s", what, b)
		}
	}
	for _, p := range []string{"mcp-github", "other"} {
		sp := svc.For(p)
		if keys, err := sp.List(""); err != nil || len(keys) != 0 {
			t.Errorf("plugin %s has settings %q, %v", p, keys, err)
		}
		v, err := sp.Get(Key("github"))
		leaks(p+" Get", v)
		if err == nil {
			t.Errorf("plugin %s reads %v", p, v)
		}
		v, err = sp.GetPlugin(Namespace, Key("github"))
		leaks(p+" GetPlugin", v)
		if !errors.Is(err, settings.ErrForbidden) {
			t.Errorf("plugin %s GetPlugin: %v, %v; want ErrForbidden", p, v, err)
		}
		if err := sp.SetPlugin(Namespace, Key("github"), "x"); !errors.Is(err, settings.ErrForbidden) {
			t.Errorf("plugin %s SetPlugin: %v; want ErrForbidden", p, err)
		}
		v, err = sp.GetCore(Key("github"))
		leaks(p+" GetCore", v)
		if err == nil {
			t.Errorf("plugin %s reads core %v", p, v)
		}
		leaks(p+" Dump", sp.Dump())
	}
	// A new process (hearth settings, the HTTP API) knows it is secret.
	fresh := settings.New(st, t.TempDir())
	if !fresh.Secret(Namespace, Key("github")) {
		t.Errorf("%s.%s is not secret", Namespace, Key("github"))
	}
	dump, err := fresh.Dump()
	if err != nil {
		t.Fatal(err)
	}
	leaks("Dump", dump)
	if got := dump[Namespace].(map[string]any)[Key("github")]; got != settings.Mask {
		t.Errorf("Dump shows %v; want the mask", got)
	}
	// The server's own credentials are still there for Hearth.
	if c, _, err := load(fresh, "github"); err != nil || c == nil || c.Token.RefreshToken != refresh {
		t.Fatalf("load = %+v, %v", c, err)
	}
}
