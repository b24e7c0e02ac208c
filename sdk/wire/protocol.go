// Package wire is the Hearth plugin protocol as both sides speak it: the
// params and results of every method, the method names and their
// capability groups, and Conn, the newline-delimited JSON-RPC 2.0
// connection with requests in both directions; docs/protocol.md specifies
// it. Hosts (Hearth's pluginhost, tests, benchmarks) use it directly; a
// plugin author runs a plugin as a child process with pluginrpc.Serve and
// never imports it.
package wire

import (
	"encoding/json"
	"time"

	"github.com/hearth-agent/hearth/sdk"
)

// ProtocolVersion is the protocol version this package speaks.
const ProtocolVersion = 1

// Methods the host calls on the plugin.
const (
	MethodInitialize    = "initialize"          // handshake; the plugin starts and registers
	MethodToolCall      = "tool.call"           // run a tool
	MethodResolveEffect = "tool.resolveEffect"  // a tool's ResolveEffect, before its call is authorized
	MethodStageRun      = "stage.run"           // run a stage handler
	MethodHookDecide    = "hook.decide"         // run a decision hook
	MethodContext       = "plugin.context"      // the manifest's Context, before a turn
	MethodInstructions  = "plugin.instructions" // the manifest's InstructionsFunc, before a turn
	MethodShutdown      = "shutdown"            // stop handlers, Stop, then exit
	MethodRemove        = "plugin.remove"       // the plugin is being uninstalled: its remove handlers
	MethodPing          = "$/ping"              // liveness
)

// Methods the plugin calls on the host, by capability group. A plugin may
// call only the groups its plugin.json declares; core is always allowed.
const (
	MethodToolsRegister  = "tools.register"  // core
	MethodStagesRegister = "stages.register" // core
	MethodHooksRegister  = "hooks.register"  // core
	MethodInject         = "input.inject"    // core
	MethodToolProgress   = "tool.progress"   // core: a notification, see ToolProgressParams
	MethodInjectSync     = "input.injectSync"
	MethodLLMList        = "llm.listSources" // llm
	MethodLLMSet         = "llm.setSource"   // llm
	MethodLLMCurrent     = "llm.currentSource"

	MethodSettingsGet       = "settings.get"         // settings: this plugin's own
	MethodSettingsSet       = "settings.set"         // settings
	MethodSettingsList      = "settings.list"        // settings
	MethodSettingsRegister  = "settings.registerDef" // settings
	MethodSettingsDefs      = "settings.defs"        // settings
	MethodSettingsGetCore   = "settings.getCore"     // settings.core: Hearth's
	MethodSettingsSetCore   = "settings.setCore"     // settings.core
	MethodSettingsListCore  = "settings.listCore"    // settings.core
	MethodSettingsGetOther  = "settings.getPlugin"   // settings.plugins: other plugins'
	MethodSettingsSetOther  = "settings.setPlugin"   // settings.plugins.write: never another's secret
	MethodSettingsListOther = "settings.listPlugin"  // settings.plugins
	MethodSettingsDump      = "settings.dump"        // settings.plugins
	MethodSettingsPlugins   = "settings.plugins"     // settings.plugins
	MethodKVGet             = "kv.get"               // kv
	MethodKVSet             = "kv.set"               // kv
	MethodKVDelete          = "kv.delete"            // kv

	MethodMemoryRecall     = "memory.recall"     // memory
	MethodMemoryCommit     = "memory.commit"     // memory
	MethodMemoryIntrospect = "memory.introspect" // memory
	MethodMemoryMerge      = "memory.merge"      // memory
	MethodMemoryPurge      = "memory.purge"      // memory
	MethodMemoryAppendText = "memory.appendText" // memory
	MethodMemoryDocQuery   = "memory.docQuery"   // memory
	MethodMemoryDocInsert  = "memory.docInsert"  // memory
	MethodMemoryDocRemove  = "memory.docRemove"  // memory
	MethodMemoryDocStats   = "memory.docStats"   // memory
	MethodKnowledgeSearch  = "knowledge.search"  // knowledge
	MethodKnowledgeAdd     = "knowledge.add"     // knowledge
	MethodKnowledgeList    = "knowledge.list"    // knowledge
)

