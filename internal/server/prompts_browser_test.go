package server

import (
	"context"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/hearth-agent/hearth/internal/app"
	"github.com/hearth-agent/hearth/internal/pluginhost"
	"github.com/hearth-agent/hearth/internal/store"
	"github.com/hearth-agent/hearth/sdk/llmtest"
	"github.com/hearth-agent/hearth/web"
)

// browserPrompts offers mcp-x:hello and mcp-x:review(code required,
// lang).
type browserPrompts struct{}

func (browserPrompts) MCPPrompts() []pluginhost.MCPPrompt {
	return []pluginhost.MCPPrompt{
		{Plugin: "mcp-x", Name: "hello", Title: "Say hello"},
		{Plugin: "mcp-x", Name: "review", Description: "Review code.\nIn detail.",
			Arguments: []pluginhost.MCPPromptArgument{{Name: "code", Description: "the code", Required: true}, {Name: "lang"}}},
	}
}

func (browserPrompts) GetMCPPrompt(_ context.Context, _, name string, args map[string]string) (string, error) {
	if name == "hello" {
		return "Hello from the prompt", nil
	}
	if args["lang"] != "" {
		return "Please review (" + args["lang"] + "): " + args["code"], nil
	}
	return "Please review: " + args["code"], nil
}

func TestBrowserPrompts(t *testing.T) {
	node := browserReady(t)
	model := llmtest.NewServer(t, llmtest.Reply{Text: "first answer"}, llmtest.Reply{Text: "second answer"},
		llmtest.Reply{Text: "third answer"}, llmtest.Reply{Text: "fourth answer"})
	env := map[string]string{"OPENAI_BASE_URL": model.URL, "HEARTH_MODEL": "test-model", "OPENAI_API_KEY": "sk-test-browser-0123456789"}
	a, err := app.Open(context.Background(), &app.Options{DataDir: t.TempDir(), Getenv: func(k string) string { return env[k] }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	s := New(a, &Options{Token: testToken, UI: web.FS(), Prompts: browserPrompts{}})
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(func() { s.Close(); hs.Close() })
	browse(t, node, &uiEnv{app: a, url: hs.URL, model: model}, "prompts")
	var users []any
	for _, m := range model.Requests()[2].Messages {
		if m["role"] == "user" {
			users = append(users, m["content"])
		}
	}
	if len(users) != 3 || users[2] != "Please review (go): a b" {
		t.Errorf("the third request's user messages: %q", users)
	}
	// A prompt's text is sent as untrusted: its turn is tainted from the
	// start; a message typed by the user is not.
	traces, err := a.Store.Traces(context.Background(), store.TraceFilter{})
	if err != nil {
		t.Fatal(err)
	}
	var origins []string
	for _, tr := range traces {
		origins = append(origins, tr.Untrusted)
	}
	if want := []string{"", "mcp-x prompt review", "mcp-x prompt review", "mcp-x prompt hello"}; !slices.Equal(origins, want) {
		t.Errorf("the turns' untrusted origins, newest first: %q, want %q", origins, want)
	}
}
