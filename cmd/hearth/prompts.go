package main

import (
	"context"

	"github.com/hearth-agent/hearth/internal/channel/terminal"
	"github.com/hearth-agent/hearth/internal/pluginhost"
)

// chatPrompts returns the terminal's prompt hooks over the MCP servers'
// prompts that m runs: /<plugin>:<name> in `hearth chat`.
func chatPrompts(m *pluginhost.Manager) (list func() []terminal.Prompt, get func(ctx context.Context, plugin, name string, args map[string]string) (string, error)) {
	list = func() []terminal.Prompt {
		var out []terminal.Prompt
		for _, p := range m.MCPPrompts() {
			tp := terminal.Prompt{Plugin: p.Plugin, Name: p.Name, Title: p.Title, Description: p.Description}
			for _, a := range p.Arguments {
				tp.Arguments = append(tp.Arguments, terminal.PromptArgument{Name: a.Name, Description: a.Description, Required: a.Required})
			}
			out = append(out, tp)
		}
		return out
	}
	return list, m.GetMCPPrompt
}
