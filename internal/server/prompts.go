package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/hearth-agent/hearth/internal/channel/terminal"
	"github.com/hearth-agent/hearth/internal/pluginhost"
)

// PromptSource is where the prompt routes get prompts: the MCP servers'
// (*pluginhost.Manager).
type PromptSource interface {
	// MCPPrompts returns every prompt of the running MCP servers.
	MCPPrompts() []pluginhost.MCPPrompt
	// GetMCPPrompt returns the text of plugin's prompt name with args.
	GetMCPPrompt(ctx context.Context, plugin, name string, args map[string]string) (string, error)
}

var _ PromptSource = (*pluginhost.Manager)(nil)

// Prompt is one prompt as GET /v1/prompts shows it; chat offers it as the
// command /<plugin>:<name>.
type Prompt struct {
	Plugin      string           `json:"plugin"` // mcp-<server>
	Name        string           `json:"name"`
	Title       string           `json:"title,omitempty"`
	Description string           `json:"description,omitempty"`
	Arguments   []PromptArgument `json:"arguments"`
}

// PromptArgument is one argument of a Prompt, in declared order.
type PromptArgument struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required"`
}

// PromptList is GET /v1/prompts's answer.
type PromptList struct {
	Prompts []Prompt `json:"prompts"`
}

// PromptRequest is the body of POST /v1/prompts/{plugin}/{name}.
type PromptRequest struct {
	Arguments map[string]string `json:"arguments"`
}

// PromptText is the answer of POST /v1/prompts/{plugin}/{name}: the
// text to send as the user's message.
type PromptText struct {
	Text string `json:"text"`
}

func (s *Server) promptRoutes() []route {
	return []route{
		{method: "GET", path: "/v1/prompts", summary: "The prompts of the running MCP servers, offered in chat as /<plugin>:<name>.",
			out: PromptList{}, h: s.listPrompts},
		{method: "POST", path: "/v1/prompts/{plugin}/{name}", summary: "A prompt's text with arguments, to send as the user's message.",
			in: PromptRequest{}, out: PromptText{}, h: s.getPrompt},
	}
}

// prompts is the prompt source: Options.Prompts, else the app's plugin
// manager; nil when there is none.
func (s *Server) prompts() PromptSource {
	if s.opts.Prompts != nil {
		return s.opts.Prompts
	}
	if s.app.Plugins != nil {
		return s.app.Plugins
	}
	return nil
}

func (s *Server) listPrompts(w http.ResponseWriter, r *http.Request) {
	list := []Prompt{}
	if src := s.prompts(); src != nil {
		for _, p := range src.MCPPrompts() {
			list = append(list, wirePrompt(p))
		}
	}
	writeJSON(w, http.StatusOK, PromptList{Prompts: list})
}

func wirePrompt(p pluginhost.MCPPrompt) Prompt {
	out := Prompt{Plugin: p.Plugin, Name: p.Name, Title: p.Title, Description: p.Description, Arguments: []PromptArgument{}}
	for _, a := range p.Arguments {
		out.Arguments = append(out.Arguments, PromptArgument{Name: a.Name, Description: a.Description, Required: a.Required})
	}
	return out
}

func (s *Server) getPrompt(w http.ResponseWriter, r *http.Request) {
	var req PromptRequest
	if !decodeJSON(w, r, &req) {
		return
	}
	plugin, name := r.PathValue("plugin"), r.PathValue("name")
	src := s.prompts()
	var p *pluginhost.MCPPrompt
	if src != nil {
		for _, q := range src.MCPPrompts() {
			if q.Plugin == plugin && q.Name == name {
				p = &q
				break
			}
		}
	}
	if p == nil {
		writeError(w, http.StatusNotFound, "no_prompt", fmt.Sprintf("no prompt %q of %q", name, plugin))
		return
	}
	fields := map[string]string{}
	declared := map[string]bool{}
	for _, a := range p.Arguments {
		declared[a.Name] = true
		if a.Required && strings.TrimSpace(req.Arguments[a.Name]) == "" {
			fields[a.Name] = "required"
		}
	}
	for k := range req.Arguments {
		if !declared[k] {
			fields[k] = "not an argument of this prompt"
		}
	}
	if len(fields) > 0 {
		writeFieldErrors(w, "invalid prompt arguments", fields)
		return
	}
	if req.Arguments == nil {
		req.Arguments = map[string]string{}
	}
	text, err := src.GetMCPPrompt(r.Context(), plugin, name, req.Arguments)
	switch {
	case errors.Is(err, pluginhost.ErrMCPNotRunning):
		writeError(w, http.StatusServiceUnavailable, "not_running", fmt.Sprintf("the MCP server of %s is not running now", plugin))
	case err != nil:
		// The MCP server's own words, which may echo what it was given:
		// masked like a plugin's stderr.
		writeError(w, http.StatusBadGateway, "prompt_failed", terminal.SanitizeLine(s.stderrMask()(fmt.Sprintf("prompt %s of %s: %v", name, plugin, err))))
	default:
		writeJSON(w, http.StatusOK, PromptText{Text: text})
	}
}
