package server

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/internal/app"
	"github.com/hearth-agent/hearth/internal/config"
	"github.com/hearth-agent/hearth/sdk/llmtest"
)

const newKey = "sk-onboarded-secret-key-9f8e7d6c5b4a"

// recordBody reads a response's body, recording it for the key check.
func recordBody(t *testing.T, resp *http.Response, seen *strings.Builder) string {
	t.Helper()
	b, _ := io.ReadAll(resp.Body)
	seen.Write(b)
	return string(b)
}

// TestOnboarding walks a fresh Hearth (no provider) through the web UI's
// steps: presets, save a source with a key, test it, chat through it. The
// key never comes back, and the log masks it.
func TestOnboarding(t *testing.T) {
	fake := llmtest.NewServer(t, llmtest.Reply{Text: "OK"}, llmtest.Reply{Text: "Hello after onboarding."})
	a := newTestApp(t)
	_, hs := newTestServer(t, a)
	var seen strings.Builder

	presets := answerAs[PresetList](t, sendAPI(t, "GET", hs.URL+"/v1/providers/presets", ""), http.StatusOK)
	names := map[string]ProviderPreset{}
	for _, p := range presets.Presets {
		names[p.Name] = p
		if p.NeedsKey && p.Model == "" || p.BaseURL == "" || p.Label == "" || p.LabelZH == "" {
			t.Errorf("preset %+v is incomplete", p)
		}
	}
	for _, n := range []string{"deepseek", "qwen", "kimi", "glm", "siliconflow", "openai", "ollama", "vllm"} {
		if _, ok := names[n]; !ok {
			t.Errorf("no preset %s", n)
		}
	}

	list := answerAs[ProviderList](t, sendAPI(t, "GET", hs.URL+"/v1/providers", ""), http.StatusOK)
	if list.Current != "" || len(list.Providers) != 0 {
		t.Fatalf("a fresh Hearth has providers: %+v", list)
	}
	put := sendAPI(t, "PUT", hs.URL+"/v1/providers/local", `{"base_url":"`+fake.URL+`","model":"m1","api_key":"`+newKey+`","context_window":32768}`)
	var p Provider
	if err := json.Unmarshal([]byte(recordBody(t, put, &seen)), &p); err != nil || put.StatusCode != http.StatusOK {
		t.Fatalf("PUT: %d %v", put.StatusCode, err)
	}
	if !p.Current || !p.KeySet || p.Model != "m1" || p.BaseURL != fake.URL || p.ContextWindow != 32768 {
		t.Errorf("saved %+v; the first source should be current", p)
	}
	a.Logger.Info("a log line that carries the key", "key", newKey) // the mask knows it already

	test := answerAs[ProviderTest](t, sendAPI(t, "POST", hs.URL+"/v1/providers/local/test", ""), http.StatusOK)
	if !test.OK || test.Model != "m1" || test.Error != "" {
		t.Errorf("test %+v", test)
	}
	if got := fake.Requests()[0].Authorization; got != "Bearer "+newKey {
		t.Errorf("the provider got Authorization %q", got)
	}
	chat := sendAPI(t, "POST", hs.URL+"/v1/chat/completions", `{"model":"hearth","messages":[{"role":"user","content":"hi"}]}`)
	if b := recordBody(t, chat, &seen); !strings.Contains(b, "Hello after onboarding.") {
		t.Errorf("chat after onboarding: %s", b)
	}
	recordBody(t, sendAPI(t, "GET", hs.URL+"/v1/providers", ""), &seen)

	f, err := config.Load(a.DataDir)
	if err != nil || f.Source != "local" || f.Sources["local"].APIKey != newKey {
		t.Errorf("config.json: %+v, %v", f, err)
	}
	if strings.Contains(seen.String(), newKey) {
		t.Errorf("an answer showed the key: %s", seen.String())
	}
	log, _ := os.ReadFile(filepath.Join(a.DataDir, "hearth.log"))
	if strings.Contains(string(log), newKey) || !strings.Contains(string(log), "a log line that carries the key") {
		t.Errorf("hearth.log does not mask the key:\n%s", log)
	}
}

func TestProviderTestExplainsFailure(t *testing.T) {
	fake := llmtest.NewServer(t, llmtest.Reply{Status: http.StatusUnauthorized, ErrorMessage: "Incorrect API key provided: " + newKey})
	a := newTestApp(t)
	_, hs := newTestServer(t, a)
	answerAs[Provider](t, sendAPI(t, "PUT", hs.URL+"/v1/providers/bad", `{"base_url":"`+fake.URL+`","model":"m","api_key":"`+newKey+`"}`), http.StatusOK)
	resp := sendAPI(t, "POST", hs.URL+"/v1/providers/bad/test", "")
	raw, _ := io.ReadAll(resp.Body)
	var got ProviderTest
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	if got.OK || !strings.Contains(got.Error, "rejected the API key") || strings.Contains(string(raw), newKey) {
		t.Errorf("test of a rejected key: %s", raw)
	}
	if resp := sendAPI(t, "POST", hs.URL+"/v1/providers/nope/test", ""); resp.StatusCode != http.StatusNotFound {
		t.Errorf("unknown source: %d", resp.StatusCode)
	}
}

