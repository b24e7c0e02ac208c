package xbot

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
)

// MustActivate calls p.Activate and panics if it fails.
func MustActivate(p Plugin, ctx PluginContext) {
	if err := p.Activate(ctx); err != nil {
		panic(fmt.Sprintf("xbot plugin %s: activate: %v", p.Manifest().ID, err))
	}
}

// DenyHook is a hook that always denies with msg.
func DenyHook(msg string) HookHandler {
	return func(context.Context, *HookPayload) (*HookResult, error) {
		return &HookResult{Decision: DecisionDeny, Message: msg}, nil
	}
}

// AllowHook is a hook that always allows (leaves the policy to decide).
func AllowHook() HookHandler {
	return func(context.Context, *HookPayload) (*HookResult, error) {
		return &HookResult{Decision: DecisionAllow}, nil
	}
}

// LogHook is a hook that logs msg with the event's name and allows.
func LogHook(logger Logger, msg string) HookHandler {
	return func(_ context.Context, p *HookPayload) (*HookResult, error) {
		logger.Info(msg, Field{Key: "event", Value: string(p.Event)})
		return &HookResult{Decision: DecisionAllow}, nil
	}
}

// StaticEnricher always adds content.
func StaticEnricher(content string) ContextEnricher {
	return func(context.Context) (string, error) { return content, nil }
}

// FileEnricher adds the file's content, read before each turn.
func FileEnricher(path string) ContextEnricher {
	return func(context.Context) (string, error) {
		b, err := os.ReadFile(path)
		if err != nil {
			return "", fmt.Errorf("reading enricher file: %w", err)
		}
		return string(b), nil
	}
}

// ManifestOption changes a manifest QuickManifest builds.
type ManifestOption func(*PluginManifest)

// QuickManifest returns a native manifest activated on start, changed by
// opts.
func QuickManifest(id, name, version, description string, opts ...ManifestOption) PluginManifest {
	m := PluginManifest{ID: id, Name: name, Version: version, Description: description,
		Runtime: RuntimeNative, ActivationEvents: []string{"onStart"}}
	for _, o := range opts {
		o(&m)
	}
	return m
}

// WithPermissions adds permissions.
func WithPermissions(perms ...string) ManifestOption {
	return func(m *PluginManifest) { m.Permissions = append(m.Permissions, perms...) }
}

// WithActivationEvents replaces the activation events.
func WithActivationEvents(events ...string) ManifestOption {
	return func(m *PluginManifest) { m.ActivationEvents = events }
}

// WithRuntime sets the runtime.
func WithRuntime(rt RuntimeType) ManifestOption {
	return func(m *PluginManifest) { m.Runtime = rt }
}

// WithTools adds tool contributions.
func WithTools(tools ...ToolContribution) ManifestOption {
	return func(m *PluginManifest) { contributes(m).Tools = append(contributes(m).Tools, tools...) }
}

// WithHooks adds hook contributions.
func WithHooks(hooks ...HookContribution) ManifestOption {
	return func(m *PluginManifest) { contributes(m).Hooks = append(contributes(m).Hooks, hooks...) }
}

// WithEnrichers adds enricher contributions.
func WithEnrichers(enrichers ...EnricherContribution) ManifestOption {
	return func(m *PluginManifest) {
		contributes(m).ContextEnrichers = append(contributes(m).ContextEnrichers, enrichers...)
	}
}

func contributes(m *PluginManifest) *PluginContributes {
	if m.Contributes == nil {
		m.Contributes = &PluginContributes{}
	}
	return m.Contributes
}

// SchemaBuilder builds a parameter list for ToolDef.Parameters.
type SchemaBuilder struct{ params []ToolParam }

// NewSchemaBuilder starts an empty list.
func NewSchemaBuilder() *SchemaBuilder { return &SchemaBuilder{params: []ToolParam{}} }

func (b *SchemaBuilder) add(typ, name, desc string, required bool) *SchemaBuilder {
	b.params = append(b.params, ToolParam{Name: name, Type: typ, Description: desc, Required: required})
	return b
}

// AddStringParam adds a string parameter.
func (b *SchemaBuilder) AddStringParam(name, desc string, required bool) *SchemaBuilder {
	return b.add("string", name, desc, required)
}

// AddNumberParam adds a number parameter.
func (b *SchemaBuilder) AddNumberParam(name, desc string, required bool) *SchemaBuilder {
	return b.add("number", name, desc, required)
}

// AddBoolParam adds a boolean parameter.
func (b *SchemaBuilder) AddBoolParam(name, desc string, required bool) *SchemaBuilder {
	return b.add("boolean", name, desc, required)
}

// AddArrayParam adds an array parameter (of strings, unless its Items
// are set afterwards).
func (b *SchemaBuilder) AddArrayParam(name, desc string, required bool) *SchemaBuilder {
	return b.add("array", name, desc, required)
}

// Build returns the list.
func (b *SchemaBuilder) Build() []ToolParam { return b.params }

// FormatJSON returns v as indented JSON, or "<error: ...>".
func FormatJSON(v any) string {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Sprintf("<error: %v>", err)
	}
	return string(b)
}

// ErrPluginActivationFailed is the error of a plugin whose Activate
// failed, as Adapt's Start returns it.
type ErrPluginActivationFailed struct {
	PluginID string
	Err      error
}

// Error says which plugin failed and why.
func (e *ErrPluginActivationFailed) Error() string {
	return fmt.Sprintf("xbot plugin %s: activation failed: %v", e.PluginID, e.Err)
}

// Unwrap returns the cause.
func (e *ErrPluginActivationFailed) Unwrap() error { return e.Err }
