package sdk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/hearth-agent/hearth/sdk/internal/codec"
	"github.com/hearth-agent/hearth/sdk/internal/hostlink"
)

// backend is what a PluginSDK calls: a host (sdk/host.Host) bound to the
// plugin's services, with the services it lacks filled in. Package
// sdk/host builds it; its methods are documented there.
type backend interface {
	RegisterTool(plugin string, def ToolDef, handler RawToolHandler) error
	RegisterStage(plugin string, stage Stage, ownTools bool, handler StageHandler)
	RegisterDecisionHook(plugin string, hook DecisionHook)
	Inject(plugin string, in Injection) error
	InjectSync(ctx context.Context, plugin string, in Injection) (string, error)
	RegisterChannel(plugin string, reg ChannelRegistration) error
	UnregisterChannel(plugin, name string) error
	Settings() SettingsAPI
	Memory() MemoryAPI
	TextMemory() TextMemoryAPI
	DocMemory() DocMemoryAPI
	Knowledge() KnowledgeAPI
	KV() KV
	LLM() LLMAPI
	Logger() *slog.Logger
}

// ioInjector is sdk/host.IOInjector: an input path that replaces the
// host's for the Inject methods without options.
type ioInjector interface {
	InjectInterruptText(source, channel, text string)
	InjectText(source, channel, text string)
	InjectTextNoMemory(source, channel, text string)
}

// init hands package sdk/host the operations only hosts use, so that they
// are not part of the author's API (see sdk/internal/hostlink).
func init() {
	hostlink.Register(hostlink.Funcs[*PluginSDK]{
		New: func(name string, b any) *PluginSDK {
			return &PluginSDK{name: name, b: b.(backend), autoRestart: true}
		},
		RunStopHandlers:     func(s *PluginSDK) { s.runHandlers(&s.onStop) },
		RunOnRemoveHandlers: func(s *PluginSDK) { s.runHandlers(&s.onRemove) },
		SetIOInjector: func(s *PluginSDK, inj any) {
			i, _ := inj.(ioInjector)
			s.mu.Lock()
			s.injector = i
			s.mu.Unlock()
		},
		Backend: func(s *PluginSDK) any { return s.b },
	})
}

// The capabilities a plugin declares to inject beyond its own channel
// (sdk.Manifest.Capabilities compiled in, "capabilities" in plugin.json for
// a child process). Users see them in `hearth plugin`.
const (
	// CapabilityInjectChannels lets a plugin inject into any channel's
	// sessions, not only its own ("plugin:<id>"). The answer it gets
	// back may draw on that conversation's history.
	CapabilityInjectChannels = "input.channels"
	// CapabilityInjectUser lets a plugin inject in the name of a user or
	// group (UserID, GroupID), as a channel plugin relaying people's
	// messages does. The turn gets that person's rights and the plugin's,
	// whichever are fewer.
	CapabilityInjectUser = "input.user"
)

// CapabilityMemoryShared (sdk.Manifest.Capabilities compiled in,
// "capabilities" in plugin.json) lets a plugin read every plugin's and
// the owner's memory and knowledge entries in the conversation it acts
// in, not only its own. It never lets it change or delete another
// writer's entries, nor see another conversation's.
const CapabilityMemoryShared = "memory.shared"

// ErrInjectRefused is returned for an injection the plugin may not make.
var ErrInjectRefused = errors.New("injection refused")

// Injection is one input a plugin (or a channel) hands to the agent. An
// injected input is answered with the injecting plugin's rights, never the
// owner's: read-only tools unless the owner grants the plugin more
// (`hearth policy grant plugin:ID read,write`).
type Injection struct {
	Source    string `json:"source,omitempty"`   // who injected it; the host sets the plugin's name
	Channel   string `json:"channel"`            // channel whose session answers it
	ChatID    string `json:"chatId,omitempty"`   // chat within the channel; empty means the default chat
	UserID    string `json:"userId,omitempty"`   // who is speaking, if known
	GroupID   string `json:"groupId,omitempty"`  // group chat the message came from; empty in a private chat
	Text      string `json:"text"`               //
	Interrupt bool   `json:"interrupt,omitzero"` // cancel the session's in-flight model call and run next
	NoMemory  bool   `json:"noMemory,omitzero"`  // answer, but do not write the exchange to memory
	// Media are the input's image and audio blocks (HomeAgent's
	// InjectInputMedia). Text already names each one; a model that
	// accepts images also gets the image blocks as image parts of this
	// message, for this turn only (see docs/plugins.md, "Media").
	Media []ContentBlock `json:"media,omitempty"`
}