func TestProviderInvalidFields(t *testing.T) {
	a := newTestApp(t)
	_, hs := newTestServer(t, a)
	for _, tc := range []struct {
		name, path, body, field string
	}{
		{"bad name", "b%20d", `{"base_url":"https://api.deepseek.com/v1"}`, "name"},
		{"env", "env", `{"base_url":"https://api.deepseek.com/v1"}`, "name"},
		{"presets", "presets", `{"base_url":"https://api.deepseek.com/v1"}`, "name"},
		{"no base_url", "x", `{"model":"m"}`, "base_url"},
		{"ftp", "x", `{"base_url":"ftp://h/v1","model":"m"}`, "base_url"},
		{"userinfo", "x", `{"base_url":"https://u:p@h/v1","model":"m"}`, "base_url"},
		{"query", "x", `{"base_url":"https://h/v1?k=1","model":"m"}`, "base_url"},
		{"full endpoint", "x", `{"base_url":"https://h/v1/chat/completions","model":"m"}`, "base_url"},
		{"no model for unknown host", "x", `{"base_url":"http://127.0.0.1:11434/v1"}`, "model"},
		{"model control char", "x", `{"base_url":"https://h/v1","model":"a\u0007"}`, "model"},
		{"key with a space", "x", `{"base_url":"https://h/v1","model":"m","api_key":"sk-a b"}`, "api_key"},
		{"key too long", "x", `{"base_url":"https://h/v1","model":"m","api_key":"` + strings.Repeat("k", 5000) + `"}`, "api_key"},
		{"key and env", "x", `{"base_url":"https://h/v1","model":"m","api_key":"k","api_key_env":"K"}`, "api_key_env"},
		{"env name", "x", `{"base_url":"https://h/v1","model":"m","api_key_env":"1BAD"}`, "api_key_env"},
		{"window", "x", `{"base_url":"https://h/v1","model":"m","context_window":10}`, "context_window"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := answerAs[apiError](t, sendAPI(t, "PUT", hs.URL+"/v1/providers/"+tc.path, tc.body), http.StatusUnprocessableEntity)
			if e.Error.Code != "invalid_fields" || e.Error.Fields[tc.field] == "" {
				t.Errorf("fields %v, want one for %s", e.Error.Fields, tc.field)
			}
		})
	}
	for body, want := range map[string]int{`{"base_url":1}`: 400, `{"bogus":1}`: 400} {
		if resp := sendAPI(t, "PUT", hs.URL+"/v1/providers/x", body); resp.StatusCode != want {
			t.Errorf("%s: status %d, want %d", body, resp.StatusCode, want)
		}
	}
	if _, err := os.Stat(filepath.Join(a.DataDir, config.FileName)); err == nil {
		t.Error("an invalid source was written")
	}
}

