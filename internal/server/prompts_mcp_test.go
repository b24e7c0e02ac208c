package server

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hearth-agent/hearth/internal/config"
)

// reviewMCP serves, over Streamable HTTP on loopback, an MCP server on the
// official SDK with the prompt review(code required, lang).
func reviewMCP(t *testing.T) *httptest.Server {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "prompts", Version: "1.0.0"}, nil)
	srv.AddPrompt(&mcp.Prompt{Name: "review", Title: "Review code", Description: "Reviews a piece of code.",
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

func TestPromptRoutesWithAnMCPServer(t *testing.T) {
	ctx := t.Context()
	mcpURL := reviewMCP(t).URL // before the app, so it closes after it
	a := newTestApp(t)
	a.Plugins.SetMCPServers(map[string]config.MCPServer{"x": {URL: mcpURL}})
	if err := a.Plugins.Scan(ctx); err != nil {
		t.Fatal(err)
	}
	a.Plugins.WaitReady(ctx)
	_, hs := newTestServer(t, a)

	code, body := adminCall(t, hs, "GET", "/v1/prompts", "")
	want := `{"prompts":[{"plugin":"mcp-x","name":"review","title":"Review code","description":"Reviews a piece of code.",` +
		`"arguments":[{"name":"code","description":"the code","required":true},{"name":"lang","required":false}]}]}`
	if code != 200 || strings.TrimSpace(body) != want {
		t.Fatalf("GET /v1/prompts = %d\n%s\nwant\n%s", code, body, want)
	}
	code, body = adminCall(t, hs, "POST", "/v1/prompts/mcp-x/review", `{"arguments":{"code":"x := 1","lang":"Go"}}`)
	if code != 200 || strings.TrimSpace(body) != `{"text":"Please review this Go code: x := 1"}` {
		t.Fatalf("POST = %d %s", code, body)
	}
	if code, body = adminCall(t, hs, "POST", "/v1/prompts/mcp-x/review", `{"arguments":{"lang":"Go"}}`); code != 422 {
		t.Fatalf("POST without the required argument = %d %s", code, body)
	}
}