// InjectOptions qualifies one injection (HomeAgent's). The zero value is
// the plain injection: written to memory, context not pruned.
type InjectOptions struct {
	NoMemory bool // answer, but do not write the exchange to memory
	// ContextPolicy and RecallPolicy are HomeAgent's (see the
	// ContextPolicy* and RecallPolicy* constants); Hearth checks and
	// ignores them (it never prunes by relevance).
	ContextPolicy string
	RecallPolicy  string
	// CleanerName names the registered channel whose Cleaner applies to
	// the memory computations; Hearth's memory does not call cleaners.
	CleanerName string
	// Priority is an interrupt's level, PriorityL1 (the default) to
	// PriorityL4. Every interrupt cancels the session's model call in
	// Hearth; the level is accepted for HomeAgent's plugins.
	Priority string
}

// Interrupt priorities, HomeAgent's (see InjectOptions.Priority).
const (
	PriorityL1 = "L1"
	PriorityL2 = "L2"
	PriorityL3 = "L3"
	PriorityL4 = "L4" // in HomeAgent only built-in plugins; others get L3
)

// PluginSDK is the API a plugin receives in Start. Hosts build it with
// sdk/host.New.
type PluginSDK struct {
	name string
	b    backend

	mu          sync.Mutex
	injector    ioInjector
	autoRestart bool
	onStop      []func()
	onRemove    []func()
	blocks      toolBlocks // SetToolBlocks's blocks of the running call
}

// PluginName returns the plugin's registered name.
func (s *PluginSDK) PluginName() string { return s.name }

// Logger returns a logger scoped to this plugin.
func (s *PluginSDK) Logger() *slog.Logger { return s.b.Logger() }

// RegisterTool registers a tool with HomeAgent's context-free handler. The
// model sees it as <plugin>__<name>.
func (s *PluginSDK) RegisterTool(name string, def ToolDef, handler ToolHandler) error {
	if handler == nil {
		return errors.New("sdk: RegisterTool with a nil handler")
	}
	return s.registerRaw(name, def, func(_ context.Context, _ *ToolContext, args map[string]any, raw json.RawMessage) (any, error) {
		args, err := argsMap(args, raw)
		if err != nil {
			return nil, err
		}
		return handler(args)
	})
}

// RegisterToolContext registers a tool whose handler receives the call's
// context and a ToolContext.
func (s *PluginSDK) RegisterToolContext(name string, def ToolDef, handler ContextToolHandler) error {
	if handler == nil {
		return errors.New("sdk: RegisterToolContext with a nil handler")
	}
	return s.registerRaw(name, def, func(ctx context.Context, tc *ToolContext, args map[string]any, raw json.RawMessage) (any, error) {
		args, err := argsMap(args, raw)
		if err != nil {
			return nil, err
		}
		return handler(ctx, tc, args)
	})
}

// argsMap returns args, decoding raw when the host left the map out (a
// child process receives only the raw arguments).
func argsMap(args map[string]any, raw json.RawMessage) (map[string]any, error) {
	if args != nil {
		return args, nil
	}
	args = map[string]any{}
	if len(raw) > 0 {
		if err := codec.Unmarshal(raw, &args); err != nil {
			return nil, fmt.Errorf("decoding arguments: %w", err)
		}
	}
	return args, nil
}

// RegisterRawTool registers a tool whose handler receives the raw JSON
// arguments, and the decoded map when the host has it (nil in a child
// process). Adapters for other SDK styles build on it.
func (s *PluginSDK) RegisterRawTool(name string, def ToolDef, handler RawToolHandler) error {
	if handler == nil {
		return errors.New("sdk: RegisterRawTool with a nil handler")
	}
	return s.registerRaw(name, def, handler)
}

func (s *PluginSDK) registerRaw(name string, def ToolDef, h RawToolHandler) error {
	def.Name = name
	def.Plugin = s.name
	return s.b.RegisterTool(s.name, def, s.withToolBlocks(h))
}

// StageScope says which events a stage handler receives (HomeAgent's
// optional argument of RegisterStage).
type StageScope int

