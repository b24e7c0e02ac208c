// Package xbot is xbot's Go plugin API on Hearth: xbot's own Go plugins
// (its "xbot/plugin" package) compile with only the import line changed,
//
//	import plugin "github.com/hearth-agent/hearth/sdk/xbot"
//
// and run compiled in or as a child process through Adapt:
//
//	sdk.RegisterFactory("hello-world", xbot.Adapt(helloworld.New()))
//	pluginrpc.Serve(xbot.Adapt(helloworld.New())) // or as a child process
//
// Adapt calls the plugin's Activate with a PluginContext (a *Context) on
// Start and Deactivate on Stop. On Hearth:
//
//   - tools (PluginTool, PluginToolV2's ExecuteWithContext,
//     SimplePluginTool, ToolFromFunc, ToolFromJSONFunc) are Hearth tools
//     named <plugin>__<tool>, under Hearth's policy like every tool;
//   - OnPreToolUse is a decision hook: DecisionDeny refuses, DecisionAsk
//     asks the user, DecisionAllow and DecisionDefer leave the policy to
//     decide (a hook never allows what the policy refused), and a hook
//     that fails refuses the call;
//   - OnPostToolUse and OnError run at after_toolcall, OnUserPrompt at
//     on_input (a Deny answers with its message), OnAgentStop at
//     after_output; the other events are refused with ErrNotSupported;
//     hooks see the name the tool's plugin registered (HookPayload.ToolName)
//     and match it, or the model's name, against the matcher;
//   - EnrichContext adds text to the system message of every turn;
//   - Storage() is kept in the plugin's Hearth KV, Logger() writes to the
//     plugin's Hearth log, ToolCallContext.TenantID is TenantOf the turn's
//     channel and chat;
//   - widgets are rendered on UpdateWidget (RenderedWidget) and shown in
//     the web UI (widgets.go);
//     middleware, cron, commands, themes, overlays and channel providers
//     are refused with ErrNotSupported.
//
// The seed document's forms work too: NewContext(s) gives a plugin's Start
// the same *Context (with RegisterForChannel for channel-scoped tools),
// and a tool with ExecuteV2 (ContextTool) gets the ToolCallContext. Where
// xbot's code and the seed document differ, xbot's code wins:
// ToolResult.IsError is a field (Go cannot have a method of that name
// beside it), FormatToolResult and FormatListResult return a *ToolResult
// (which prints as its text), and ToolDef.Parameters is a parameter list,
// with the JSON Schema in InputSchema. A ToolParamDef is required only
// when Required is set, as in xbot.
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