// CapabilityGroup returns the group a plugin-to-host method belongs to.
func CapabilityGroup(method string) string {
	switch method {
	case MethodToolsRegister, MethodStagesRegister, MethodHooksRegister, MethodInject, MethodInjectSync, MethodToolProgress,
		MethodChannelsRegister, MethodChannelsUnregister, MethodWidgetsSet:
		return "core"
	case MethodLLMList, MethodLLMSet, MethodLLMCurrent:
		return "llm"
	case MethodSettingsGetCore, MethodSettingsSetCore, MethodSettingsListCore:
		return "settings.core"
	case MethodSettingsGetOther, MethodSettingsListOther, MethodSettingsDump, MethodSettingsPlugins:
		return "settings.plugins"
	case MethodSettingsSetOther:
		return "settings.plugins.write"
	}
	if i := indexByte(method, '.'); i > 0 {
		return method[:i]
	}
	return method
}

func indexByte(s string, c byte) int {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return i
		}
	}
	return -1
}

// InitializeParams opens the handshake.
type InitializeParams struct {
	// ProtocolVersions are the versions the host speaks, newest first.
	ProtocolVersions []int          `json:"protocolVersions"`
	HostVersion      string         `json:"hostVersion"`
	Plugin           string         `json:"plugin"`  // the registered name
	DataDir          string         `json:"dataDir"` // the plugin's own data directory
	Config           map[string]any `json:"config,omitempty"`
	Capabilities     []string       `json:"capabilities"` // the groups the plugin may use
}

// InitializeResult closes the handshake, after the plugin's Start returned
// and its registrations were made. The host applies Manifest as it applies
// a compiled-in plugin's (default modes, requirements, instructions,
// context) before it offers the plugin's tools.
type InitializeResult struct {
	ProtocolVersion int       `json:"protocolVersion"`
	SDKVersion      string    `json:"sdkVersion"`
	Name            string    `json:"name"`
	Manifest        *Manifest `json:"manifest,omitempty"`
	AutoRestart     bool      `json:"autoRestart"`
}

// Manifest is sdk.Manifest on the wire: its functions become flags, and
// the host calls them as methods.
type Manifest struct {
	sdk.Manifest
	// HasContext says the plugin answers "plugin.context" before each
	// turn (sdk.Manifest.Context).
	HasContext bool `json:"hasContext,omitzero"`
	// DynamicInstructions says the plugin answers "plugin.instructions"
	// before each turn (sdk.Manifest.InstructionsFunc); Instructions is
	// the text used when it does not answer.
	DynamicInstructions bool `json:"dynamicInstructions,omitzero"`
	// PKUManifest carries the PKU harness model's preferences, data
	// sources, providers, speech and OCR (docs/pku-wire.md).
	PKUManifest
}

// FromManifest converts a plugin's manifest for the wire. Dynamic
// instructions are also evaluated once into Instructions, the fallback.
func FromManifest(m sdk.Manifest) *Manifest {
	w := &Manifest{Manifest: m, HasContext: m.Context != nil, DynamicInstructions: m.InstructionsFunc != nil}
	if m.InstructionsFunc != nil {
		w.Instructions = m.InstructionsFunc()
	}
	w.InstructionsFunc, w.Context = nil, nil
	return w
}

// ResolveEffectParams asks the plugin for the effect of one call
// (sdk.ToolDef.ResolveEffect); the result is an sdk.Assessment. The host
// refuses the call unless the answer names a valid effect in time.
type ResolveEffectParams struct {
	Tool string          `json:"tool"` // the tool's name inside the plugin
	Args json.RawMessage `json:"args"` // validated by the host
}

// ContextParams asks for the manifest's per-turn context.
type ContextParams struct {
	Query string `json:"query"` // the user's latest message
	// CallToken names this call in the plugin's memory.* and knowledge.*
	// requests while it runs (see TokenParams).
	CallToken string `json:"callToken,omitempty"`
}

// TextResult answers plugin.context and plugin.instructions.
type TextResult struct {
	Text string `json:"text"`
}

// VersionErrorData is the data of a CodeVersion error.
type VersionErrorData struct {
	Supported []int `json:"supported"`
}

// ToolDef is a tool definition on the wire: sdk.ToolDef with the fields a
// Go struct cannot carry as JSON made explicit.
type ToolDef struct {
	sdk.ToolDef
	TimeoutMS int64 `json:"timeoutMs,omitzero"`
	// HasResolveEffect says the plugin answers "tool.resolveEffect" for
	// this tool; the host asks it before authorizing each call.
	HasResolveEffect bool `json:"hasResolveEffect,omitzero"`
	// DynamicDescription says the plugin answers "tool.describe" with the
	// description's current text; Description is the fallback.
	DynamicDescription bool `json:"dynamicDescription,omitzero"`
}

// Definition returns the sdk.ToolDef with the timeout restored.
func (d ToolDef) Definition() sdk.ToolDef {
	def := d.ToolDef
	def.Timeout = time.Duration(d.TimeoutMS) * time.Millisecond
	return def
}

