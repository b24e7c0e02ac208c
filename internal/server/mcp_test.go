package server

import (
	"context"
	"net/http"
	"sync/atomic"
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
	return mcpClientWith(t, url, token, nil)
}

func mcpClientWith(t *testing.T, url, token string, opts *mcp.ClientOptions) (*mcp.ClientSession, error) {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "test"}, opts)
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

// A plugin that starts while a client is connected is announced
// (tools/list_changed on the session's stream), and a call that needs
// approval is asked through the client's elicitation.
func TestMCPEndpointListChangedAndElicitation(t *testing.T) {
	a := newTestApp(t)
	_, hs := newTestServer(t, a)
	changed := make(chan struct{}, 10)
	var asked atomic.Int32
	cs, err := mcpClientWith(t, hs.URL, testToken, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked.Add(1)
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"allow": true}}, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if _, err := cs.ListTools(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	var bought atomic.Int32
	if err := a.Kernel.LoadPlugin("shop", shop(&bought), nil); err != nil {
		t.Fatal(err)
	}
	<-changed
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "shop__buy", Arguments: map[string]any{"item": "tea"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || asked.Load() != 1 || bought.Load() != 1 {
		t.Fatalf("buy: %+v, asked %d, bought %d", res.Content, asked.Load(), bought.Load())
	}
}
