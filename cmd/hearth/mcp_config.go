package main

import (
	"context"
	"fmt"

	"github.com/hearth-agent/hearth/internal/app"
)

// runMCPConfig runs `hearth mcp add|list|remove ...` on a.
//
// Not implemented yet: it says so and fails.
func runMCPConfig(ctx context.Context, a *app.App, args []string, cio *cmdIO) int {
	fmt.Fprintln(cio.err, "hearth mcp: not implemented yet")
	return 1
}
