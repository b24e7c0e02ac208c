package sdk

import (
	"context"
	"encoding/json"
	"time"
)

// ToolDef describes a tool to the model. Parameters is a JSON Schema for
// the tool's arguments; the host validates every call against it before
// the handler runs, so a handler never sees arguments that do not match.
//
// The fields after Parameters are Hearth additions; a HomeAgent plugin that
// sets only the first four keeps working unchanged.
type ToolDef struct {
	Name        string         `json:"name"`             // tool name, unique within the plugin
	Plugin      string         `json:"plugin,omitempty"` // owning plugin; filled in by the host
	Description string         `json:"description"`      // what the model reads
	Parameters  map[string]any `json:"parameters"`       // JSON Schema of the arguments

	// Timeout bounds one call. Zero means the host default (30 s).
	Timeout time.Duration `json:"-"`
	// Serial tools of one plugin run one at a time, in the order the
	// model emitted them; other tools of the same assistant message run
	// concurrently.
	Serial bool `json:"serial,omitzero"`

	// The PKU harness policy fields. See docs/policy.md.

	// Title names the tool to users (chat labels, approval prompts), in
	// Chinese; the model reads Description.
	Title string `json:"title,omitempty"`
	// Effect is what the tool does; empty counts as EffectWrite.
	Effect Effect `json:"effect,omitempty"`
	// ResolveEffect, when set, finds the effect of one call from its
	// arguments; both effects are checked and the stricter decision wins.
	// Its target, if any, titles the approval prompt.
	ResolveEffect ResolveEffectFunc `json:"-"`
	// Untrusted tools return text written by third parties: after one
	// runs, the rest of the turn is tainted, and write, money and public
	// calls that would run automatically ask first.
	Untrusted bool `json:"untrusted,omitzero"`
	// UserOnly tools are never offered to the model; agent and scheduler
	// calls are refused.
	UserOnly bool `json:"userOnly,omitzero"`
	// OnDemand tools are not offered until the agent loads the plugin
	// with the core tool plugins__use.
	OnDemand bool `json:"onDemand,omitzero"`
	// Grant tools give the agent access it did not have: every agent call
	// asks, whatever the mode (off still refuses); scheduler calls are
	// refused. The answer reaches the handler as ToolContext.Grant.
	Grant bool `json:"grant,omitzero"`
	// AlwaysAsk tools ask on every agent call, whatever the mode (off
	// still refuses); scheduler calls are refused.
	AlwaysAsk bool `json:"alwaysAsk,omitzero"`
	// DayScoped results describe the current day.
	DayScoped bool `json:"dayScoped,omitzero"`
	// Channels, when set, limits the tool to sessions of these channels
	// (xbot's channel-scoped tools); empty means every channel.
	Channels []string `json:"channels,omitempty"`

	// The HomeAgent memory fields. Memory computation is whatever turns
	// conversation into memory: in Hearth, the plugins that read tool
	// results in their stage handlers (after_toolcall) to write text,
	// graph or document memory. See docs/plugins.md.

	// NoMemory keeps this tool's calls and results out of memory
	// computation; the result still reaches the model and stays in the
	// conversation. Stage handlers see ToolResult.NoMemory set and an
	// empty ToolResult.MemoryText.
	NoMemory bool `json:"noMemory,omitzero"`
	// Cleaner, when set, turns the result text into the text memory
	// computation uses (ToolResult.MemoryText); the model still reads the
	// result unchanged. In a child process the plugin runs it on its side
	// and sends the cleaned text with the result. A Cleaner that panics
	// leaves the result text as it is.
	Cleaner func(string) string `json:"-"`
	// DescriptionFunc, when set, gives the description's current text
	// (PKU harness's Dynamic<string>); Hearth asks it when it builds a
	// model request and uses Description when it answers "".
	DescriptionFunc func() string `json:"-"`
}

// EffectiveEffect returns the declared effect, or EffectWrite when none is
// declared (or it is not a known effect): undeclared counts as write.
func (d ToolDef) EffectiveEffect() Effect {
	if d.Effect.Valid() {
		return d.Effect
	}
	return EffectWrite
}

// ToolHandler is HomeAgent's context-free tool handler. args are the
// validated arguments; the return value is JSON-encoded for the model. A
// returned error becomes a tool result with isError set, so the model sees
// it; a map with "isError": true is passed through as an error result.
//
// A ToolHandler cannot observe its deadline: when a call times out the
// model gets an error result at once, but the handler keeps running until
// it returns. Prefer ContextToolHandler or AddTool for anything that blocks.
type ToolHandler func(args map[string]any) (any, error)

// ContextToolHandler is a tool handler that receives the call's context
// (carrying its deadline and cancellation) and a ToolContext describing who
// is calling and in which turn.
type ContextToolHandler func(ctx context.Context, tc *ToolContext, args map[string]any) (any, error)

