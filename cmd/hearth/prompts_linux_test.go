package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// reviewMCP serves, over Streamable HTTP on loopback, an MCP server on the
// official SDK with the prompt review(code required, lang).
func reviewMCP(t *testing.T) *httptest.Server {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "prompts", Version: "1.0.0"}, nil)
	srv.AddPrompt(&mcp.Prompt{Name: "review", Description: "Reviews a piece of code.",
		Arguments: []*mcp.PromptArgument{{Name: "code", Description: "the code", Required: true}, {Name: "lang"}}},
		func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			a := req.Params.Arguments
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{
				{Role: "user", Content: &mcp.TextContent{Text: "Please review this " + a["lang"] + " code: " + a["code"]}},
			}}, nil
		})
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	// The client's event stream stays open until Hearth stops: cut it,
	// or Close waits for it.
	t.Cleanup(func() { ts.CloseClientConnections(); ts.Close() })
	return ts
}

// TestPromptCommandOnATerminal runs `hearth chat` on a pseudo-terminal
// with an MCP server in config.json: /help lists its prompt, Tab
// completes it, the missing required argument is asked for, and the
// prompt's text is what the model gets.
func TestPromptCommandOnATerminal(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Reply{Text: "Looks fine."}, llmtest.Reply{Text: "Still fine."})
	home := t.TempDir()
	cfg := `{"mcpServers": {"x": {"type": "http", "url": "` + reviewMCP(t).URL + `"}}}`
	if err := os.WriteFile(filepath.Join(home, "config.json"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd, ptmx, scr, copied := startChat(t, "HOME="+home, "HEARTH_HOME="+home, "OPENAI_BASE_URL="+srv.URL, "HEARTH_MODEL=test-model")
	send := typer(t, ptmx)
	scr.waitFor(t, "› ")
	// Chat starts plugins without waiting for them: /help again until
	// the server has connected and its prompt is listed.
	for n := 1; !strings.Contains(scr.String(), "/mcp-x:review code=… [lang=…]"); n++ {
		if n > 200 {
			t.Fatalf("the prompt was never listed:\n%s", scr.String())
		}
		send("/help\r")
		scr.waitCount(t, "Tab completes a command.", n)
	}
	scr.waitFor(t, "Reviews a piece of code.")
	send("/mcp-x:r\t")
	scr.waitFor(t, "› /mcp-x:review ")
	send("lang=Go\r")
	scr.waitFor(t, "code (the code): ")
	send("x := 1\r")
	scr.waitFor(t, "Looks fine.")
	send(`/mcp-x:review "y := 2" Go` + "\r")
	scr.waitFor(t, "Still fine.")
	send("\x04")
	waitExit(t, cmd, scr, copied)

	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want 2:\n%s", len(reqs), scr.String())
	}
	for i, want := range []string{"Please review this Go code: x := 1", "Please review this Go code: y := 2"} {
		if got := lastUser(reqs[i]); got != want {
			t.Errorf("request %d: the user's message is %q, want %q", i, got, want)
		}
	}
	if hist, _ := os.ReadFile(filepath.Join(home, "chat_history")); strings.Contains(string(hist), `"x := 1"`) {
		t.Errorf("an argument asked for went into the input history: %s", hist)
	}
}

// TestPromptCommandInAsk: `hearth ask` sends a prompt's text, and refuses
// a prompt command missing a required argument, naming it.
func TestPromptCommandInAsk(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Reply{Text: "Reviewed."})
	home := t.TempDir()
	cfg := `{"mcpServers": {"x": {"type": "http", "url": "` + reviewMCP(t).URL + `"}}}`
	if err := os.WriteFile(filepath.Join(home, "config.json"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"HEARTH_HOME=" + home, "OPENAI_BASE_URL=" + srv.URL, "HEARTH_MODEL=test-model"}
	out, errOut, code := hearth(t, env, "", "ask", "/mcp-x:review", "lang=Go", "x := 1")
	if code != 0 || out != "Reviewed.\n" {
		t.Fatalf("ask = %d, %q, %q", code, out, errOut)
	}
	_, errOut, code = hearth(t, env, "", "ask", "/mcp-x:review", "lang=Go")
	if code == 0 || !strings.Contains(errOut, "missing required arguments: code") {
		t.Fatalf("ask without code = %d, %q", code, errOut)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d model requests, want 1", len(reqs))
	}
	if got := lastUser(reqs[0]); got != "Please review this Go code: x := 1" {
		t.Errorf("the user's message is %q", got)
	}
}

// lastUser is the content of r's last user message.
func lastUser(r llmtest.Request) any {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i]["role"] == "user" {
			return r.Messages[i]["content"]
		}
	}
	return nil
}
