package mcpserve

import (
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hearth-agent/hearth/internal/tools"
	"github.com/hearth-agent/hearth/sdk"
)

// mcpTool describes t to MCP clients. Its annotations come from its
// effect (the declared one; a tool that resolves its effect from the
// arguments may do less):
//
//	read          readOnlyHint
//	write         destructiveHint
//	money, public destructiveHint, openWorldHint
//
// and a tool whose results are untrusted (an MCP server's, a remote
// plugin's) is openWorldHint too. No tool is idempotentHint: Hearth does
// not know.
func mcpTool(t *tools.Tool) *mcp.Tool {
	yes, no := true, false
	a := &mcp.ToolAnnotations{Title: t.Def.Title}
	switch t.Def.EffectiveEffect() {
	case sdk.EffectRead:
		a.ReadOnlyHint, a.DestructiveHint, a.OpenWorldHint = true, &no, &no
	case sdk.EffectWrite:
		a.DestructiveHint, a.OpenWorldHint = &yes, &no
	default: // money, public
		a.DestructiveHint, a.OpenWorldHint = &yes, &yes
	}
	if t.Def.Untrusted {
		a.OpenWorldHint = &yes
	}
	return &mcp.Tool{
		Name: t.Name, Title: t.Def.Title, Description: t.Def.Description,
		InputSchema: json.RawMessage(t.Schema), Annotations: a,
	}
}
