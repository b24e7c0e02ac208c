package pluginhost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/toolcall"
)

// The tools Hearth adds for a server that has resources, instead of a
// tool per resource.
const (
	mcpListResources = "list_resources"
	mcpReadResource  = "read_resource"
)

// registerMCP registers the server's tools, its resource tools and its
// prompts; first (a new session) withdraws everything the plugin had and
// sets its manifest. The tools are swapped as one set, so a tool the
// server dropped is gone and one it kept stays callable throughout.
func (p *Process) registerMCP(cs *mcp.ClientSession, first bool) error {
	ctx, cancel := context.WithTimeout(context.Background(), p.opts.HandshakeTimeout)
	defer cancel()
	caps := cs.InitializeResult().Capabilities
	var list []*mcp.Tool
	if caps == nil || caps.Tools != nil {
		for t, err := range cs.Tools(ctx, nil) {
			if err != nil {
				return fmt.Errorf("listing tools: %w", err)
			}
			list = append(list, t)
		}
	}
	if first {
		p.opts.Host.Withdraw(p.name)
		if err := p.opts.Host.SetManifest(p.name, sdk.Manifest{ID: p.name, Name: p.name, Version: "0.0.0"}); err != nil {
			return err
		}
	}
	byName := map[string]*mcp.Tool{}
	names := make([]string, 0, len(list))
	for _, t := range list {
		if _, dup := byName[t.Name]; !dup {
			names = append(names, t.Name)
		}
		byName[t.Name] = t
	}
	local, skipped := mcpToolNames(p.name, names)
	for _, t := range skipped {
		p.log.Warn("MCP tool not registered: its name cannot be made a valid tool name", "tool", t)
	}
	locals := make([]string, 0, len(local))
	for l := range local {
		locals = append(locals, l)
	}
	sort.Strings(locals)
	var defs []sdk.ToolDef
	var hs []sdk.RawToolHandler
	for _, l := range locals {
		t := byName[local[l]]
		defs = append(defs, p.mcpToolDef(l, t))
		hs = append(hs, p.mcpToolHandler(cs, t.Name))
	}
	if caps != nil && caps.Resources != nil {
		rdefs, rhs := p.resourceTools(cs, local)
		defs, hs = append(defs, rdefs...), append(hs, rhs...)
	}
	for _, err := range p.opts.Host.ReplaceRemoteTools(p.name, defs, hs) {
		p.log.Warn("MCP tool not registered", "err", p.mcp.redact(err))
	}
	if caps != nil && caps.Prompts != nil {
		p.listPrompts(cs)
	}
	if caps != nil && caps.Logging != nil {
		if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
			p.log.Debug("setting the MCP server's log level", "err", p.mcp.redact(err))
		}
	}
	p.log.Info("MCP tools registered", "tools", len(locals))
	return nil
}

// mcpToolDef is the Hearth definition of an MCP tool. Its effect is write
// whatever readOnlyHint says (a hint from a third party must never make
// policy looser); an explicit openWorldHint makes it public (it reaches
// beyond the user's machine: a role that may not publish cannot call it),
// and an explicit destructiveHint makes every agent call ask. Every MCP
// tool is untrusted: its result taints the turn.
func (p *Process) mcpToolDef(local string, t *mcp.Tool) sdk.ToolDef {
	def := sdk.ToolDef{
		Name:        local,
		Description: cleanText(t.Description, 4000),
		Parameters:  p.mcpSchema(t),
		Timeout:     p.mcp.timeout(),
		Effect:      sdk.EffectWrite,
		Untrusted:   true,
		Title:       cleanText(t.Title, 200),
	}
	if a := t.Annotations; a != nil {
		if def.Title == "" {
			def.Title = cleanText(a.Title, 200)
		}
		if a.OpenWorldHint != nil && *a.OpenWorldHint {
			def.Effect = sdk.EffectPublic
		}
		if a.DestructiveHint != nil && *a.DestructiveHint && !a.ReadOnlyHint {
			def.AlwaysAsk = true
		}
	}
	if def.Description == "" {
		def.Description = "Tool " + t.Name + " of the MCP server " + p.mcp.name + "."
	}
	return def
}

