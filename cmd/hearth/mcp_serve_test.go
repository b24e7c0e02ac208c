//go:build unix

package main

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpStdio runs `hearth mcp serve` on home as an MCP client launches it,
// and returns the client's session.
func mcpStdio(t *testing.T, home string) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command(os.Args[0], "mcp", "serve")
	cmd.Env = []string{"HEARTH_TEST_MAIN=1", "PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "HEARTH_HOME=" + home}
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	c := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	t.Cleanup(func() {
		cs.Close()
		if t.Failed() {
			t.Logf("hearth mcp serve's stderr:\n%s", stderr.String())
		}
	})
	return cs
}

// checkMCPTools lists the tools and calls time__now.
func checkMCPTools(t *testing.T, cs *mcp.ClientSession) {
	t.Helper()
	ctx := context.Background()
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, tool := range list.Tools {
		found = found || tool.Name == "time__now"
	}
	if !found {
		t.Fatalf("time__now not among %d tools", len(list.Tools))
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "time__now"})
	if err != nil {
		t.Fatal(err)
	}
	text := ""
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text += tc.Text
		}
	}
	if res.IsError || !strings.Contains(text, "20") {
		t.Fatalf("time__now: %q (error %v)", text, res.IsError)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "nothing__here"}); err == nil {
		t.Fatal("an unknown tool was called")
	}
}

func TestMCPServeOverStdio(t *testing.T) {
	checkMCPTools(t, mcpStdio(t, t.TempDir()))
}

func TestMCPServeBridgesToTheDaemon(t *testing.T) {
	home := t.TempDir()
	startServe(t, home, nil)
	checkMCPTools(t, mcpStdio(t, home))
}