// The stage scopes.
const (
	// StageScopeGlobal receives every message's stage (the default).
	StageScopeGlobal StageScope = 0
	// StageScopeOwnTools limits a before_toolcall or after_toolcall
	// handler to calls of the plugin's own tools; at other stages it is
	// StageScopeGlobal.
	StageScopeOwnTools StageScope = 1
)

// RegisterStage runs handler at stage for every message, after the
// handlers registered before it. An optional scope of StageScopeOwnTools
// makes it RegisterStageOwnTools; further scopes are ignored.
func (s *PluginSDK) RegisterStage(stage Stage, handler StageHandler, scope ...StageScope) {
	if len(scope) > 0 && scope[0] == StageScopeOwnTools {
		s.RegisterStageOwnTools(stage, handler)
		return
	}
	s.b.RegisterStage(s.name, stage, false, handler)
}

// RegisterStageOwnTools is RegisterStage limited, at before_toolcall and
// after_toolcall, to calls of this plugin's own tools. At other stages it
// is the same as RegisterStage.
func (s *PluginSDK) RegisterStageOwnTools(stage Stage, handler StageHandler) {
	own := stage == StageBeforeToolcall || stage == StageAfterToolcall
	s.b.RegisterStage(s.name, stage, own, handler)
}

// RegisterGuardStage is RegisterStage for a handler that may refuse the
// message by setting Response (a filter of what people send). In a child
// process, when Hearth cannot run the handler (the process died or did not
// answer within its deadline), the message is refused with a text naming
// the plugin instead of reaching the model unchecked; a RegisterStage
// handler that cannot run is logged and skipped. Compiled in, the handler
// runs in Hearth's process and this is RegisterStage.
func (s *PluginSDK) RegisterGuardStage(stage Stage, handler StageHandler) {
	if g, ok := s.b.(guardStager); ok {
		g.RegisterGuardStage(s.name, stage, handler)
		return
	}
	s.b.RegisterStage(s.name, stage, false, handler)
}

// guardStager is a host that can run guard stage handlers elsewhere (a
// child process's connection to Hearth).
type guardStager interface {
	RegisterGuardStage(plugin string, stage Stage, h StageHandler)
}

// RegisterDecisionHook adds a hook asked about every tool call (of any
// plugin) before it runs; see DecisionHook.
func (s *PluginSDK) RegisterDecisionHook(hook DecisionHook) {
	if hook != nil {
		s.b.RegisterDecisionHook(s.name, hook)
	}
}

func (s *PluginSDK) ioInjector() ioInjector {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.injector
}

// InjectInterruptText cancels the in-flight model call of channel's session
// and has text answered next. source is kept for HomeAgent compatibility;
// the host records this plugin as the sender. A refused injection is
// logged; InjectInput returns the error instead.
func (s *PluginSDK) InjectInterruptText(source, channel, text string) {
	if inj := s.ioInjector(); inj != nil {
		inj.InjectInterruptText(source, channel, text)
		return
	}
	s.inject(Injection{Channel: channel, Text: text, Interrupt: true})
}

// InjectText queues text for channel's session (see InjectInterruptText
// about source and refusals).
func (s *PluginSDK) InjectText(source, channel, text string) {
	if inj := s.ioInjector(); inj != nil {
		inj.InjectText(source, channel, text)
		return
	}
	s.inject(Injection{Channel: channel, Text: text})
}

// InjectTextNoMemory queues text for channel's session; the exchange is
// answered but not written to memory.
func (s *PluginSDK) InjectTextNoMemory(source, channel, text string) {
	if inj := s.ioInjector(); inj != nil {
		inj.InjectTextNoMemory(source, channel, text)
		return
	}
	s.inject(Injection{Channel: channel, Text: text, NoMemory: true})
}

// InjectTextOpts is InjectText with explicit options: InjectTextNoMemory
// when opts.NoMemory is set.
func (s *PluginSDK) InjectTextOpts(source, channel, text string, opts InjectOptions) {
	if opts.NoMemory {
		s.InjectTextNoMemory(source, channel, text)
		return
	}
	s.InjectText(source, channel, text)
}

