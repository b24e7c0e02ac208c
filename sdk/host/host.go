// Package host is the SDK's side for hosts: what Hearth's kernel, the
// child-process bridge (pluginrpc.Serve) and test harnesses (sdktest)
// implement and call to give a plugin its *sdk.PluginSDK and to run its
// lifecycle. Plugin authors do not import it; they receive the PluginSDK
// in Start.
package host

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/internal/hostlink"
)

// Host is what a PluginSDK talks to: Hearth's kernel, the child-process
// bridge, or sdktest's harness. Plugin authors do not implement it.
type Host interface {
	// RegisterTool adds a tool of plugin. The host checks the name,
	// compiles the schema and rejects duplicates.
	RegisterTool(plugin string, def sdk.ToolDef, handler sdk.RawToolHandler) error
	// RegisterStage adds a stage handler of plugin. ownTools limits a
	// before_toolcall or after_toolcall handler to the plugin's own tools.
	RegisterStage(plugin string, stage sdk.Stage, ownTools bool, handler sdk.StageHandler)
	// RegisterDecisionHook adds a decision hook of plugin.
	RegisterDecisionHook(plugin string, hook sdk.DecisionHook)
	// Inject queues an input from plugin; it does not wait for the
	// answer. The host records plugin as who asked (whatever in.Source
	// says) and refuses, with an error saying why, an injection into a
	// channel other than the plugin's own or in a named user's or group's
	// name unless the plugin declared sdk.CapabilityInjectChannels or
	// sdk.CapabilityInjectUser.
	Inject(plugin string, in sdk.Injection) error
	// InjectSync is Inject that waits for the answer text.
	InjectSync(ctx context.Context, plugin string, in sdk.Injection) (string, error)
	// Services returns the services for plugin; nil fields mean the host
	// does not provide that service.
	Services(plugin string) Services
}

// ChannelHost is implemented by hosts that give plugins channels of their
// own (sdk.PluginSDK.RegisterInputChannel, RegisterOutputChannel): the
// kernel, the child-process bridge. On a host without it, registering a
// channel fails with sdk.ErrUnavailable.
type ChannelHost interface {
	// RegisterPluginChannel adds, or completes, plugin's channel
	// reg.Name. The input and output halves of one name are merged; a
	// name of Hearth's or of another plugin is refused.
	RegisterPluginChannel(plugin string, reg sdk.ChannelRegistration) error
	// UnregisterChannel removes the output half of plugin's channel name.
	UnregisterChannel(plugin, name string) error
}

// Services are the host services a plugin can reach. A nil field is
// replaced by an implementation that returns sdk.ErrUnavailable.
type Services struct {
	Settings   sdk.SettingsAPI
	Memory     sdk.MemoryAPI
	TextMemory sdk.TextMemoryAPI
	DocMemory  sdk.DocMemoryAPI
	Knowledge  sdk.KnowledgeAPI
	KV         sdk.KV
	LLM        sdk.LLMAPI
	Logger     *slog.Logger
}

// IOInjector is an input path for a PluginSDK's InjectText,
// InjectInterruptText and InjectTextNoMemory in place of the host's
// Inject (HomeAgent's hook for channels that relay input themselves).
type IOInjector interface {
	// InjectInterruptText takes PluginSDK.InjectInterruptText's input.
	InjectInterruptText(source, channel, text string)
	// InjectText takes PluginSDK.InjectText's input.
	InjectText(source, channel, text string)
	// InjectTextNoMemory takes PluginSDK.InjectTextNoMemory's input.
	InjectTextNoMemory(source, channel, text string)
}

// link is package sdk's host-side operations; sdk registered them in its
// init, which ran before this package's variables were initialised.
var link = hostlink.Get[*sdk.PluginSDK]()

