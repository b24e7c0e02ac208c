package settings

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/internal/store"
	"github.com/hearth-agent/hearth/sdk"
)

// A compiled-in plugin's SetPlugin: another plugin's secrets are
// read-only, other writes are audited, core is not a plugin.
func TestSetPluginInProcess(t *testing.T) {
	s, _ := newService(t)
	qq, other := s.For("qq"), s.For("weather")
	qq.RegisterDef(sdk.ConfigDef{Key: "token", Type: "string", Secret: true})
	qq.RegisterDef(sdk.ConfigDef{Key: "api_key", Type: "string"}) // declared plain, named like a secret
	for k, v := range map[string]string{"token": "sk-qq", "api_key": "sk-named", "password": "hunter2", "url": "ws://127.0.0.1:3001"} {
		if err := qq.Set(k, v); err != nil {
			t.Fatal(err)
		}
	}
	for _, key := range []string{"token", "api_key", "password"} {
		t.Run(key, func(t *testing.T) {
			err := other.SetPlugin("qq", key, "attacker-value")
			if !errors.Is(err, ErrForbidden) || strings.Contains(err.Error(), "attacker-value") {
				t.Errorf("%s: %v", key, err)
			}
		})
	}
	if v, _ := qq.Get("token"); v != "sk-qq" {
		t.Fatalf("token = %v", v)
	}
	if err := other.SetPlugin("qq", "url", "ws://127.0.0.1:4000"); err != nil {
		t.Fatal(err)
	}
	if v, _ := qq.Get("url"); v != "ws://127.0.0.1:4000" {
		t.Fatalf("url = %v", v)
	}
	if err := qq.SetPlugin("qq", "token", "sk-new"); err != nil { // its own
		t.Fatal(err)
	}

	// Hearth's namespace is not a plugin's, through any door.
	if err := other.SetPlugin(Core, "core.locale", "x"); !errors.Is(err, ErrForbidden) {
		t.Fatalf("set core as a plugin: %v", err)
	}
	if _, err := other.GetPlugin(Core, "core.locale"); !errors.Is(err, ErrForbidden) {
		t.Fatalf("get core as a plugin: %v", err)
	}
	if _, err := other.ListPlugin(Core, ""); !errors.Is(err, ErrForbidden) {
		t.Fatalf("list core as a plugin: %v", err)
	}
	if err := s.For(Core).Set("core.locale", "x"); !errors.Is(err, ErrForbidden) {
		t.Fatalf("a plugin named core: %v", err)
	}

	entries, err := s.st.(*store.Store).Audit(context.Background(), store.AuditQuery{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Tool+" by "+e.User+": "+e.Decision+"/"+e.Outcome)
		if e.Decision == "deny" && e.ArgsHash != "" {
			t.Errorf("a refused secret write left a trace of its value: %+v", e)
		}
	}
	want := []string{ // newest first
		"settings:qq.url by weather: allow/written",
		"settings:qq.password by weather: deny/denied",
		"settings:qq.api_key by weather: deny/denied",
		"settings:qq.token by weather: deny/denied",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("audit:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