// InjectInterruptTextOpts is InjectInterruptText with explicit options.
// An interrupt without memory goes to the host even when an input
// injector is set, which has no way to take one.
func (s *PluginSDK) InjectInterruptTextOpts(source, channel, text string, opts InjectOptions) {
	if !opts.NoMemory {
		s.InjectInterruptText(source, channel, text)
		return
	}
	s.inject(Injection{Channel: channel, Text: text, Interrupt: true, NoMemory: true})
}

// InjectInput queues in and returns the host's refusal, if any (an
// ErrInjectRefused saying which capability is missing). An empty channel
// means the plugin's own.
func (s *PluginSDK) InjectInput(in Injection) error {
	in.Source = s.name
	return s.b.Inject(s.name, in)
}

func (s *PluginSDK) inject(in Injection) {
	if err := s.InjectInput(in); err != nil {
		s.Logger().Warn("injected input refused", "channel", in.Channel, "err", err)
	}
}

// InjectAndWait queues in and waits for the answer, or returns why it was
// refused (ErrInjectRefused) or failed. The turn runs with this plugin's
// rights: the answer holds only what tools the plugin may trigger could
// produce.
func (s *PluginSDK) InjectAndWait(ctx context.Context, in Injection) (string, error) {
	in.Source = s.name
	return s.b.InjectSync(ctx, s.name, in)
}

// InjectInputSync queues text for channel's session and waits for the
// answer. It returns "" when the turn produced no answer, failed, or the
// injection was refused (the reason is logged).
func (s *PluginSDK) InjectInputSync(source, channel, text string) string {
	out, err := s.b.InjectSync(context.Background(), s.name, Injection{Source: s.name, Channel: channel, Text: text})
	if err != nil {
		s.Logger().Warn("injected input failed", "channel", channel, "err", err)
		return ""
	}
	return out
}

// Settings returns the settings service.
func (s *PluginSDK) Settings() SettingsAPI { return s.b.Settings() }

// Memory returns the graph memory.
func (s *PluginSDK) Memory() MemoryAPI { return s.b.Memory() }

// TextMemory returns the text memory.
func (s *PluginSDK) TextMemory() TextMemoryAPI { return s.b.TextMemory() }

// DocMemory returns the document memory.
func (s *PluginSDK) DocMemory() DocMemoryAPI { return s.b.DocMemory() }

// Knowledge returns the knowledge base.
func (s *PluginSDK) Knowledge() KnowledgeAPI { return s.b.Knowledge() }

// LLM returns the model source manager.
func (s *PluginSDK) LLM() LLMAPI { return s.b.LLM() }

// KV returns the plugin's private key-value storage, the same a tool of
// the plugin gets in ToolContext.KV.
func (s *PluginSDK) KV() KV { return s.b.KV() }

// DataDir returns the plugin's own data directory (see SettingsAPI.DataDir).
func (s *PluginSDK) DataDir() string { return s.b.Settings().DataDir() }

// SetAutoRestart says whether the host may restart the plugin after a
// crash. The default is true.
func (s *PluginSDK) SetAutoRestart(enabled bool) {
	s.mu.Lock()
	s.autoRestart = enabled
	s.mu.Unlock()
}

// AutoRestart reports the value set with SetAutoRestart.
func (s *PluginSDK) AutoRestart() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.autoRestart
}

// RegisterStopHandler adds fn to run before the plugin's Stop. Handlers run
// last registered first, once; a handler's panic is logged.
func (s *PluginSDK) RegisterStopHandler(fn func()) {
	s.mu.Lock()
	s.onStop = append(s.onStop, fn)
	s.mu.Unlock()
}

// RegisterOnRemoveHandler adds fn to run when the plugin is uninstalled,
// after Stop. Handlers run last registered first, once.
func (s *PluginSDK) RegisterOnRemoveHandler(fn func()) {
	s.mu.Lock()
	s.onRemove = append(s.onRemove, fn)
	s.mu.Unlock()
}

func (s *PluginSDK) runHandlers(list *[]func()) {
	s.mu.Lock()
	fns := *list
	*list = nil
	s.mu.Unlock()
	for i := len(fns) - 1; i >= 0; i-- {
		s.runOne(fns[i])
	}
}

func (s *PluginSDK) runOne(fn func()) {
	defer func() {
		if r := recover(); r != nil {
			s.Logger().Error("lifecycle handler panicked", "panic", r)
		}
	}()
	fn()
}
