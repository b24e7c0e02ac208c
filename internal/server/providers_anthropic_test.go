package server

import (
	"net/http"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/internal/config"
	"github.com/hearth-agent/hearth/internal/llm"
	"github.com/hearth-agent/hearth/internal/llm/anthropictest"
)

// The onboarding offers Anthropic with its wire; a source saved with
// "api": "anthropic" is tested, listed and chatted with on that wire,
// and config.json keeps it.
func TestOnboardingAnthropic(t *testing.T) {
	fake := anthropictest.NewServer(t, anthropictest.Reply{Text: "OK"}, anthropictest.Reply{Text: "Hello from Claude."})
	a := newTestApp(t)
	_, hs := newTestServer(t, a)

	presets := answerAs[PresetList](t, sendAPI(t, "GET", hs.URL+"/v1/providers/presets", ""), http.StatusOK)
	var claude *ProviderPreset
	for i, p := range presets.Presets {
		if p.Name == "anthropic" {
			claude = &presets.Presets[i]
		} else if p.API != "" {
			t.Errorf("preset %s has api %q", p.Name, p.API)
		}
	}
	if claude == nil || claude.API != llm.APIAnthropic || claude.BaseURL != "https://api.anthropic.com" || claude.Model == "" || !claude.NeedsKey {
		t.Fatalf("anthropic preset %+v", claude)
	}

	bad := sendAPI(t, "PUT", hs.URL+"/v1/providers/claude", `{"base_url":"`+fake.URL+`","model":"claude-test","api":"claude"}`)
	if body := recordBody(t, bad, new(strings.Builder)); bad.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, `"api"`) {
		t.Fatalf("an unknown api: %d %s", bad.StatusCode, body)
	}
	p := answerAs[Provider](t, sendAPI(t, "PUT", hs.URL+"/v1/providers/claude",
		`{"base_url":"`+fake.URL+`","model":"claude-test","api":"anthropic","api_key":"`+newKey+`"}`), http.StatusOK)
	if p.API != llm.APIAnthropic || !p.Current {
		t.Fatalf("saved %+v", p)
	}
	test := answerAs[ProviderTest](t, sendAPI(t, "POST", hs.URL+"/v1/providers/claude/test", ""), http.StatusOK)
	if !test.OK || test.Error != "" {
		t.Fatalf("test %+v", test)
	}
	if r := fake.Requests()[0]; r.APIKey != newKey || r.Bearer != "" || r.Path != "/v1/messages" {
		t.Fatalf("the provider got key %q, bearer %q, path %q", r.APIKey, r.Bearer, r.Path)
	}
	chat := sendAPI(t, "POST", hs.URL+"/v1/chat/completions", `{"model":"hearth","messages":[{"role":"user","content":"hi"}]}`)
	if b := recordBody(t, chat, new(strings.Builder)); !strings.Contains(b, "Hello from Claude.") {
		t.Fatalf("chat: %s", b)
	}
	f, err := config.Load(a.DataDir)
	if err != nil || f.Sources["claude"].API != llm.APIAnthropic {
		t.Fatalf("config.json: %+v, %v", f, err)
	}
}

// A new source at a preset's address without "api" takes the preset's
// wire; "api": "openai" says otherwise, and an existing source keeps its
// own.
func TestProviderAPIFromPreset(t *testing.T) {
	u := func(api *string) ProviderUpdate {
		base := "https://api.anthropic.com"
		return ProviderUpdate{BaseURL: &base, API: api}
	}
	if sc, fields := checkProviderUpdate("claude", false, config.SourceConfig{}, u(nil)); len(fields) > 0 || sc.API != llm.APIAnthropic {
		t.Errorf("new source at Anthropic's address: %+v %v", sc, fields)
	}
	openai := "openai"
	if sc, fields := checkProviderUpdate("compat", false, config.SourceConfig{}, u(&openai)); len(fields) > 0 || sc.API != "" {
		t.Errorf("api openai: %+v %v", sc, fields)
	}
	old := config.SourceConfig{BaseURL: "https://api.anthropic.com", API: "", ThinkingBudget: 0}
	if sc, _ := checkProviderUpdate("compat", true, old, u(nil)); sc.API != "" {
		t.Errorf("an existing source's wire changed: %+v", sc)
	}
	old = config.SourceConfig{BaseURL: "https://api.anthropic.com", API: llm.APIAnthropic, ThinkingBudget: 2048}
	if sc, _ := checkProviderUpdate("claude", true, old, u(&openai)); sc.API != "" || sc.ThinkingBudget != 0 {
		t.Errorf("switched to openai, thinking kept: %+v", sc)
	}
}