// StageRegistration registers a stage handler; ID names it in stage.run.
// Guard says the handler may refuse the message (set Response): when the
// host cannot run it (the plugin died or did not answer in time), the
// message is refused instead of going on without the check.
type StageRegistration struct {
	ID       int       `json:"id"`
	Stage    sdk.Stage `json:"stage"`
	OwnTools bool      `json:"ownTools,omitzero"`
	Guard    bool      `json:"guard,omitzero"`
}

// HookRegistration registers a decision hook. The hook's answer to
// hook.decide must be an sdk.HookDecision whose verdict is allow, ask or
// deny; anything else (null, an empty or unknown verdict) refuses.
type HookRegistration struct {
	ID int `json:"id"`
}

// CallContext is sdk.ToolContext on the wire.
type CallContext struct {
	PluginID string        `json:"pluginId"`
	Tool     string        `json:"tool"`
	CallID   string        `json:"callId,omitempty"`
	Actor    sdk.Actor     `json:"actor"`
	Effect   sdk.Effect    `json:"effect,omitempty"`
	Turn     *sdk.TurnInfo `json:"turn,omitempty"`
	Channel  string        `json:"channel,omitempty"`
	ChatID   string        `json:"chatId,omitempty"`
	UserID   string        `json:"userId,omitempty"`
	GroupID  string        `json:"groupId,omitempty"`
	Grant    string        `json:"grant,omitempty"`
	// InjectedBy is the plugin that injected the turn's input, absent
	// when a person on a channel asked.
	InjectedBy string `json:"injectedBy,omitempty"`
}

// FromToolContext converts for the wire.
func FromToolContext(tc *sdk.ToolContext) CallContext {
	if tc == nil {
		return CallContext{}
	}
	return CallContext{PluginID: tc.PluginID, Tool: tc.Tool, CallID: tc.CallID, Actor: tc.Actor, Effect: tc.Effect,
		Turn: tc.Turn, Channel: tc.Channel, ChatID: tc.ChatID, UserID: tc.UserID, GroupID: tc.GroupID, Grant: tc.Grant,
		InjectedBy: tc.InjectedBy}
}

// ToolContext converts back.
func (c CallContext) ToolContext() *sdk.ToolContext {
	return &sdk.ToolContext{PluginID: c.PluginID, Tool: c.Tool, CallID: c.CallID, Actor: c.Actor, Effect: c.Effect,
		Turn: c.Turn, Channel: c.Channel, ChatID: c.ChatID, UserID: c.UserID, GroupID: c.GroupID, Grant: c.Grant,
		InjectedBy: c.InjectedBy}
}

// ToolCallParams asks the plugin to run a tool.
type ToolCallParams struct {
	Tool    string          `json:"tool"` // the tool's name inside the plugin
	Args    json.RawMessage `json:"args"` // validated by the host
	Context CallContext     `json:"context"`
	// ProgressToken, when not zero, says the host shows this call's
	// progress: the plugin's ToolContext.Progress sends "tool.progress"
	// notifications carrying it. Zero (an older host, or nobody
	// listening) leaves Progress nil.
	ProgressToken int64 `json:"progressToken,omitzero"`
	// CallToken names this call in the plugin's memory.* and knowledge.*
	// requests while it runs (see TokenParams).
	CallToken string `json:"callToken,omitempty"`
}

// ToolProgressParams is the "tool.progress" notification a plugin sends
// while a call runs (sdk.ToolContext.Progress): Done out of Total (0 when
// unknown) and a short message. The host drops one whose token names no
// running call (the call ended, or never asked for progress), and shows
// at most about ten a second per call.
type ToolProgressParams struct {
	Token   int64   `json:"token"`
	Done    float64 `json:"done"`
	Total   float64 `json:"total,omitzero"`
	Message string  `json:"message,omitempty"`
}

// ToolCallResult is the handler's return value. A handler error is a
// CodeToolFailed error instead.
type ToolCallResult struct {
	Value json.RawMessage `json:"value"`
	// Text is set instead of Value when the handler returned a Go string,
	// so the host passes it to the model as is.
	Text *string `json:"text,omitempty"`
	// IsError marks a result the model should read as a failure (a map
	// with "isError": true, or a value whose IsError method says so).
	IsError bool `json:"isError,omitzero"`
	// Metadata is for renderers, not the model (xbot's ToolResult).
	Metadata map[string]string `json:"metadata,omitempty"`
	// MemoryText, when set, is the result text through the tool's
	// Cleaner (sdk.ToolDef.Cleaner, run by the plugin): the text memory
	// computation uses in place of the result. The model still reads
	// Text or Value.
	MemoryText *string `json:"memoryText,omitempty"`
	// Images are pictures the result carries (sdk.ImageResult,
	// sdk.WithImages, SetToolBlocks), at most toolcall.MaxImages of
	// toolcall.MaxImageBytes each; the host drops any beyond that and
	// says so in the result's text.
	Images []Image `json:"images,omitempty"`
	// Note is a line the host adds to the result's text (blocks
	// SetToolBlocks could not pass on).
	Note string `json:"note,omitempty"`
}

