// Package kernel runs conversations: per-session input queues, the stage
// pipeline, and the agent loop that alternates model calls and tool calls
// until the model answers.
package kernel

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hearth-agent/hearth/internal/llm"
	"github.com/hearth-agent/hearth/internal/media"
	"github.com/hearth-agent/hearth/internal/names"
	"github.com/hearth-agent/hearth/internal/policy"
	"github.com/hearth-agent/hearth/internal/redact"
	"github.com/hearth-agent/hearth/internal/scope"
	"github.com/hearth-agent/hearth/internal/tools"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/host"
	"github.com/hearth-agent/hearth/sdk/pipeline"
	"github.com/hearth-agent/hearth/sdk/wire"
)

// Defaults for Options' zero values.
const (
	DefaultMaxSteps        = 20
	DefaultMaxToolCalls    = 64
	DefaultHistoryMessages = 60
	DefaultSystemPrompt    = "You are Hearth, a personal AI assistant running on the user's own machine. " +
		"Answer in the language the user writes in. Use the tools you are given when they help; " +
		"say so plainly when you cannot do something."
)

// Options tune the kernel. Zero fields, and a nil *Options, mean the
// defaults.
type Options struct {
	// Model is the model name sent with each request; empty lets the
	// provider source decide.
	Model string
	// SystemPrompt opens every conversation.
	SystemPrompt string
	// MaxSteps caps model calls per turn. The last allowed call is made
	// without tools, so the model has to answer in words; if it calls
	// tools anyway they are answered as unknown, never run, and the turn
	// ends with a note saying it reached the limit.
	MaxSteps int
	// MaxToolCalls caps the tool calls of one turn (default 64). Calls
	// past it are answered "not run"; the next model call is made without
	// tools, and the turn ends there as at MaxSteps.
	MaxToolCalls int
	// HistoryMessages is how many stored messages of a session are sent
	// back to the model.
	HistoryMessages int
	// ContextWindow is the model's context window in tokens. Zero means
	// the current source's configured window, else the one known for the
	// model (WindowFor). The oldest history is left out of a request that
	// would not fit, and a message that cannot fit alone is refused.
	ContextWindow int
	// MaxSessions is how many conversations are kept in memory (default
	// 1024); past it the longest idle ones are dropped and reloaded from
	// the store when they next speak.
	MaxSessions int
	// Logger receives the kernel's logs; nil means slog.Default().
	Logger *slog.Logger
	// Services returns the host services for a plugin; nil means none.
	Services func(plugin string) host.Services
	// Widgets receives compiled-in plugins' web widgets
	// (host.WidgetHost); nil means this host shows none.
	Widgets func(plugin string, ws []wire.Widget) error
	// Policy decides which tools are offered and which calls run, asks
	// for approvals and keeps the audit log. Nil allows everything and
	// records nothing; only tests and embedders that do their own
	// checking should leave it nil.
	Policy *policy.Engine
	// Names hands out plugin names, shared with the other loaders (the
	// plugin folder manager); nil means a registry of the kernel's own.
	Names *names.Registry
	// MaxInjectionsPerMinute is how many inputs one plugin may inject a
	// minute, in bursts of up to as many (default 10: ten at once, then
	// one every six seconds). Past it, and while MaxPendingInjections of
	// its inputs wait to be answered, injections are refused with
	// ErrTooManyInjections.
	MaxInjectionsPerMinute int
	// NoTraces turns off turn traces (see TraceSaver).
	NoTraces bool
	// Recall finds what memory holds about each input (recall.go); nil
	// recalls nothing.
	Recall Recaller
	// RecallTokens is the most tokens recalled memory may take in a
	// request (default DefaultRecallTokens).
	RecallTokens int
	// Budgets are checked before every model call (budget.go); nil
	// sets none.
	Budgets *llm.Budgets
	// Transcriber transcribes the voice notes (audio blocks) of inputs
	// before their turn (voicenote.go); nil leaves audio untranscribed.
	Transcriber media.Transcriber
	// Recognizer reads the text of an input's images for a model that
	// cannot see them (ocrinput.go); nil reads none.
	Recognizer media.Recognizer
}