// ToolCall is a tool call requested by the model, as stage handlers see it.
type ToolCall struct {
	ID        string         `json:"id"`               // call id from the model
	Name      string         `json:"name"`             // the tool's stage name: the name its plugin registered for a tool named after its plugin (memo_create), else plugin__tool; see docs/plugins.md
	Plugin    string         `json:"plugin,omitempty"` // owning plugin
	Arguments map[string]any `json:"arguments"`        // arguments

	// Deny, when set by a before_toolcall handler, refuses the call; the
	// model receives the text as the tool's error result.
	Deny string `json:"deny,omitempty"`
	// Ask, when set by a before_toolcall handler, makes the call need the
	// user's approval; the text says why. Deny wins over Ask.
	Ask string `json:"ask,omitempty"`
}

// ToolResult is the outcome of one tool call, as stage handlers see it.
type ToolResult struct {
	CallID  string `json:"call_id"`          // the ToolCall.ID it answers
	Name    string `json:"name"`             // tool name, as in ToolCall.Name
	Plugin  string `json:"plugin,omitempty"` // owning plugin
	Success bool   `json:"success"`          // false for error results
	Result  any    `json:"result"`           // handler return value, or the error text

	// NoMemory is set when the tool is ToolDef.NoMemory: a handler that
	// computes memory leaves this result out.
	NoMemory bool `json:"noMemory,omitzero"`
	// MemoryText is the text memory computation uses: the result text
	// through the tool's Cleaner, or the result text itself when it has
	// none; empty when NoMemory is set.
	MemoryText string `json:"memoryText,omitempty"`
}

// Actor says who started a tool call.
type Actor string

// The actors of the PKU harness model.
const (
	ActorUser      Actor = "user"      // the user, directly
	ActorAgent     Actor = "agent"     // the model, during a turn
	ActorScheduler Actor = "scheduler" // a scheduled job
)

// TurnInfo describes the conversation turn a tool call belongs to.
type TurnInfo struct {
	SessionID string `json:"sessionId,omitempty"`
	// Tainted is true once a tool in this turn returned third-party text.
	Tainted bool `json:"tainted"`
	// UserAsked is true when the user's own message in this turn asked
	// for the action.
	UserAsked bool `json:"userAsked,omitzero"`
	// AcceptsImages is true when the turn's model reads images (PKU
	// harness); Hearth does not set it yet.
	AcceptsImages bool `json:"acceptsImages,omitzero"`
}

// ToolContext tells a context-aware handler who is calling and where. The
// call's deadline and cancellation travel in the context.Context passed
// beside it, never in this struct.
type ToolContext struct {
	PluginID string    // the plugin that owns the tool
	Effect   Effect    // the effect this call was authorized for
	Tool     string    // the tool's name inside its plugin
	CallID   string    // the model's call id, empty for direct calls
	Actor    Actor     // who started the call
	Turn     *TurnInfo // set when the agent calls during a turn
	Channel  string    // channel the turn came from (terminal, web, qq...)
	ChatID   string    // chat within the channel
	UserID   string    // who is speaking
	GroupID  string    // group chat id, empty in a private chat
	// InjectedBy is the plugin that injected the turn's input; empty when
	// a person on a channel asked. A plugin relaying someone's message
	// (sdk.CapabilityInjectUser) reports that person's Channel and
	// UserID, so a check for "the owner on the terminal" must also check
	// that InjectedBy is empty.
	InjectedBy string
	// Grant is the user's answer to a Grant tool's prompt: "once" or
	// "always"; empty for other tools and for direct user calls.
	Grant string
	// KV is the plugin's private key-value storage; nil where the host
	// has no storage (sdktest gives a working one).
	KV KV
	// Progress, when not nil, reports how far a long call has got: done
	// out of total (0 when the total is unknown) and a short message. The
	// host shows it on the user's channel. Calls are cheap; the host
	// drops reports that come faster than it shows them.
	Progress func(done, total float64, message string)
}

// Image is a picture a tool returns beside its text (see ImageResult).
type Image struct {
	MIMEType string // image/png, image/jpeg, ...
	Data     []byte
	// URL, instead of MIMEType and Data, is an http(s) URL of the image
	// (at most 2048 bytes), passed to the model as given: the provider
	// fetches it, Hearth never does. SetToolBlocks makes these.
	URL string
}

// ImageResult is implemented by a tool result that carries images: the
// host passes them to the model when it accepts images; the result's text
// should describe them for a model that does not.
type ImageResult interface {
	ResultImages() []Image
}

// ToolFunc is a typed tool handler for AddTool. In is decoded from the
// validated arguments; Out is JSON-encoded for the model.
type ToolFunc[In, Out any] func(ctx context.Context, tc *ToolContext, in In) (Out, error)

// RawToolHandler receives the validated arguments as the raw JSON the
// model sent and, when the host has decoded them, as a map (nil in a child
// process: decode raw). It is the form every registration style is reduced
// to; plugin authors normally use one of the others.
type RawToolHandler func(ctx context.Context, tc *ToolContext, args map[string]any, raw json.RawMessage) (any, error)
