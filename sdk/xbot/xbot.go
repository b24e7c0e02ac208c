// Package xbot carries xbot's Go tool API onto Hearth, so xbot plugin code
// ports by changing its import from xbot's "plugin" package to this one:
// PluginTool, SimplePluginTool, BuildToolDef and ToolParamDef, ToolFromFunc,
// ToolFromJSONFunc, PluginToolV2 with ToolCallContext, ToolResult with its
// constructors and formatters, and channel-scoped tools.
//
//	pctx := xbot.NewContext(s) // s is the *sdk.PluginSDK from Start
//	pctx.RegisterTool(&xbot.SimplePluginTool{
//		Def: xbot.BuildToolDef("hello", "Greet someone by name.",
//			xbot.ToolParamDef{Name: "name", Type: "string", Description: "The person to greet"}),
//		ExecFn: func(ctx context.Context, input string) (*xbot.ToolResult, error) {
//			name, err := xbot.ParseToolInputString(input, "name")
//			if err != nil {
//				name = "World"
//			}
//			return xbot.NewToolResult("Hello, " + name + "!"), nil
//		},
//	})
//
// Tool names are namespaced as every Hearth tool is (<plugin>__hello), so
// an xbot tool can no longer shadow another plugin's.
package xbot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/hearth-agent/hearth/sdk"
)

// ToolDef describes a tool (xbot's shape).
type ToolDef struct {
	Name        string
	Description string
	// Parameters is the JSON Schema of the input.
	Parameters map[string]any
}

// ToolParamDef is one parameter for BuildToolDef.
type ToolParamDef struct {
	Name        string
	Type        string // string, number, integer, boolean, array, object
	Description string
	Required    bool
	Items       map[string]any // for arrays; default string items
}

// BuildToolDef builds a ToolDef whose schema lists params. Unlike xbot,
// where every parameter is optional unless marked, a parameter is required
// only when Required is set.
func BuildToolDef(name, description string, params ...ToolParamDef) ToolDef {
	return ToolDef{Name: name, Description: description, Parameters: ToJSONSchema(params)}
}

// ToJSONSchema turns a parameter list into an object schema.
func ToJSONSchema(params []ToolParamDef) map[string]any {
	props := map[string]any{}
	var required []string
	for _, p := range params {
		typ := p.Type
		if typ == "" {
			typ = "string"
		}
		s := map[string]any{"type": typ}
		if p.Description != "" {
			s["description"] = p.Description
		}
		if typ == "array" {
			if p.Items != nil {
				s["items"] = p.Items
			} else {
				s["items"] = map[string]any{"type": "string"}
			}
		}
		props[p.Name] = s
		if p.Required {
			required = append(required, p.Name)
		}
	}
	schema := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		schema["required"] = required
	}
	return schema
}

// PluginTool is an xbot tool: a definition and Execute with the raw JSON
// input.
type PluginTool interface {
	// Definition describes the tool to the model.
	Definition() ToolDef
	// Execute runs a call; input is the arguments as JSON text.
	Execute(ctx context.Context, input string) (*ToolResult, error)
}

// ToolCallContext is what PluginToolV2 receives: the call's session
// metadata.
type ToolCallContext struct {
	Input     string // the raw JSON arguments
	CallID    string
	SessionID string
	Channel   string
	ChatID    string
	UserID    string // xbot's sender
	GroupID   string
	Actor     sdk.Actor
	Tainted   bool
	Plugin    string
}

// PluginToolV2 tools get the full ToolCallContext; they are detected
// automatically, with Execute as the fallback for the others.
type PluginToolV2 interface {
	PluginTool
	ExecuteV2(ctx context.Context, tc ToolCallContext) (*ToolResult, error)
}

// SimplePluginTool is a PluginTool from a definition and a function.
type SimplePluginTool struct {
	Def    ToolDef
	ExecFn func(ctx context.Context, input string) (*ToolResult, error)
}

// Definition returns Def.
func (t *SimplePluginTool) Definition() ToolDef { return t.Def }

// Execute calls ExecFn.
func (t *SimplePluginTool) Execute(ctx context.Context, input string) (*ToolResult, error) {
	if t.ExecFn == nil {
		return nil, errors.New("tool has no ExecFn")
	}
	return t.ExecFn(ctx, input)
}

// ToolFromFunc makes a tool whose function gets the raw input and returns
// text. Its input is free-form (an object with any fields).
func ToolFromFunc(name, description string, fn func(ctx context.Context, input string) (string, error)) PluginTool {
	return &SimplePluginTool{
		Def: ToolDef{Name: name, Description: description, Parameters: map[string]any{"type": "object"}},
		ExecFn: func(ctx context.Context, input string) (*ToolResult, error) {
			out, err := fn(ctx, input)
			if err != nil {
				return nil, err
			}
			return NewToolResult(out), nil
		},
	}
}