// Kernel is the running agent. It implements host.Host for plugins.
type Kernel struct {
	cfg      Options
	log      *slog.Logger
	tools    *tools.Registry
	pipeline *pipeline.Pipeline
	compact  compactHooks // compact.go
	provider llm.Provider
	store    History     // nil keeps history in memory only
	traces   TraceSaver  // nil: turns are not traced
	ledger   UsageLedger // budget.go: every model call's usage
	budget   budgetGate
	budgets  atomic.Pointer[llm.Budgets] // budget.go: Options.Budgets, or SetBudgets' since
	mask     func(string) string         // masks secrets in traces
	secrets  *redact.Secrets             // masked in every event and outcome; nil for none

	// base is cancelled by Close; every turn's context derives from it.
	base   context.Context
	cancel context.CancelCauseFunc
	wg     sync.WaitGroup

	mu       sync.Mutex
	sessions map[sessionKey]*session
	sinks    map[string]Sink
	obs      observers                       // session.go: Observe
	haSubs   eventSubs                       // haevents.go: plugins' event subscriptions
	fallback atomic.Pointer[policy.Approver] // session.go: SetFallbackApprover
	plugins  []*loadedPlugin
	external []*loadedPlugin     // manifests of plugins running outside (SetManifest)
	hidden   map[string]string   // plugin -> why it is not loaded
	caps     map[string][]string // plugin -> declared capability groups
	claims   map[string]*names.Claim
	quotas   map[string]*injectQuota // plugin -> injection budget
	chans    channelRegistry         // channels.go: the plugins' channels
	closed   bool

	now func() time.Time // the clock of injection budgets; tests replace it

	specMu      sync.Mutex
	specVersion []*tools.Tool
	specs       []llm.ToolSpec
	specTokens  []int         // toolsTokens of each of specs
	offerMask   []bool        // which of specVersion the last toolSpecs offered
	offerSet    toolSet       // what it offered (names shared, never changed)
	offerList   []*tools.Tool // the tools of offerSet.specs
	room        toolRoom      // toolroom.go: plugins offered on demand for room

	kvs sync.Map // plugin -> sdk.KV, for the ToolContext of its tools
}

var _ host.Host = (*Kernel)(nil)

// New returns a kernel calling provider, keeping sessions in st (nil for
// memory only).
func New(provider llm.Provider, st History, opts *Options) *Kernel {
	var cfg Options
	if opts != nil {
		cfg = *opts
	}
	if cfg.MaxSteps <= 0 {
		cfg.MaxSteps = DefaultMaxSteps
	}
	if cfg.MaxToolCalls <= 0 {
		cfg.MaxToolCalls = DefaultMaxToolCalls
	}
	if cfg.HistoryMessages <= 0 {
		cfg.HistoryMessages = DefaultHistoryMessages
	}
	if cfg.MaxSessions <= 0 {
		cfg.MaxSessions = 1024
	}
	if cfg.SystemPrompt == "" {
		cfg.SystemPrompt = DefaultSystemPrompt
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Names == nil {
		cfg.Names = names.New()
	}
	if cfg.MaxInjectionsPerMinute <= 0 {
		cfg.MaxInjectionsPerMinute = DefaultMaxInjectionsPerMinute
	}
	base, cancel := context.WithCancelCause(context.Background())
	k := &Kernel{
		cfg: cfg, log: cfg.Logger,
		tools: tools.NewRegistry(), pipeline: pipeline.New(cfg.Logger),
		provider: provider, store: st,
		base: base, cancel: cancel,
		sessions: map[sessionKey]*session{},
		sinks:    map[string]Sink{},
		claims:   map[string]*names.Claim{},
		now:      time.Now,
	}
	k.pipeline.SetCanonical(k.canonicalName)
	k.budgets.Store(cfg.Budgets)
	k.secrets = providerSecrets(provider)
	k.ledger = &memLedger{}
	if ul, ok := st.(UsageLedger); ok && st != nil {
		k.ledger = ul
	}
	if ts, ok := st.(TraceSaver); ok && st != nil && !cfg.NoTraces {
		k.traces, k.mask = ts, traceMask(provider)
	}
	k.registerUseTool()
	return k
}

// Names returns the registry plugin names are claimed from.
func (k *Kernel) Names() *names.Registry { return k.cfg.Names }

// Tools returns the tool registry.
func (k *Kernel) Tools() *tools.Registry { return k.tools }

// Sink receives the events of turns whose input brought no OnEvent (those
// injected by plugins); in says where the input came from. It is called
// from the session's goroutine.
type Sink func(in sdk.Injection, ev Event)

// SetSink routes the events of channel's sessions to fn; the channel ""
// sets the fallback for channels without a sink of their own. A nil fn
// removes the sink.
func (k *Kernel) SetSink(channel string, fn Sink) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if fn == nil {
		delete(k.sinks, channel)
		return
	}
	k.sinks[channel] = fn
}