// Image is one picture of a tool result: MIMEType and Data (base64 in
// JSON), or an http(s) URL passed to the model as given (sdk.Image.URL).
type Image struct {
	MIMEType string `json:"mimeType,omitempty"`
	Data     []byte `json:"data,omitempty"`
	URL      string `json:"url,omitempty"`
}

// StageContext is sdk.StageContext on the wire (without its lock).
type StageContext struct {
	RawMessage       string           `json:"rawMessage"`
	UserID           string           `json:"userId,omitempty"`
	GroupID          string           `json:"groupId,omitempty"`
	ContextMsgs      []map[string]any `json:"contextMsgs,omitempty"`
	LLMText          string           `json:"llmText,omitempty"`
	ReasoningContent string           `json:"reasoningContent,omitempty"`
	TokenUsage       map[string]int   `json:"tokenUsage,omitempty"`
	ToolCalls        []sdk.ToolCall   `json:"toolCalls,omitempty"`
	ToolResults      []sdk.ToolResult `json:"toolResults,omitempty"`
	FinalText        string           `json:"finalText,omitempty"`
	Response         *string          `json:"response,omitempty"`
	Phase            sdk.Stage        `json:"phase"`
	Memory           []sdk.MemItem    `json:"memory,omitempty"`
	NoMemory         bool             `json:"noMemory,omitzero"`
	Extra            map[string]any   `json:"extra,omitempty"`
	Channel          string           `json:"channel,omitempty"`
	ChatID           string           `json:"chatId,omitempty"`
	// InjectedBy is the plugin that injected the input, absent when a
	// person sent it; read-only (the host keeps its own).
	InjectedBy string `json:"injectedBy,omitempty"`
}

// FromStage copies a stage context for the wire.
func FromStage(sc *sdk.StageContext) StageContext {
	return StageContext{
		RawMessage: sc.RawMessage, UserID: sc.UserID, GroupID: sc.GroupID, ContextMsgs: sc.ContextMsgs,
		LLMText: sc.LLMText, ReasoningContent: sc.ReasoningContent, TokenUsage: sc.TokenUsage,
		ToolCalls: sc.ToolCalls, ToolResults: sc.ToolResults, FinalText: sc.FinalText, Response: sc.Response,
		Phase: sc.Phase, Memory: sc.Memory, NoMemory: sc.NoMemory, Extra: sc.Extra, Channel: sc.Channel, ChatID: sc.ChatID,
		InjectedBy: sc.InjectedBy,
	}
}

// ApplyTo writes the wire context's fields into sc. The host then enforces
// the permission matrix as it does for in-process handlers, and keeps its
// InjectedBy.
func (w StageContext) ApplyTo(sc *sdk.StageContext) {
	sc.RawMessage, sc.UserID, sc.GroupID, sc.ContextMsgs = w.RawMessage, w.UserID, w.GroupID, w.ContextMsgs
	sc.LLMText, sc.ReasoningContent, sc.TokenUsage = w.LLMText, w.ReasoningContent, w.TokenUsage
	sc.ToolCalls, sc.ToolResults, sc.FinalText, sc.Response = w.ToolCalls, w.ToolResults, w.FinalText, w.Response
	sc.Memory, sc.NoMemory, sc.Extra, sc.Channel, sc.ChatID = w.Memory, w.NoMemory, w.Extra, w.Channel, w.ChatID
	sc.InjectedBy = w.InjectedBy
}

// StageRunParams asks the plugin to run one stage handler.
type StageRunParams struct {
	ID      int          `json:"id"`
	Context StageContext `json:"context"`
	// CallToken names this call in the plugin's memory.* and knowledge.*
	// requests while it runs (see TokenParams).
	CallToken string `json:"callToken,omitempty"`
}

// StageRunResult is the context after the handler, and its error text.
type StageRunResult struct {
	Context StageContext `json:"context"`
	Error   string       `json:"error,omitempty"`
}