func TestProvidersKeepTheUsersConfig(t *testing.T) {
	dir := t.TempDir()
	orig := `{"system_prompt":"Be terse.","max_steps":7,"source":"a",
		"sources":{"a":{"base_url":"http://127.0.0.1:9/v1","model":"ma","api_key":"sk-aaaa-0000-1111","idle_timeout":"90s"},
		"b":{"base_url":"http://127.0.0.1:8/v1","model":"mb"}}}`
	if err := os.WriteFile(filepath.Join(dir, config.FileName), []byte(orig), 0o600); err != nil {
		t.Fatal(err)
	}
	a, err := app.Open(t.Context(), &app.Options{DataDir: dir, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	_, hs := newTestServer(t, a)

	// A change to a's model keeps its key and timeout, and everything else.
	answerAs[Provider](t, sendAPI(t, "PUT", hs.URL+"/v1/providers/a", `{"model":"ma2"}`), http.StatusOK)
	list := answerAs[ProviderList](t, sendAPI(t, "POST", hs.URL+"/v1/providers/b/use", ""), http.StatusOK)
	if list.Current != "b" || a.Sources.CurrentSource() != "b" || len(list.Providers) != 2 {
		t.Fatalf("after use: %+v", list)
	}
	if e := answerAs[apiError](t, sendAPI(t, "DELETE", hs.URL+"/v1/providers/b", ""), http.StatusConflict); e.Error.Code != "current_provider" {
		t.Errorf("deleting the current source: %+v", e)
	}
	if resp := sendAPI(t, "DELETE", hs.URL+"/v1/providers/a", ""); resp.StatusCode != http.StatusNoContent {
		t.Fatalf("delete: %d", resp.StatusCode)
	}
	if _, ok := a.Sources.Source("a"); ok {
		t.Error("a deleted source is still loaded")
	}
	if resp := sendAPI(t, "POST", hs.URL+"/v1/providers/a/use", ""); resp.StatusCode != http.StatusNotFound {
		t.Errorf("a deleted source could be used: %d", resp.StatusCode)
	}
	f, err := config.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if f.SystemPrompt != "Be terse." || f.MaxSteps != 7 || f.Source != "b" || len(f.Sources) != 1 || f.Sources["b"].Model != "mb" {
		t.Errorf("config.json now %+v", f)
	}

	// A config.json the user broke is not written over.
	broken := []byte(`{"sources": {`)
	if err := os.WriteFile(filepath.Join(dir, config.FileName), broken, 0o600); err != nil {
		t.Fatal(err)
	}
	e := answerAs[apiError](t, sendAPI(t, "PUT", hs.URL+"/v1/providers/c", `{"base_url":"https://api.deepseek.com/v1"}`), http.StatusConflict)
	if e.Error.Code != "config_unparsable" {
		t.Errorf("broken config: %+v", e)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, config.FileName)); string(b) != string(broken) {
		t.Errorf("the broken file was changed: %s", b)
	}
}

func TestProviderModelKeptAcrossUpdate(t *testing.T) {
	cur := config.SourceConfig{BaseURL: "https://api.deepseek.com/v1", APIKeyEnv: "DS_KEY", Model: "deepseek-reasoner"}
	key := "sk-x"
	sc, fields := checkProviderUpdate("ds", true, cur, ProviderUpdate{APIKey: &key})
	if len(fields) > 0 || sc.APIKey != "sk-x" || sc.APIKeyEnv != "" || sc.Model != "deepseek-reasoner" {
		t.Errorf("%+v %v", sc, fields)
	}
}

func FuzzCheckProviderUpdate(f *testing.F) {
	f.Add("local", `{"base_url":"http://127.0.0.1:11434/v1","model":"qwen3:8b","api_key":"k","context_window":8192}`)
	f.Add("env", `{"api_key_env":"X","api_key":""}`)
	f.Add("x", `{"base_url":"https://u@h/v1?q#f"}`)
	f.Add("ds", `{"base_url":"https://evil.test/v1","api_key":""}`)
	f.Fuzz(func(t *testing.T, name, body string) {
		var u ProviderUpdate
		if json.Unmarshal([]byte(body), &u) != nil {
			return
		}
		// An existing source with a key, and one with a variable of any
		// name (config.json written by hand): moved to another origin,
		// it carries neither unless the update gives one.
		given := (u.APIKey != nil && strings.TrimSpace(*u.APIKey) != "") || (u.APIKeyEnv != nil && strings.TrimSpace(*u.APIKeyEnv) != "")
		for _, old := range []config.SourceConfig{
			{BaseURL: "https://api.deepseek.com/v1", APIKey: "sk-old-0123456789"},
			{BaseURL: "https://api.deepseek.com/v1", APIKeyEnv: "GITHUB_TOKEN"},
		} {
			sc, fields := checkProviderUpdate(name, true, old, u)
			if given || len(fields) > 0 || sameProviderOrigin(old.BaseURL, sc.BaseURL) {
				continue
			}
			if (old.APIKey != "" && sc.APIKey == old.APIKey) || (old.APIKeyEnv != "" && sc.APIKeyEnv == old.APIKeyEnv) {
				t.Fatalf("%s moved %+v to %+v with its old key", body, old, sc)
			}
		}
		sc, fields := checkProviderUpdate(name, false, config.SourceConfig{}, u)
		if len(fields) > 0 {
			return
		}
		// What passes is a config Hearth loads.
		b, _ := json.Marshal(config.File{Sources: map[string]config.SourceConfig{name: sc}})
		if _, err := config.Parse("config.json", b); err != nil {
			t.Fatalf("accepted %q %+v, which does not load: %v", name, sc, err)
		}
		if sc.APIKey != "" && sc.APIKeyEnv != "" {
			t.Fatalf("both a key and a key variable: %+v", sc)
		}
		if sc.APIKeyEnv != "" && !strings.HasSuffix(sc.APIKeyEnv, "_API_KEY") {
			t.Fatalf("accepted the variable %q, not an *_API_KEY", sc.APIKeyEnv)
		}
	})
}
