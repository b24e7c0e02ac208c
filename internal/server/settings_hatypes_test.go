package server

import (
	"net/http"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/sdk"
)

// HomeAgent's ConfigDef types through the HTTP API (the web UI's path):
// shown as the form's types, checked on write, a password masked.
func TestSettingsHomeAgentTypes(t *testing.T) {
	a := newTestApp(t)
	for _, d := range []sdk.ConfigDef{
		{Key: "max_items", Type: "int", Max: 50},
		{Key: "enabled", Type: "bool"},
		{Key: "style", Type: "select", Options: []string{"vivid", "natural"}},
		{Key: "login", Type: "password"},
	} {
		if err := a.Settings.Register("ha", d); err != nil {
			t.Fatal(err)
		}
	}
	_, hs := newTestServer(t, a)
	const pass = "pw-0123456789-secret"
	code, body := adminCall(t, hs, "PUT", "/v1/settings/ha", `{"values": {"max_items": 50, "enabled": true, "style": "vivid", "login": "`+pass+`"}}`)
	if code != http.StatusOK {
		t.Fatalf("PUT = %d %s", code, body)
	}
	if strings.Contains(body, pass) {
		t.Fatalf("the password is shown: %s", body)
	}
	byKey := map[string]Setting{}
	for _, s := range decodeAs[PluginSettings](t, body).Settings {
		byKey[s.Key] = s
	}
	if s := byKey["max_items"]; s.Type != "number" || s.Step == nil || *s.Step != 1 || s.Value != float64(50) {
		t.Fatalf("max_items = %+v", s)
	}
	if s := byKey["enabled"]; s.Type != "boolean" || s.Value != true {
		t.Fatalf("enabled = %+v", s)
	}
	if s := byKey["login"]; !s.Secret || !s.Set || s.Value != nil {
		t.Fatalf("login = %+v", s)
	}
	for _, tc := range []struct{ values, key string }{
		{`{"max_items": 51}`, "max_items"},
		{`{"max_items": "abc"}`, "max_items"},
		{`{"enabled": "yes"}`, "enabled"},
		{`{"style": "loud"}`, "style"},
		{`{"login": 5}`, "login"},
	} {
		code, body := adminCall(t, hs, "PUT", "/v1/settings/ha", `{"values": `+tc.values+`}`)
		if code != http.StatusUnprocessableEntity {
			t.Fatalf("%s: status %d %s", tc.values, code, body)
		}
		if e := decodeAs[apiError](t, body); e.Error.Fields[tc.key] == "" {
			t.Fatalf("%s: error %+v", tc.values, e.Error)
		}
	}
	code, body = adminCall(t, hs, "GET", "/v1/settings/ha", "")
	if code != http.StatusOK || strings.Contains(body, pass) {
		t.Fatalf("GET = %d, shows the password: %v", code, strings.Contains(body, pass))
	}
}