// mcpSchema returns the tool's inputSchema as Hearth's schema compiler
// accepts it: as given, else without "$schema" (jsonschema-go knows only
// draft 2020-12), else a permissive object schema (the server still
// validates), which is logged.
func (p *Process) mcpSchema(t *mcp.Tool) map[string]any {
	var m map[string]any
	if t.InputSchema != nil {
		b, err := json.Marshal(t.InputSchema)
		if err == nil {
			err = json.Unmarshal(b, &m)
		}
		if err != nil {
			m = nil
		}
	}
	if m == nil {
		return map[string]any{"type": "object"}
	}
	if _, err := toolcall.Compile(m); err == nil {
		return m
	}
	if _, ok := m["$schema"]; ok {
		delete(m, "$schema")
		if _, err := toolcall.Compile(m); err == nil {
			return m
		}
	}
	_, err := toolcall.Compile(m)
	p.log.Warn("MCP tool's input schema not usable; arguments are passed unchecked", "tool", t.Name, "err", err)
	return map[string]any{"type": "object"}
}

// mcpToolHandler calls the server's tool name. The call's context ends
// at its timeout or cancellation, and the SDK then tells the server
// (notifications/cancelled). When the caller listens to progress, the
// call carries a progress token.
func (p *Process) mcpToolHandler(cs *mcp.ClientSession, name string) sdk.RawToolHandler {
	s := p.mcp
	return func(ctx context.Context, tc *sdk.ToolContext, _ map[string]any, raw json.RawMessage) (any, error) {
		// The log level travels with each request in protocol 2026-07-28
		// and later; earlier ones use logging/setLevel (registerMCP).
		params := &mcp.CallToolParams{Name: name, Arguments: mcpArguments(raw), Meta: mcp.Meta{mcp.MetaKeyLogLevel: "info"}}
		if tc != nil && tc.Progress != nil {
			tok, done := s.watchProgress(tc.Progress)
			defer done()
			params.SetProgressToken(tok)
		}
		res, err := cs.CallTool(ctx, params)
		if err != nil {
			return nil, s.callError(err)
		}
		return convertMCPResult(res), nil
	}
}

// mcpArguments returns a call's arguments for the server: the validated
// JSON, or an empty object.
func mcpArguments(raw json.RawMessage) any {
	if len(raw) == 0 || string(raw) == "null" {
		return map[string]any{}
	}
	return raw
}

// callError wraps a failed request; a remote session the server no
// longer knows makes the supervisor reconnect.
func (s *mcpServer) callError(err error) error {
	if errors.Is(err, mcp.ErrSessionMissing) {
		s.signalLost()
	}
	return s.redact(fmt.Errorf("MCP server %s: %w", s.name, err))
}

