package main

import (
	"context"
	"fmt"
	"io"
)

// runMCPLogin runs `hearth mcp login NAME`: the OAuth flow of a remote MCP
// server.
//
// Not implemented yet: it says so and fails.
func runMCPLogin(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "hearth mcp login: not implemented yet")
	return 1
}
