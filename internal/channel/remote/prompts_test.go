package remote_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/internal/app"
	"github.com/hearth-agent/hearth/internal/channel/remote"
	"github.com/hearth-agent/hearth/internal/channel/terminal"
	"github.com/hearth-agent/hearth/internal/pluginhost"
	"github.com/hearth-agent/hearth/internal/server"
	"github.com/hearth-agent/hearth/internal/store"
	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// reviewPrompts offers the prompt mcp-x:review(code required).
type reviewPrompts struct{}

func (reviewPrompts) MCPPrompts() []pluginhost.MCPPrompt {
	return []pluginhost.MCPPrompt{{Plugin: "mcp-x", Name: "review", Description: "Review code.",
		Arguments: []pluginhost.MCPPromptArgument{{Name: "code", Required: true}}}}
}

func (reviewPrompts) GetMCPPrompt(_ context.Context, _, _ string, args map[string]string) (string, error) {
	return "Please review: " + args["code"], nil
}

// newPromptDaemon is newDaemon with reviewPrompts as the prompt source.
func newPromptDaemon(t *testing.T, replies ...llmtest.Reply) *daemon {
	t.Helper()
	srv := llmtest.NewServer(t, replies...)
	env := map[string]string{"OPENAI_BASE_URL": srv.URL, "OPENAI_API_KEY": "sk-test", "HEARTH_MODEL": "m"}
	a, err := app.Open(context.Background(), &app.Options{DataDir: t.TempDir(), Getenv: func(k string) string { return env[k] }})
	if err != nil {
		t.Fatal(err)
	}
	s := server.New(a, &server.Options{Token: token, Prompts: reviewPrompts{}})
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(func() {
		hs.CloseClientConnections()
		s.Close()
		hs.Close()
		a.Close()
	})
	return &daemon{app: a, hs: hs, llm: srv}
}

func TestPromptsThroughTheDaemon(t *testing.T) {
	d := newPromptDaemon(t)
	ag := d.agent()
	defer ag.Close()
	list, err := ag.Prompts(t.Context())
	want := []terminal.Prompt{{Plugin: "mcp-x", Name: "review", Description: "Review code.",
		Arguments: []terminal.PromptArgument{{Name: "code", Required: true}}}}
	if err != nil || !reflect.DeepEqual(list, want) {
		t.Fatalf("Prompts = %+v, %v; want %+v", list, err, want)
	}
	text, err := ag.GetPrompt(t.Context(), "mcp-x", "review", map[string]string{"code": "x := 1"})
	if err != nil || text != "Please review: x := 1" {
		t.Fatalf("GetPrompt = %q, %v", text, err)
	}
	var apiErr *remote.APIError
	if _, err := ag.GetPrompt(t.Context(), "mcp-x", "a/b", nil); !errors.As(err, &apiErr) || apiErr.Status != 404 {
		t.Fatalf("GetPrompt of no prompt: %v, want a 404 APIError", err)
	}
}

func TestPromptCommandInChatThroughTheDaemon(t *testing.T) {
	d := newPromptDaemon(t, llmtest.Reply{Text: "looks fine"})
	ag := d.agent()
	defer ag.Close()
	ctx := t.Context()
	out := newScreen()
	o := &terminal.Options{In: strings.NewReader("/mcp-x:review \"x := 1\"\n"), Out: out, Err: out,
		Prompts: func() []terminal.Prompt {
			list, _ := ag.Prompts(ctx)
			return list
		},
		GetPrompt: ag.GetPrompt,
	}
	if err := terminal.Chat(ctx, ag, o); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "looks fine") {
		t.Fatalf("no answer: %q", out.String())
	}
	reqs := d.llm.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d model requests, want 1", len(reqs))
	}
	var users []any
	for _, m := range reqs[0].Messages {
		if m["role"] == "user" {
			users = append(users, m["content"])
		}
	}
	if !reflect.DeepEqual(users, []any{"Please review: x := 1"}) {
		t.Fatalf("the user's messages are %q", users)
	}
	// The prompt's text is a third party's: the daemon's turn was tainted
	// from its start, and its trace says where the text came from.
	traces, err := d.app.Store.Traces(ctx, store.TraceFilter{})
	if err != nil || len(traces) != 1 || traces[0].Untrusted != "mcp-x prompt review" {
		t.Fatalf("traces %+v, %v", traces, err)
	}
}
