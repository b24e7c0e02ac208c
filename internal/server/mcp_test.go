package server

import (
	"context"
	"net/http"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// bearer adds a token to every request of an MCP client.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

func mcpClient(t *testing.T, url, token string) (*mcp.ClientSession, error) {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil)
	return c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url + "/mcp",
		HTTPClient: &http.Client{Transport: bearer{token, http.DefaultTransport}}}, nil)
}

func TestMCPEndpointServesTheOwnersTools(t *testing.T) {
	_, hs := newTestServer(t, newTestApp(t))
	cs, err := mcpClient(t, hs.URL, testToken)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	list, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Tools) == 0 {
		t.Fatal("no tools listed")
	}
	name := ""
	for _, tool := range list.Tools {
		if tool.Annotations != nil && tool.Annotations.ReadOnlyHint && tool.Name == "time__now" {
			name = tool.Name
		}
	}
	if name == "" {
		t.Fatalf("no time__now among %d tools", len(list.Tools))
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError {
		t.Fatalf("time__now failed: %+v", res.Content)
	}
}

func TestMCPEndpointNeedsTheOwnersToken(t *testing.T) {
	_, hs := newTestServer(t, newTestApp(t))
	for _, token := range []string{"", "nope", testClientToken} {
		if cs, err := mcpClient(t, hs.URL, token); err == nil {
			cs.Close()
			t.Fatalf("connected with token %q", token)
		}
	}
}
