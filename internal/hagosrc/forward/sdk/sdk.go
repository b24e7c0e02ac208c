// Package sdk is the package a HomeAgent Go plugin imports as
// gitcode.com/JianFeeeee/homeagent-sdk/sdk. Hearth writes it out, with a
// go.mod naming that module, when it builds a HomeAgent source folder
// (package hagosrc), so the plugin compiles unchanged against Hearth's sdk:
// every name here is a type alias, constant or variable forwarding to
// github.com/hearth-agent/hearth/sdk, so values pass between the two
// without conversion.
//
// It holds the names of HomeAgent's sdk package that Hearth has;
// testdata/homeagent_names.txt lists them all, and TestForwardNames
// fails when Hearth has a name this file does not forward.
package sdk

import hearth "github.com/hearth-agent/hearth/sdk"

// SDKVersion is the version of Hearth's SDK that the plugin runs against.
var SDKVersion = hearth.SDKVersion

// Plugin is the interface every plugin implements.
type Plugin = hearth.Plugin

// PluginSDK is the API a plugin gets at Start.
type PluginSDK = hearth.PluginSDK

// New returns a PluginSDK not connected to Hearth, for a plugin's own
// tests (HomeAgent's constructor).
var New = hearth.New

// ToolDef describes a tool.
type ToolDef = hearth.ToolDef

// ToolHandler handles a tool call.
type ToolHandler = hearth.ToolHandler

// ToolCall is a tool call the model asked for, as stages see it.
type ToolCall = hearth.ToolCall

// ToolResult is the outcome of a tool call, as stages see it.
type ToolResult = hearth.ToolResult

// Stage is a point in the message pipeline.
type Stage = hearth.Stage

// StageHandler handles a stage.
type StageHandler = hearth.StageHandler

// StageContext is what stage handlers read and write.
type StageContext = hearth.StageContext

// MemItem is a recalled memory item in a StageContext.
type MemItem = hearth.MemItem

// The pipeline's stages.
const (
	StageOnInput        = hearth.StageOnInput
	StagePreAction      = hearth.StagePreAction
	StagePostAction     = hearth.StagePostAction
	StageBeforeToolcall = hearth.StageBeforeToolcall
	StageAfterToolcall  = hearth.StageAfterToolcall
	StageBeforeOutput   = hearth.StageBeforeOutput
	StageAfterOutput    = hearth.StageAfterOutput
)

// SettingsAPI reads and writes settings.
type SettingsAPI = hearth.SettingsAPI

// ConfigDef describes a setting.
type ConfigDef = hearth.ConfigDef

// MemoryAPI is the graph memory.
type MemoryAPI = hearth.MemoryAPI

// Entity is a node of the graph memory.
type Entity = hearth.Entity

// Relation is an edge of the graph memory.
type Relation = hearth.Relation

// Triple is a fact to commit to the graph memory.
type Triple = hearth.Triple

// TextMemoryAPI is the text event memory.
type TextMemoryAPI = hearth.TextMemoryAPI

// TextEvent is one text memory event.
type TextEvent = hearth.TextEvent

// DocMemoryAPI is the document store.
type DocMemoryAPI = hearth.DocMemoryAPI

// Doc is a document of the document store.
type Doc = hearth.Doc

// KnowledgeAPI is the knowledge store.
type KnowledgeAPI = hearth.KnowledgeAPI

// Knowledge is a knowledge entry.
type Knowledge = hearth.Knowledge

// LLMAPI is the model provider API.
type LLMAPI = hearth.LLMAPI

// ChannelDef says how a channel's text joins memory.
type ChannelDef = hearth.ChannelDef

// The output capabilities a channel declares.
const (
	CapText       = hearth.CapText
	CapFile       = hearth.CapFile
	CapImage      = hearth.CapImage
	CapAudio      = hearth.CapAudio
	CapStructured = hearth.CapStructured
)

// StageScope says which events a stage handler receives.
type StageScope = hearth.StageScope

// The stage scopes.
const (
	StageScopeGlobal   = hearth.StageScopeGlobal
	StageScopeOwnTools = hearth.StageScopeOwnTools
)

// IOInjector is HomeAgent's input-injection method set; *PluginSDK has it.
type IOInjector = hearth.IOInjector

// ToolRegistrar is HomeAgent's function type for registering a tool.
type ToolRegistrar = hearth.ToolRegistrar

// StageRegistrar is HomeAgent's function type for registering a stage handler.
type StageRegistrar = hearth.StageRegistrar

// APIRegistrar is HomeAgent's function type for registering a plugin API.
type APIRegistrar = hearth.APIRegistrar

// InputChannelRegistrar is HomeAgent's function type for registering an input channel.
type InputChannelRegistrar = hearth.InputChannelRegistrar

// OutputChannelRegistrar is HomeAgent's function type for registering an output channel.
type OutputChannelRegistrar = hearth.OutputChannelRegistrar

// EventType names a kind of kernel event.
type EventType = hearth.EventType

// The kernel events.
const (
	EventRawInput       = hearth.EventRawInput
	EventAgentOutput    = hearth.EventAgentOutput
	EventAgentLLMChain  = hearth.EventAgentLLMChain
	EventToolCall       = hearth.EventToolCall
	EventReasoning      = hearth.EventReasoning
	EventStage          = hearth.EventStage
	EventSystem         = hearth.EventSystem
	EventReasoningDelta = hearth.EventReasoningDelta
	EventContentDelta   = hearth.EventContentDelta
)

// Event is one kernel event.
type Event = hearth.Event

// EventHandler receives a subscribed event.
type EventHandler = hearth.EventHandler

// EventSubscriber subscribes to kernel events.
type EventSubscriber = hearth.EventSubscriber

// PluginMgrAPI is the plugin manager as a plugin sees it.
type PluginMgrAPI = hearth.PluginMgrAPI

// SocialAPI is the read-only social graph (unavailable in Hearth).
type SocialAPI = hearth.SocialAPI

// PersonProfile is a person of the social graph.
type PersonProfile = hearth.PersonProfile

// SocialRelation is a relation between two persons.
type SocialRelation = hearth.SocialRelation

// ProxyDecl declares a service to reverse-proxy (Hearth has no reverse proxy).
type ProxyDecl = hearth.ProxyDecl

// ProxyDeclarer collects proxy declarations.
type ProxyDeclarer = hearth.ProxyDeclarer

// The ProxyDecl.Auth values.
const (
	ProxyAuthHomeAgent = hearth.ProxyAuthHomeAgent
	ProxyAuthNone      = hearth.ProxyAuthNone
)

// ValidProxyAuth reports whether auth is a ProxyDecl.Auth value.
func ValidProxyAuth(auth string) bool { return hearth.ValidProxyAuth(auth) }

// EffectiveProxyAuth returns auth, or ProxyAuthHomeAgent for "".
func EffectiveProxyAuth(auth string) string { return hearth.EffectiveProxyAuth(auth) }

// ValidProxyHostLabel reports whether label is a valid host label.
func ValidProxyHostLabel(label string) bool { return hearth.ValidProxyHostLabel(label) }

// NormalizeProxyHost derives a host label from a plugin name.
func NormalizeProxyHost(pluginName string) string { return hearth.NormalizeProxyHost(pluginName) }

// ValidateProxyDecl returns what is wrong with d, or "".
func ValidateProxyDecl(d ProxyDecl) string { return hearth.ValidateProxyDecl(d) }