// resourceTools returns list_resources and read_resource, unless the
// server has tools of those names. They are read tools: on Hearth's side
// they only read what the server offers; like every MCP tool they are
// untrusted.
func (p *Process) resourceTools(cs *mcp.ClientSession, local map[string]string) ([]sdk.ToolDef, []sdk.RawToolHandler) {
	s := p.mcp
	defs := []struct {
		def sdk.ToolDef
		h   sdk.RawToolHandler
	}{{
		def: sdk.ToolDef{Name: mcpListResources, Description: "List the resources (files, documents, records) the MCP server " + s.name +
			" offers: their URIs, names and types, and the URI templates it can fill in. Read one with " + MCPPluginName(s.name) + "__" + mcpReadResource + ".",
			Parameters: map[string]any{"type": "object", "properties": map[string]any{
				"cursor": map[string]any{"type": "string", "description": "the nextCursor of a previous answer, for the next page"}}},
			Effect: sdk.EffectRead, Untrusted: true, Timeout: s.timeout()},
		h: func(ctx context.Context, _ *sdk.ToolContext, _ map[string]any, raw json.RawMessage) (any, error) {
			var in struct {
				Cursor string `json:"cursor"`
			}
			_ = json.Unmarshal(raw, &in)
			res, err := cs.ListResources(ctx, &mcp.ListResourcesParams{Cursor: in.Cursor})
			if err != nil {
				return nil, s.callError(err)
			}
			text := renderResourceList(res)
			if in.Cursor == "" {
				text += resourceTemplates(ctx, cs)
			}
			return &mcpResult{text: text}, nil
		},
	}, {
		def: sdk.ToolDef{Name: mcpReadResource, Description: "Read a resource of the MCP server " + s.name + " by its URI.",
			Parameters: map[string]any{"type": "object", "required": []any{"uri"}, "properties": map[string]any{
				"uri": map[string]any{"type": "string", "description": "the resource's URI, as list_resources gives it"}}},
			Effect: sdk.EffectRead, Untrusted: true, Timeout: s.timeout()},
		h: func(ctx context.Context, _ *sdk.ToolContext, _ map[string]any, raw json.RawMessage) (any, error) {
			var in struct {
				URI string `json:"uri"`
			}
			if err := json.Unmarshal(raw, &in); err != nil {
				return nil, err
			}
			res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: in.URI})
			if err != nil {
				return nil, s.callError(err)
			}
			out := &mcpResult{}
			var parts []string
			for _, c := range res.Contents {
				if c == nil {
					continue
				}
				if strings.HasPrefix(c.MIMEType, "image/") && c.Blob != nil {
					out.images = append(out.images, sdk.Image{MIMEType: c.MIMEType, Data: c.Blob})
				}
				parts = append(parts, renderResourceContents(c))
			}
			out.text = strings.Join(parts, "\n\n")
			return out, nil
		},
	}}
	var out []sdk.ToolDef
	var hs []sdk.RawToolHandler
	for _, d := range defs {
		if _, taken := local[d.def.Name]; taken {
			p.log.Warn("the MCP server has a tool of the name Hearth gives its resource tool; resources are reached through it", "tool", d.def.Name)
			continue
		}
		out, hs = append(out, d.def), append(hs, d.h)
	}
	return out, hs
}

// renderResourceList renders one page of resources, a line each.
func renderResourceList(res *mcp.ListResourcesResult) string {
	var b strings.Builder
	for _, r := range res.Resources {
		fmt.Fprintf(&b, "%s", r.URI)
		if r.Name != "" {
			fmt.Fprintf(&b, " — %s", cleanText(r.Name, 200))
		}
		if r.MIMEType != "" {
			fmt.Fprintf(&b, " (%s)", r.MIMEType)
		}
		if r.Description != "" {
			fmt.Fprintf(&b, ": %s", cleanText(r.Description, 500))
		}
		b.WriteByte('\n')
	}
	if len(res.Resources) == 0 {
		b.WriteString("(no resources)\n")
	}
	if res.NextCursor != "" {
		fmt.Fprintf(&b, "More: call again with cursor %q.\n", res.NextCursor)
	}
	return b.String()
}

// resourceTemplates renders the server's resource templates (first page),
// or "" when it has none or cannot list them.
func resourceTemplates(ctx context.Context, cs *mcp.ClientSession) string {
	res, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil || len(res.ResourceTemplates) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("Templates (fill in the {placeholders} and read the URI):\n")
	for _, t := range res.ResourceTemplates {
		fmt.Fprintf(&b, "%s", t.URITemplate)
		if t.Name != "" {
			fmt.Fprintf(&b, " — %s", cleanText(t.Name, 200))
		}
		if t.Description != "" {
			fmt.Fprintf(&b, ": %s", cleanText(t.Description, 500))
		}
		b.WriteByte('\n')
	}
	return b.String()
}
