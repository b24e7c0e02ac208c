package remote

import (
	"context"
	"fmt"
	"net/http"
	"net/url"

	"github.com/hearth-agent/hearth/internal/channel/terminal"
)

// wirePrompt is the contract's Prompt (GET /v1/prompts).
type wirePrompt struct {
	Plugin      string `json:"plugin"`
	Name        string `json:"name"`
	Title       string `json:"title"`
	Description string `json:"description"`
	Arguments   []struct {
		Name        string `json:"name"`
		Description string `json:"description"`
		Required    bool   `json:"required"`
	} `json:"arguments"`
}

// Prompts returns the prompts of the daemon's MCP servers (GET
// /v1/prompts), as the terminal offers them: /<plugin>:<name>.
func (a *Agent) Prompts(ctx context.Context) ([]terminal.Prompt, error) {
	var body struct {
		Prompts []wirePrompt `json:"prompts"`
	}
	if err := a.send(ctx, http.MethodGet, "/v1/prompts", nil, &body); err != nil {
		return nil, fmt.Errorf("listing prompts: %w", err)
	}
	out := make([]terminal.Prompt, 0, len(body.Prompts))
	for _, p := range body.Prompts {
		tp := terminal.Prompt{Plugin: p.Plugin, Name: p.Name, Title: p.Title, Description: p.Description}
		for _, arg := range p.Arguments {
			tp.Arguments = append(tp.Arguments, terminal.PromptArgument{Name: arg.Name, Description: arg.Description, Required: arg.Required})
		}
		out = append(out, tp)
	}
	return out, nil
}

// GetPrompt returns the text of plugin's prompt name with args (POST
// /v1/prompts/{plugin}/{name}); it sends nothing to the agent.
func (a *Agent) GetPrompt(ctx context.Context, plugin, name string, args map[string]string) (string, error) {
	if args == nil {
		args = map[string]string{}
	}
	in := struct {
		Arguments map[string]string `json:"arguments"`
	}{args}
	var out struct {
		Text string `json:"text"`
	}
	path := "/v1/prompts/" + url.PathEscape(plugin) + "/" + url.PathEscape(name)
	if err := a.send(ctx, http.MethodPost, path, in, &out); err != nil {
		return "", err
	}
	return out.Text, nil
}