// HookDecideParams asks a decision hook.
type HookDecideParams struct {
	ID      int             `json:"id"`
	Tool    string          `json:"tool"`
	Args    json.RawMessage `json:"args"`
	Context CallContext     `json:"context"`
	// CallToken names this call in the plugin's memory.* and knowledge.*
	// requests while it runs (see TokenParams).
	CallToken string `json:"callToken,omitempty"`
}

// InjectParams is an injected input.
type InjectParams struct {
	sdk.Injection
}

// InjectSyncResult is the answer to an injected input.
type InjectSyncResult struct {
	Text string `json:"text"`
}

// SourceParams names a model source.
type SourceParams struct {
	Name string `json:"name"`
}

// SettingParams addresses a setting (Plugin only for another plugin's),
// or the keys with Prefix; Value is the value to set.
type SettingParams struct {
	Plugin string          `json:"plugin,omitempty"`
	Key    string          `json:"key,omitempty"`
	Prefix string          `json:"prefix,omitempty"`
	Value  json.RawMessage `json:"value,omitzero"`
}

// ValueResult answers settings.get*, and kv.get: Found is false for a key
// that is not set (and, for a setting, not declared with a default).
type ValueResult struct {
	Value json.RawMessage `json:"value,omitzero"`
	Found bool            `json:"found"`
}

// KVParams addresses a key of the plugin's own storage.
type KVParams struct {
	Key   string          `json:"key"`
	Value json.RawMessage `json:"value,omitzero"`
}

// RecallParams asks the graph memory.
type RecallParams struct {
	Query     []string `json:"query"`
	Depth     int      `json:"depth"`
	CallToken string   `json:"callToken,omitempty"` // the call being served (see TokenParams)
}

// RecallResult is what the graph memory recalled.
type RecallResult struct {
	Entities  []sdk.Entity   `json:"entities"`
	Relations []sdk.Relation `json:"relations"`
}

// CommitParams records triples.
type CommitParams struct {
	Triples   []sdk.Triple `json:"triples"`
	CallToken string       `json:"callToken,omitempty"` // the call being served (see TokenParams)
}

// MergeParams folds one entity into another.
type MergeParams struct {
	Source    string `json:"source"`
	Target    string `json:"target"`
	CallToken string `json:"callToken,omitempty"` // the call being served (see TokenParams)
}

// PurgeParams removes entities.
type PurgeParams struct {
	Criteria  map[string]string `json:"criteria"`
	Mode      string            `json:"mode"`
	CallToken string            `json:"callToken,omitempty"` // the call being served (see TokenParams)
}

// CountResult answers memory.merge and memory.purge.
type CountResult struct {
	Count int `json:"count"`
}

// SearchParams searches the document memory or the knowledge base.
type SearchParams struct {
	Query     string `json:"query"`
	TopK      int    `json:"topK"`
	CallToken string `json:"callToken,omitempty"` // the call being served (see TokenParams)
}

// DocParams names a document.
type DocParams struct {
	ID        string `json:"id"`
	CallToken string `json:"callToken,omitempty"` // the call being served (see TokenParams)
}

// KnowledgeParams adds a knowledge entry.
type KnowledgeParams struct {
	Name      string `json:"name"`
	Content   string `json:"content"`
	CallToken string `json:"callToken,omitempty"` // the call being served (see TokenParams)
}

// TokenParams are the params of memory.introspect, memory.docStats and
// knowledge.list: only the call token.
//
// A call token names the host request a plugin is serving: the
// host sends a fresh, unguessable one with each request that runs the
// plugin's code for a turn (tool.call, stage.run, hook.decide,
// plugin.context), and the plugin's SDK sends it back in the
// "callToken" member of each memory.* and knowledge.* request it makes
// while serving that request. The host maps a token of a call of this
// plugin that has not ended to the conversation the call runs in. A
// request without one acts in the global scope (the plugin's own work,
// outside any call). A write (memory.commit, memory.merge, memory.purge,
// memory.appendText, memory.docInsert, memory.docRemove, knowledge.add)
// with any other token, of an ended call, another plugin's or made up,
// is refused with CodeCallEnded; a read with one acts in the global
// scope. A plugin never names a scope itself.
type TokenParams struct {
	CallToken string `json:"callToken,omitempty"`
}

// AppendTextParams are memory.appendText's params: the event, and the
// call token.
type AppendTextParams struct {
	sdk.TextEvent
	CallToken string `json:"callToken,omitempty"`
}

// DocInsertParams are memory.docInsert's params: the document, and the
// call token. The answer is a DocParams with the document's id.
type DocInsertParams struct {
	sdk.Doc
	CallToken string `json:"callToken,omitempty"`
}