func (k *Kernel) sink(channel string) Sink {
	k.mu.Lock()
	defer k.mu.Unlock()
	if s, ok := k.sinks[channel]; ok {
		return s
	}
	return k.sinks[""]
}

// RegisterTool implements host.Host.
func (k *Kernel) RegisterTool(plugin string, def sdk.ToolDef, h sdk.RawToolHandler) error {
	// Its call's conversation scope is bound to the goroutine the handler
	// runs on: HomeAgent's memory API, which takes no context, acts in
	// that conversation, from the handler and from the goroutines it
	// starts, and only while the call runs.
	return k.known(k.tools.RegisterEntry(plugin, tools.Entry{Def: def, Handler: h, Bind: scope.BindContext}))
}

// RegisterRemoteTool is RegisterTool for a tool whose handler calls a
// child plugin over its connection and returns when its context ends
// (toolcall.Tool.Prompt): the call runs on the caller's goroutine.
func (k *Kernel) RegisterRemoteTool(plugin string, def sdk.ToolDef, h sdk.RawToolHandler) error {
	return k.known(k.tools.RegisterPrompt(plugin, def, h))
}

// ReplaceRemoteTools swaps the tools of plugin, whose handlers call a
// peer (see RegisterRemoteTool), for defs (handlers[i] runs defs[i]) in
// one change of the registry: no request in between sees a part of either
// set. Tools that cannot be registered are left out, one error each.
func (k *Kernel) ReplaceRemoteTools(plugin string, defs []sdk.ToolDef, handlers []sdk.RawToolHandler) []error {
	return k.replaceRemote(plugin, defs, nil, handlers)
}

// OfferRemoteTools is ReplaceRemoteTools for tools kept from an earlier
// registration (a child plugin's, from its last start): schemas[i] is
// the JSON of defs[i]'s schema as it compiled then (whose Parameters are
// not read); each is compiled at its tool's first call. A nil schemas[i]
// is compiled from defs[i].Parameters now.
func (k *Kernel) OfferRemoteTools(plugin string, defs []sdk.ToolDef, schemas []json.RawMessage, handlers []sdk.RawToolHandler) []error {
	if len(schemas) != len(defs) {
		return []error{fmt.Errorf("plugin %q: %d tools and %d schemas", plugin, len(defs), len(schemas))}
	}
	return k.replaceRemote(plugin, defs, schemas, handlers)
}

func (k *Kernel) replaceRemote(plugin string, defs []sdk.ToolDef, schemas []json.RawMessage, handlers []sdk.RawToolHandler) []error {
	if len(defs) != len(handlers) {
		return []error{fmt.Errorf("plugin %q: %d tools and %d handlers", plugin, len(defs), len(handlers))}
	}
	entries := make([]tools.Entry, len(defs))
	for i := range defs {
		entries[i] = tools.Entry{Def: defs[i], Handler: handlers[i], Prompt: true}
		if schemas != nil && schemas[i] != nil {
			entries[i].Schema = schemas[i]
		}
	}
	added, errs := k.tools.Replace(plugin, entries)
	for _, t := range added {
		k.known(t, nil)
	}
	return errs
}

// known records a newly registered tool in the policy's tool catalogue,
// so that `hearth policy` lists it even when its plugin is not running.
func (k *Kernel) known(t *tools.Tool, err error) error {
	if err == nil && k.cfg.Policy != nil {
		k.cfg.Policy.Known(t)
	}
	return err
}

// RegisterStage implements host.Host. A handler for an unknown stage is
// logged and dropped; HomeAgent's signature has no error to return.
func (k *Kernel) RegisterStage(plugin string, stage sdk.Stage, own bool, h sdk.StageHandler) {
	if err := k.pipeline.Register(plugin, stage, own, h); err != nil {
		k.log.Error("stage handler not registered", "plugin", plugin, "err", err)
	}
}

// RegisterDecisionHook implements host.Host. Without a policy engine there
// is nothing to hook into, and the hook is logged and dropped.
func (k *Kernel) RegisterDecisionHook(plugin string, h sdk.DecisionHook) {
	if k.cfg.Policy == nil {
		k.log.Warn("decision hook ignored: no policy engine", "plugin", plugin)
		return
	}
	k.cfg.Policy.AddHook(policy.Hook{Plugin: plugin, Fn: bindHookScope(h)})
}

