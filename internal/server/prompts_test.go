package server

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/internal/pluginhost"
)

// fakePromptSource offers one prompt, review(code required, lang), whose
// text repeats its arguments; the prompt "broken" fails with the key it
// was given, which must not come back.
type fakePromptSource struct{ got map[string]string }

func (f *fakePromptSource) MCPPrompts() []pluginhost.MCPPrompt {
	return []pluginhost.MCPPrompt{
		{Plugin: "mcp-x", Name: "review", Title: "Review", Description: "Review code.",
			Arguments: []pluginhost.MCPPromptArgument{{Name: "code", Description: "the code", Required: true}, {Name: "lang"}}},
		{Plugin: "mcp-x", Name: "broken"},
		{Plugin: "mcp-x", Name: "gone"},
	}
}

func (f *fakePromptSource) GetMCPPrompt(_ context.Context, plugin, name string, args map[string]string) (string, error) {
	f.got = args
	if name == "gone" {
		return "", fmt.Errorf("%w: %s", pluginhost.ErrMCPNotRunning, plugin)
	}
	if name == "broken" {
		return "", errors.New("upstream said sk-abcdefghijklmnopqrstuvwxyz0123456789 is wrong\x1b[2J")
	}
	return "review " + args["lang"] + ": " + args["code"], nil
}

func TestPromptRoutes(t *testing.T) {
	src := &fakePromptSource{}
	s := New(newTestApp(t), &Options{Token: testToken, Prompts: src})
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(func() { s.Close(); hs.Close() })

	code, body := adminCall(t, hs, "GET", "/v1/prompts", "")
	if code != 200 {
		t.Fatalf("GET /v1/prompts = %d: %s", code, body)
	}
	list := decodeAs[PromptList](t, body)
	want := PromptList{Prompts: []Prompt{
		{Plugin: "mcp-x", Name: "review", Title: "Review", Description: "Review code.",
			Arguments: []PromptArgument{{Name: "code", Description: "the code", Required: true}, {Name: "lang"}}},
		{Plugin: "mcp-x", Name: "broken", Arguments: []PromptArgument{}},
		{Plugin: "mcp-x", Name: "gone", Arguments: []PromptArgument{}},
	}}
	if !reflect.DeepEqual(list, want) {
		t.Errorf("GET /v1/prompts = %+v\nwant %+v", list, want)
	}

	for _, tt := range []struct {
		name, path, body string
		code             int
		has              string
	}{
		{"text", "/v1/prompts/mcp-x/review", `{"arguments":{"code":"x := 1","lang":"go"}}`, 200, `{"text":"review go: x := 1"}`},
		{"missing required", "/v1/prompts/mcp-x/review", `{"arguments":{"lang":"go"}}`, 422, `"code":"required"`},
		{"no arguments", "/v1/prompts/mcp-x/review", `{}`, 422, `"code":"required"`},
		{"undeclared", "/v1/prompts/mcp-x/review", `{"arguments":{"code":"1","what":"2"}}`, 422, `"what":"not an argument`},
		{"unknown prompt", "/v1/prompts/mcp-x/nope", `{}`, 404, `"no_prompt"`},
		{"unknown plugin", "/v1/prompts/mcp-y/review", `{}`, 404, `"no_prompt"`},
		{"bad body", "/v1/prompts/mcp-x/review", `{"args":{}}`, 400, `"invalid_json"`},
		{"server stopped", "/v1/prompts/mcp-x/gone", `{}`, 503, `"not_running"`},
		{"server error", "/v1/prompts/mcp-x/broken", `{}`, 502, `"prompt_failed"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, body := adminCall(t, hs, "POST", tt.path, tt.body)
			if code != tt.code || !strings.Contains(body, tt.has) {
				t.Errorf("POST %s %s = %d %s; want %d with %s", tt.path, tt.body, code, body, tt.code, tt.has)
			}
			if strings.Contains(body, "sk-abc") || strings.Contains(body, "\x1b") || strings.Contains(body, `\u001b`) {
				t.Errorf("the answer shows a key or an escape: %s", body)
			}
		})
	}
}

func TestPromptRoutesDefaultToThePluginManager(t *testing.T) {
	_, hs := newTestServer(t, newTestApp(t))
	code, body := adminCall(t, hs, "GET", "/v1/prompts", "")
	if code != 200 || strings.TrimSpace(body) != `{"prompts":[]}` {
		t.Errorf("GET /v1/prompts = %d %s, want no prompts", code, body)
	}
	code, body = adminCall(t, hs, "POST", "/v1/prompts/mcp-x/review", `{}`)
	if code != 404 {
		t.Errorf("POST of a prompt nobody offers = %d %s, want 404", code, body)
	}
}
