package mcpserve

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hearth-agent/hearth/internal/kernel"
)

// BenchmarkCallTool is one tools/call of a read tool through the MCP
// server (in-memory transport) against the same call made on the kernel
// directly: the difference is what the MCP layer costs.
func BenchmarkCallTool(b *testing.B) {
	b.Run("kernel", func(b *testing.B) {
		e := newEnv(b)
		ctx := context.Background()
		for b.Loop() {
			if _, err := e.k.CallTool(ctx, kernel.DirectCall{Requester: Owner, Tool: "shop__echo", Arguments: []byte(`{"text":"hi"}`)}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("mcp", func(b *testing.B) {
		e := newEnv(b)
		cs := e.connect(b, nil)
		ctx := context.Background()
		params := &mcp.CallToolParams{Name: "shop__echo", Arguments: map[string]any{"text": "hi"}}
		for b.Loop() {
			if _, err := cs.CallTool(ctx, params); err != nil {
				b.Fatal(err)
			}
		}
	})
}