// Inject implements host.Host: it queues plugin's input without waiting.
// The input is answered with plugin's rights (see pluginInput).
func (k *Kernel) Inject(plugin string, in sdk.Injection) error {
	input, err := k.pluginInput(plugin, in)
	if err != nil {
		return err
	}
	if err := k.takeInjection(plugin); err != nil {
		return err
	}
	input.release = func() { k.releaseInjection(plugin) }
	k.Submit(input)
	return nil
}

// InjectSync implements host.Host: it queues plugin's input and waits for
// the answer. The turn runs with the plugin's rights, so the answer holds
// only what tools the plugin may trigger could produce.
func (k *Kernel) InjectSync(ctx context.Context, plugin string, in sdk.Injection) (string, error) {
	input, err := k.pluginInput(plugin, in)
	if err != nil {
		return "", err
	}
	if err := k.takeInjection(plugin); err != nil {
		return "", err
	}
	input.release = func() { k.releaseInjection(plugin) }
	k.quietSync(&input)
	out := k.Ask(ctx, input)
	return out.Text, out.Err
}

// SetCapabilities records the capability groups plugin declared (for a
// child process, those of its plugin.json); LoadPlugin records a compiled-in
// plugin's from its manifest.
func (k *Kernel) SetCapabilities(plugin string, groups []string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.caps == nil {
		k.caps = map[string][]string{}
	}
	k.caps[plugin] = slices.Clone(groups)
}

// PluginChannelPrefix starts the channel of a plugin's own conversation:
// "plugin:memo" for the plugin memo. No person's channel has a colon, so a
// plugin's own conversation is never a person's, whatever the plugin is
// called.
const PluginChannelPrefix = "plugin:"

// PluginChannel returns the channel of plugin's own conversation.
func PluginChannel(plugin string) string { return PluginChannelPrefix + plugin }

// pluginInput turns plugin's injection into an input whose requester is
// the plugin. The plugin may inject into its own channel without a user:
// an empty channel or PluginChannel(plugin) means that one, and so does
// the plugin's name unless it may inject anywhere (a channel plugin named
// after its chat app relays into that channel). Its own channel is never
// a person's, whatever the plugin is called. A channel the plugin
// registered (RegisterChannel) is its too, keyed by chat, and its
// ChannelDef.NoMemory applies. Another channel needs
// sdk.CapabilityInjectChannels and a user or group
// sdk.CapabilityInjectUser. Source is always the plugin's name, whatever
// it sent.
func (k *Kernel) pluginInput(plugin string, in sdk.Injection) (Input, error) {
	if plugin == "" {
		return Input{}, fmt.Errorf("%w: the injecting plugin is not known", sdk.ErrInjectRefused)
	}
	k.mu.Lock()
	caps := k.caps[plugin]
	k.mu.Unlock()
	own := PluginChannel(plugin)
	anyChannel := slices.Contains(caps, sdk.CapabilityInjectChannels)
	ch, registered := k.ownChannel(plugin, in.Channel)
	if !registered && (in.Channel == "" || in.Channel == own || (in.Channel == plugin && !anyChannel)) {
		in.Channel = own
	}
	if registered && ch.Def.NoMemory {
		in.NoMemory = true
	}
	if in.Channel != own && !registered && !anyChannel {
		return Input{}, fmt.Errorf("%w: plugin %q may inject only into its own channel %q, not %q "+
			"(declare the capability %q to inject into other channels)",
			sdk.ErrInjectRefused, plugin, own, in.Channel, sdk.CapabilityInjectChannels)
	}
	if (in.UserID != "" || in.GroupID != "") && !slices.Contains(caps, sdk.CapabilityInjectUser) {
		return Input{}, fmt.Errorf("%w: plugin %q may not speak as user %q or in group %q "+
			"(declare the capability %q to relay people's messages)",
			sdk.ErrInjectRefused, plugin, in.UserID, in.GroupID, sdk.CapabilityInjectUser)
	}
	in.Source = plugin
	return Input{Injection: in, Plugin: plugin}, nil
}

// Services implements host.Host.
func (k *Kernel) Services(plugin string) host.Services {
	var s host.Services
	if k.cfg.Services != nil {
		s = k.cfg.Services(plugin)
	}
	if s.Logger == nil {
		s.Logger = k.log.With("plugin", plugin)
	}
	return s
}