// New returns the PluginSDK for plugin name backed by h, with h's
// services for name and Unavailable ones where h provides none. Hosts
// call it and hand the result to the plugin's Start.
func New(name string, h Host) *sdk.PluginSDK {
	s := h.Services(name)
	if s.Settings == nil {
		s.Settings = Unavailable{Service: "settings"}
	}
	if s.Memory == nil {
		s.Memory = Unavailable{Service: "graph memory"}
	}
	if s.TextMemory == nil {
		s.TextMemory = Unavailable{Service: "text memory"}
	}
	if s.DocMemory == nil {
		s.DocMemory = Unavailable{Service: "document memory"}
	}
	if s.Knowledge == nil {
		s.Knowledge = UnavailableKnowledge{}
	}
	if s.KV == nil {
		s.KV = UnavailableKV{}
	}
	if s.LLM == nil {
		s.LLM = Unavailable{Service: "llm"}
	}
	if s.Logger == nil {
		s.Logger = slog.Default().With("plugin", name)
	}
	return link.New(name, bind(h, &binding{Host: h, svc: s}))
}

// RunStopHandlers runs and clears the stop handlers s's plugin registered
// (sdk.PluginSDK.RegisterStopHandler), last registered first; a handler's
// panic is logged. The host calls it before the plugin's Stop.
func RunStopHandlers(s *sdk.PluginSDK) { link.RunStopHandlers(s) }

// RunOnRemoveHandlers runs and clears the remove handlers
// (sdk.PluginSDK.RegisterOnRemoveHandler) like RunStopHandlers. The host
// calls it when the plugin is uninstalled, after Stop.
func RunOnRemoveHandlers(s *sdk.PluginSDK) { link.RunOnRemoveHandlers(s) }

// SetIOInjector routes s's InjectText, InjectInterruptText and
// InjectTextNoMemory through inj; nil routes them to the host again.
func SetIOInjector(s *sdk.PluginSDK, inj IOInjector) { link.SetIOInjector(s, inj) }

// binding is the backend a PluginSDK calls: the host's registrations and
// the plugin's services, defaults filled in. Its method set is package
// sdk's unexported backend interface.
type binding struct {
	Host
	svc Services
}

// GuardStageHost is a Host that runs a plugin's stage handlers elsewhere
// (a child process's connection to Hearth) and can tell the handlers that
// refuse messages apart (sdk.PluginSDK.RegisterGuardStage): when such a
// handler cannot run, the message is refused rather than passed on.
type GuardStageHost interface {
	RegisterGuardStage(plugin string, stage sdk.Stage, h sdk.StageHandler)
}

// RegisterGuardStage is the host's, or RegisterStage where the handler
// runs in the host's process.
func (b *binding) RegisterGuardStage(plugin string, stage sdk.Stage, h sdk.StageHandler) {
	if g, ok := b.Host.(GuardStageHost); ok {
		g.RegisterGuardStage(plugin, stage, h)
		return
	}
	b.Host.RegisterStage(plugin, stage, false, h)
}

// RegisterChannel is the host's, or sdk.ErrUnavailable.
func (b *binding) RegisterChannel(plugin string, reg sdk.ChannelRegistration) error {
	if ch, ok := b.Host.(ChannelHost); ok {
		return ch.RegisterPluginChannel(plugin, reg)
	}
	return fmt.Errorf("channel %q: %w", reg.Name, sdk.ErrUnavailable)
}

// UnregisterChannel is the host's, or sdk.ErrUnavailable.
func (b *binding) UnregisterChannel(plugin, name string) error {
	if ch, ok := b.Host.(ChannelHost); ok {
		return ch.UnregisterChannel(plugin, name)
	}
	return fmt.Errorf("channel %q: %w", name, sdk.ErrUnavailable)
}

func (b *binding) Settings() sdk.SettingsAPI     { return b.svc.Settings }
func (b *binding) Memory() sdk.MemoryAPI         { return b.svc.Memory }
func (b *binding) TextMemory() sdk.TextMemoryAPI { return b.svc.TextMemory }
func (b *binding) DocMemory() sdk.DocMemoryAPI   { return b.svc.DocMemory }
func (b *binding) Knowledge() sdk.KnowledgeAPI   { return b.svc.Knowledge }
func (b *binding) KV() sdk.KV                    { return b.svc.KV }
func (b *binding) LLM() sdk.LLMAPI               { return b.svc.LLM }
func (b *binding) Logger() *slog.Logger          { return b.svc.Logger }