// ToolFromJSONFunc makes a tool with the given parameters whose function
// returns any value, encoded as JSON for the model.
func ToolFromJSONFunc(name, description string, params []ToolParamDef, fn func(ctx context.Context, input json.RawMessage) (any, error)) PluginTool {
	return &SimplePluginTool{
		Def: BuildToolDef(name, description, params...),
		ExecFn: func(ctx context.Context, input string) (*ToolResult, error) {
			v, err := fn(ctx, json.RawMessage(input))
			if err != nil {
				return nil, err
			}
			b, err := json.Marshal(v)
			if err != nil {
				return nil, fmt.Errorf("encoding the result: %w", err)
			}
			return NewToolResult(string(b)), nil
		},
	}
}

// ParseToolInputString returns the string field key of a JSON input.
func ParseToolInputString(input, key string) (string, error) {
	var m map[string]any
	if err := json.Unmarshal([]byte(input), &m); err != nil {
		return "", fmt.Errorf("input is not a JSON object: %w", err)
	}
	s, ok := m[key].(string)
	if !ok {
		return "", fmt.Errorf("input has no string %q", key)
	}
	return s, nil
}

// ToolResult is a tool's structured output: the text for the model, an
// error flag, and metadata for renderers (a diff, a kind) that the model
// does not see.
type ToolResult struct {
	Content  string
	Error    bool
	Metadata map[string]string
}

// NewToolResult returns a successful result.
func NewToolResult(content string) *ToolResult { return &ToolResult{Content: content} }

// NewToolError returns a failed result; the model reads content.
func NewToolError(content string) *ToolResult { return &ToolResult{Content: content, Error: true} }

// IsError reports whether the result is a failure.
func (r *ToolResult) IsError() bool { return r != nil && r.Error }

// Text is the content the model reads.
func (r *ToolResult) Text() string {
	if r == nil {
		return ""
	}
	return r.Content
}

// ResultMetadata is the metadata for renderers.
func (r *ToolResult) ResultMetadata() map[string]string {
	if r == nil {
		return nil
	}
	return r.Metadata
}

// ResultBuilder builds a ToolResult.
type ResultBuilder struct{ r ToolResult }

// NewResultBuilder starts a result.
func NewResultBuilder() *ResultBuilder { return &ResultBuilder{} }

// Content sets the text.
func (b *ResultBuilder) Content(s string) *ResultBuilder { b.r.Content = s; return b }

// Metadata adds one metadata entry.
func (b *ResultBuilder) Metadata(key, value string) *ResultBuilder {
	if b.r.Metadata == nil {
		b.r.Metadata = map[string]string{}
	}
	b.r.Metadata[key] = value
	return b
}

// Error marks the result as a failure.
func (b *ResultBuilder) Error() *ResultBuilder { b.r.Error = true; return b }

// Build returns the result.
func (b *ResultBuilder) Build() *ToolResult { r := b.r; return &r }

// FormatToolResult renders a title and fields as "Title\nkey: value" lines,
// keys sorted, so output is deterministic.
func FormatToolResult(title string, fields map[string]string) string {
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString(title)
	for _, k := range keys {
		fmt.Fprintf(&b, "\n%s: %s", k, fields[k])
	}
	return b.String()
}

// FormatListResult numbers items ("1. alpha\n2. beta"); an empty list is
// "(no items)".
func FormatListResult(items []string) string {
	if len(items) == 0 {
		return "(no items)"
	}
	var b strings.Builder
	for i, it := range items {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "%d. %s", i+1, it)
	}
	return b.String()
}

// Context registers xbot tools on a Hearth plugin.
type Context struct{ s *sdk.PluginSDK }

// NewContext wraps the PluginSDK a plugin receives in Start.
func NewContext(s *sdk.PluginSDK) *Context { return &Context{s: s} }

// RegisterTool registers a tool offered in every channel.
func (c *Context) RegisterTool(t PluginTool) error { return c.register(t, nil) }

// RegisterForChannel registers a tool offered only in sessions of the
// given channel (web, qq, ...). A channel's tools are merged with the
// global ones in name order.
func (c *Context) RegisterForChannel(channel string, t PluginTool) error {
	if channel == "" {
		return errors.New("xbot: RegisterForChannel needs a channel")
	}
	return c.register(t, []string{channel})
}

func (c *Context) register(t PluginTool, channels []string) error {
	def := t.Definition()
	v2, isV2 := t.(PluginToolV2)
	return c.s.RegisterRawTool(def.Name, sdk.ToolDef{
		Name: def.Name, Description: def.Description, Parameters: def.Parameters, Channels: channels,
	}, func(ctx context.Context, tc *sdk.ToolContext, _ map[string]any, raw json.RawMessage) (any, error) {
		var res *ToolResult
		var err error
		if isV2 {
			cc := ToolCallContext{Input: string(raw)}
			if tc != nil {
				cc.CallID, cc.Channel, cc.ChatID, cc.UserID, cc.GroupID = tc.CallID, tc.Channel, tc.ChatID, tc.UserID, tc.GroupID
				cc.Actor, cc.Plugin = tc.Actor, tc.PluginID
				if tc.Turn != nil {
					cc.SessionID, cc.Tainted = tc.Turn.SessionID, tc.Turn.Tainted
				}
			}
			res, err = v2.ExecuteV2(ctx, cc)
		} else {
			res, err = t.Execute(ctx, string(raw))
		}
		if err != nil {
			return nil, err
		}
		if res == nil {
			res = NewToolResult("")
		}
		return res, nil
	})
}
