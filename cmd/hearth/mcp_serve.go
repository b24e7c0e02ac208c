package main

import (
	"context"
	"fmt"
	"io"
)

// runMCPServe runs `hearth mcp serve`: Hearth's tools offered to an MCP
// client.
//
// Not implemented yet: it says so and fails.
func runMCPServe(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "hearth mcp serve: not implemented yet")
	return 1
}