// kv returns plugin's key-value storage, nil if the host has none.
func (k *Kernel) kv(plugin string) sdk.KV {
	if v, ok := k.kvs.Load(plugin); ok {
		return v.(sdk.KV)
	}
	if k.cfg.Services == nil {
		return nil
	}
	kv := k.cfg.Services(plugin).KV
	if kv == nil {
		return nil
	}
	k.kvs.Store(plugin, kv)
	return kv
}

// toolSet is a request's tool list with what the turn needs of it,
// worked out once per registry change and set of offered tools.
type toolSet struct {
	specs  []llm.ToolSpec
	tokens int             // toolsTokens(specs)
	names  map[string]bool // the names in specs; shared by turns, never changed
}

// toolSpecs returns the tool list for the model in this turn: the
// registered tools (specs and their token estimates rebuilt only when the
// registry changed), less those the policy does not offer to this
// requester and on-demand tools of plugins the session has not loaded.
// The list, its estimate and its names are reused while the same tools
// are offered, so a turn costs one check per tool and no copies.
func (k *Kernel) toolSpecs(t *turnState) toolSet {
	list, callNames := k.tools.ListNamed()
	mask := make([]bool, len(list))
	for i, tool := range list {
		mask[i] = k.offered(t, tool)
	}
	k.specMu.Lock()
	if !sameTools(list, k.specVersion) {
		specs := make([]llm.ToolSpec, len(list))
		toks := make([]int, len(list))
		for i, t := range list {
			specs[i] = llm.NewToolSpec(callNames[i], t.Def.Description, json.RawMessage(t.Schema))
			toks[i] = toolsTokens(specs[i : i+1])
		}
		k.specVersion, k.specs, k.specTokens, k.offerMask = list, specs, toks, nil
	}
	if k.offerMask == nil || !slices.Equal(mask, k.offerMask) {
		set := toolSet{specs: make([]llm.ToolSpec, 0, len(list)), names: make(map[string]bool, len(list))}
		outList := make([]*tools.Tool, 0, len(list))
		for i, tool := range list {
			if mask[i] {
				set.specs, outList = append(set.specs, k.specs[i]), append(outList, tool)
				set.tokens += k.specTokens[i]
				set.names[callNames[i]] = true
			}
		}
		k.offerMask, k.offerSet, k.offerList = mask, set, outList
	}
	set, outList := k.offerSet, k.offerList
	k.specMu.Unlock()
	// Only the offered tools' descriptions are asked for.
	if described := k.describe(outList, set.specs); !sameSpecs(described, set.specs) {
		set.specs, set.tokens = described, toolsTokens(described) // the names stay
	}
	return set
}

// sameSpecs reports whether a and b are the same slice.
func sameSpecs(a, b []llm.ToolSpec) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// offered reports whether tool is in this turn's tool list.
func (k *Kernel) offered(t *turnState, tool *tools.Tool) bool {
	return k.inScope(t, tool) && (k.cfg.Policy == nil || k.cfg.Policy.Offer(tool, t.requester()))
}

// inScope is the part of offered that does not depend on the policy: the
// session loaded the tool's plugin if it is on demand, the channel is one
// the tool serves.
func (k *Kernel) inScope(t *turnState, tool *tools.Tool) bool {
	if k.onDemand(tool) && !t.s.pluginUsed(tool.Plugin) {
		return false
	}
	if len(tool.Def.Channels) > 0 && !slices.Contains(tool.Def.Channels, t.in.Channel) {
		return false
	}
	if tool.Name == useToolName && !k.hasOnDemand(t) {
		return false
	}
	return true
}

func sameTools(a, b []*tools.Tool) bool {
	if len(a) != len(b) {
		return false
	}
	return len(a) == 0 || &a[0] == &b[0]
}

// ErrClosed is returned for inputs submitted after Close.
var ErrClosed = errors.New("kernel is shut down")

// Close stops accepting input, cancels running turns, waits for them, and
// stops the plugins in reverse load order.
func (k *Kernel) Close() error {
	k.mu.Lock()
	if k.closed {
		k.mu.Unlock()
		return nil
	}
	k.closed = true
	k.mu.Unlock()
	k.cancel(ErrClosed) // the turns still running end, their cause this
	k.wg.Wait()
	return k.stopPlugins()
}
