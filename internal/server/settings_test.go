package server

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/internal/store"
	"github.com/hearth-agent/hearth/sdk"
)

// adminCall sends an authorized request to the test server and returns
// the status and body; body is JSON unless ctype says otherwise.
func adminCall(t *testing.T, hs *httptest.Server, method, path, body string, ctype ...string) (int, string) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, hs.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+testToken)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if len(ctype) > 0 {
		req.Header.Set("Content-Type", ctype[0])
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

// decodeAs decodes a response body into a T.
func decodeAs[T any](t *testing.T, body string) T {
	t.Helper()
	var v T
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		t.Fatalf("decoding %s: %v", body, err)
	}
	return v
}

const weatherSecret = "sk-weather-0123456789abcdef"

func TestSettingsFormsValuesAndSecrets(t *testing.T) {
	a := newTestApp(t)
	for _, d := range []sdk.ConfigDef{
		{Key: "city", Type: "string", DisplayName: "City", Required: true},
		{Key: "units", Type: "string", Options: []string{"c", "f"}, Default: "c"},
		{Key: "days", Type: "number", Min: 1, Max: 7, Step: 1, Default: float64(3)},
		{Key: "alerts", Type: "boolean", Default: true},
		{Key: "api_key", Type: "string", Secret: true, Default: "sk-default-secret-9999"},
	} {
		if err := a.Settings.Register("weather", d); err != nil {
			t.Fatal(err)
		}
	}
	_, hs := newTestServer(t, a)
	var bodies []string
	call := func(method, path, body string) (int, string) {
		t.Helper()
		code, b := adminCall(t, hs, method, path, body)
		bodies = append(bodies, b)
		return code, b
	}

	code, body := call("PUT", "/v1/settings/weather", `{"values": {"city": "北京", "api_key": "`+weatherSecret+`"}}`)
	if code != http.StatusOK {
		t.Fatalf("PUT = %d %s", code, body)
	}
	ps := decodeAs[PluginSettings](t, body)
	byKey := map[string]Setting{}
	for _, s := range ps.Settings {
		byKey[s.Key] = s
	}
	if s := byKey["api_key"]; !s.Secret || !s.Set || s.Value != nil || s.Default != nil {
		t.Fatalf("secret shown as %+v", s)
	}
	if s := byKey["city"]; s.Value != "北京" || !s.Set || s.Label != "City" || !s.Required {
		t.Fatalf("city = %+v", s)
	}
	if s := byKey["days"]; s.Value != float64(3) || s.Set || s.Step == nil || *s.Step != 1 || *s.Max != 7 {
		t.Fatalf("days = %+v", s)
	}

	// Invalid values, per type: 422, a message per key, nothing written.
	for _, tc := range []struct{ name, values, key string }{
		{"string type", `{"city": 5}`, "city"},
		{"required", `{"city": ""}`, "city"},
		{"option", `{"units": "kelvin"}`, "units"},
		{"below min", `{"days": 0}`, "days"},
		{"above max", `{"days": 8}`, "days"},
		{"off step", `{"days": 2.5}`, "days"},
		{"number type", `{"days": "2"}`, "days"},
		{"boolean", `{"alerts": "yes"}`, "alerts"},
		{"secret type", `{"api_key": 12345678901}`, "api_key"},
		{"one bad keeps the good out", `{"units": "f", "days": 99}`, "days"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := call("PUT", "/v1/settings/weather", `{"values": `+tc.values+`}`)
			if code != http.StatusUnprocessableEntity {
				t.Fatalf("status %d %s", code, body)
			}
			e := decodeAs[apiError](t, body)
			if e.Error.Code != "invalid_fields" || e.Error.Fields[tc.key] == "" {
				t.Fatalf("error %+v", e.Error)
			}
		})
	}
	if v, _, _ := a.Settings.Value("weather", "units"); string(v) != `"c"` {
		t.Fatalf("units = %s after a refused change", v)
	}

	code, body = call("GET", "/v1/settings", "")
	if code != http.StatusOK || !strings.Contains(body, `"plugin":"weather"`) {
		t.Fatalf("GET /v1/settings = %d %s", code, body)
	}
	if code, body = call("GET", "/v1/settings/weather", ""); code != http.StatusOK {
		t.Fatalf("GET one = %d %s", code, body)
	}
	for _, tc := range []struct{ method, path, body string }{
		{"GET", "/v1/settings/nope", ""},
		{"PUT", "/v1/settings/nope", `{"values": {"a": 1}}`},
		{"DELETE", "/v1/settings/weather/nope", ""},
	} {
		if code, body := call(tc.method, tc.path, tc.body); code != http.StatusNotFound {
			t.Errorf("%s %s = %d %s", tc.method, tc.path, code, body)
		}
	}
	for _, bad := range []string{`{"values": {}}`, `{"values": {"city": "x"}, "extra": 1}`, `{"values":`} {
		if code, body := call("PUT", "/v1/settings/weather", bad); code != http.StatusBadRequest {
			t.Errorf("PUT %s = %d %s", bad, code, body)
		}
	}
	if code, body := call("PUT", "/v1/settings/weather", `{"values": {"city": "`+strings.Repeat("x", DefaultMaxBody)+`"}}`); code != http.StatusRequestEntityTooLarge {
		t.Errorf("oversized PUT = %d %.200s", code, body)
	}

	// Clearing a secret, resetting a value.
	if code, body = call("DELETE", "/v1/settings/weather/api_key", ""); code != http.StatusOK {
		t.Fatalf("DELETE = %d %s", code, body)
	}
	if _, ok, _ := a.Store.Setting(t.Context(), "weather", "api_key"); ok {
		t.Fatal("the secret is still stored")
	}
	if code, _ = call("PUT", "/v1/settings/weather", `{"values": {"api_key": "`+weatherSecret+`", "days": 5}}`); code != http.StatusOK {
		t.Fatal(code)
	}
	if code, body = call("PUT", "/v1/settings/weather", `{"values": {"days": null}}`); code != http.StatusOK || !strings.Contains(body, `"key":"days"`) {
		t.Fatalf("reset = %d %s", code, body)
	}
	if v, _, _ := a.Settings.Value("weather", "days"); string(v) != "3" {
		t.Fatalf("days after reset = %s", v)
	}

	for _, b := range bodies {
		if strings.Contains(b, weatherSecret) || strings.Contains(b, "sk-default-secret") {
			t.Fatalf("a secret in a response: %s", b)
		}
	}
	entries, err := a.Store.Audit(t.Context(), store.AuditQuery{Tool: "settings:weather.api_key", Limit: 10})
	if err != nil || len(entries) < 3 || entries[0].Actor != apiActor {
		t.Fatalf("audit = %+v %v", entries, err)
	}
}

func TestSettingsCoreDataDirHidden(t *testing.T) {
	a := newTestApp(t)
	_, hs := newTestServer(t, a)
	if code, body := adminCall(t, hs, "PUT", "/v1/settings/core", `{"values": {"core.daemon.data_dir": "/tmp/x"}}`); code != http.StatusUnprocessableEntity {
		t.Fatalf("PUT core.daemon.data_dir = %d %s", code, body)
	}
	if code, body := adminCall(t, hs, "PUT", "/v1/settings/core", `{"values": {"language": "zh"}}`); code != http.StatusOK || !strings.Contains(body, `"value":"zh"`) {
		t.Fatalf("PUT core = %d %s", code, body)
	}
}
