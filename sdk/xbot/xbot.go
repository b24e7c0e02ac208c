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
	"fmt"

	"github.com/hearth-agent/hearth/sdk"
)

// ToolParam is one parameter of a ToolDef, as xbot's llm.ToolParam.
type ToolParam struct {
	Name        string          `json:"name"`
	Type        string          `json:"type"`
	Description string          `json:"description"`
	Required    bool            `json:"required"`
	Items       *ToolParamItems `json:"items,omitempty"` // element type of an array
}

// ToolParamItems is the element type of an array parameter (a JSON Schema
// fragment), as xbot's llm.ToolParamItems.
type ToolParamItems struct {
	Type                 string          `json:"type"`
	Properties           map[string]any  `json:"properties,omitempty"`
	Required             []string        `json:"required,omitempty"`
	Items                *ToolParamItems `json:"items,omitempty"`
	Description          string          `json:"description,omitempty"`
	AdditionalProperties any             `json:"additionalProperties,omitempty"`
}

// ToolDef describes a tool, in xbot's shape: Parameters is the parameter
// list; InputSchema, when set (BuildToolDef sets it), is the whole JSON
// Schema and wins over the list.
type ToolDef struct {
	Name        string         `json:"name"`
	Description string         `json:"description"`
	Parameters  []ToolParam    `json:"parameters"`
	Version     string         `json:"version,omitempty"`
	InputSchema map[string]any `json:"input_schema,omitempty"`
}

// ToJSONSchema returns the definition in OpenAI's function-calling shape
// ({"type": "function", "function": {...}}), as xbot's does.
func (td ToolDef) ToJSONSchema() map[string]any {
	fn := map[string]any{"name": td.Name, "description": td.Description, "parameters": td.Schema()}
	if td.Version != "" {
		fn["version"] = td.Version
	}
	return map[string]any{"type": "function", "function": fn}
}

// Schema returns the JSON Schema of the tool's input: InputSchema when
// set, else one built from Parameters (an array without Items gets string
// items, which strict providers require).
func (td ToolDef) Schema() map[string]any {
	if td.InputSchema != nil {
		return td.InputSchema
	}
	props := make(map[string]any, len(td.Parameters))
	var required []string
	for _, p := range td.Parameters {
		typ := p.Type
		if typ == "" {
			typ = "string"
		}
		s := map[string]any{"type": typ}
		if p.Description != "" {
			s["description"] = p.Description
		}
		switch {
		case p.Items != nil:
			s["items"] = itemsSchema(p.Items)
		case typ == "array":
			s["items"] = map[string]any{"type": "string"}
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

func itemsSchema(it *ToolParamItems) map[string]any {
	s := map[string]any{"type": it.Type}
	if it.Properties != nil {
		s["properties"] = it.Properties
	}
	if len(it.Required) > 0 {
		s["required"] = it.Required
	}
	if it.Items != nil {
		s["items"] = itemsSchema(it.Items)
	}
	if it.Description != "" {
		s["description"] = it.Description
	}
	if it.AdditionalProperties != nil {
		s["additionalProperties"] = it.AdditionalProperties
	}
	return s
}

// ToolParamDef is one parameter for BuildToolDef.
type ToolParamDef struct {
	Name        string
	Type        string // string, number, integer, boolean, array, object
	Description string
	Required    bool
	// Items is the element schema of an array (a Hearth addition); an
	// array without it has string items.
	Items map[string]any
}

// BuildToolDef builds a ToolDef with both the parameter list and the JSON
// Schema (InputSchema), as xbot's does. A parameter is required only when
// Required is set, as in xbot.
func BuildToolDef(name, description string, params ...ToolParamDef) ToolDef {
	list := make([]ToolParam, 0, len(params))
	for _, p := range params {
		list = append(list, ToolParam{Name: p.Name, Type: p.Type, Description: p.Description, Required: p.Required})
	}
	return ToolDef{Name: name, Description: description, Parameters: list, InputSchema: ToJSONSchema(params)}
}

// ToJSONSchema turns a ToolParamDef list into an object schema (what
// BuildToolDef puts in InputSchema).
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

// ToolCallContext is the call's session metadata. xbot's fields come
// first; the rest are Hearth's additions.
type ToolCallContext struct {
	SessionID string
	Channel   string // the channel the turn came from (terminal, web, qq...)
	ChatID    string
	UserID    string // xbot's sender
	// TenantID stands for xbot's tenant, one per channel and chat: a
	// stable positive number derived from Channel and ChatID (see
	// TenantOf); 0 when both are empty.
	TenantID int64
	// Ctx carries the call's cancellation and deadline.
	Ctx context.Context

	Input   string // the raw JSON arguments
	CallID  string
	GroupID string
	Actor   sdk.Actor
	Tainted bool
	Plugin  string
}

// PluginToolV2 is xbot's tool with the call's context: the host calls
// ExecuteWithContext instead of Execute.
type PluginToolV2 interface {
	PluginTool
	ExecuteWithContext(ctx *ToolCallContext, input string) (*ToolResult, error)
}

// ContextTool is the seed document's form of PluginToolV2 (ExecuteV2 with
// a ToolCallContext value). Such tools are detected as PluginToolV2 tools
// are; PluginToolV2 wins when a tool has both.
type ContextTool interface {
	PluginTool
	ExecuteV2(ctx context.Context, tc ToolCallContext) (*ToolResult, error)
}

// SimplePluginTool is a PluginTool from a definition and a function:
// ExecV2Fn, when set, gets the call's context, else ExecFn runs.
type SimplePluginTool struct {
	Def      ToolDef
	ExecFn   func(ctx context.Context, input string) (*ToolResult, error)
	ExecV2Fn func(ctx *ToolCallContext, input string) (*ToolResult, error)
}

// Definition returns Def.
func (t *SimplePluginTool) Definition() ToolDef { return t.Def }

// Execute calls ExecFn; without one the result is an error result.
func (t *SimplePluginTool) Execute(ctx context.Context, input string) (*ToolResult, error) {
	if t.ExecFn == nil {
		return NewToolError("tool execution function not set"), nil
	}
	return t.ExecFn(ctx, input)
}

// ExecuteWithContext calls ExecV2Fn when set, else ExecFn.
func (t *SimplePluginTool) ExecuteWithContext(tc *ToolCallContext, input string) (*ToolResult, error) {
	if t.ExecV2Fn != nil {
		return t.ExecV2Fn(tc, input)
	}
	ctx := context.Background()
	if tc != nil && tc.Ctx != nil {
		ctx = tc.Ctx
	}
	return t.Execute(ctx, input)
}

// ToolFromFunc makes a tool whose function gets the raw input and returns
// text. Its input is free-form (an object with any fields).
func ToolFromFunc(name, description string, fn func(ctx context.Context, input string) (string, error)) PluginTool {
	return &SimplePluginTool{
		Def: ToolDef{Name: name, Description: description, InputSchema: map[string]any{"type": "object"}},
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
