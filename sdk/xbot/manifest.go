package xbot

import (
	"context"
	"encoding/json"
	"time"
)

// Plugin is an xbot Go plugin: a manifest, and Activate/Deactivate with a
// PluginContext. Adapt turns one into a Hearth plugin.
type Plugin interface {
	// Manifest returns the plugin's metadata.
	Manifest() PluginManifest
	// Activate registers the plugin's tools, hooks and enrichers.
	Activate(ctx PluginContext) error
	// Deactivate releases what Activate acquired.
	Deactivate(ctx PluginContext) error
}

// PluginManifest is xbot's plugin metadata (plugin.json). Hearth reads
// ID (shown as the plugin's xbot id), Name, Version and Description; the
// rest is accepted and kept for the plugin's own use.
type PluginManifest struct {
	ID               string             `json:"id"`
	Name             string             `json:"name"`
	Version          string             `json:"version"`
	Description      string             `json:"description"`
	Author           string             `json:"author,omitempty"`
	Homepage         string             `json:"homepage,omitempty"`
	Runtime          RuntimeType        `json:"runtime"`
	Entry            string             `json:"entry"`
	EntryWindows     string             `json:"entry_windows,omitempty"`
	EntryDarwin      string             `json:"entry_darwin,omitempty"`
	EntryLinux       string             `json:"entry_linux,omitempty"`
	Executable       string             `json:"executable,omitempty"`
	Args             []string           `json:"args,omitempty"`
	ActivationEvents []string           `json:"activation_events"`
	Permissions      []string           `json:"permissions"`
	Contributes      *PluginContributes `json:"contributes,omitempty"`
	Dependencies     []PluginDependency `json:"dependencies,omitempty"`
	Web              *WebPluginDecl     `json:"web,omitempty"`
	// Timeout bounds activation (DefaultPluginTimeout when zero).
	Timeout time.Duration `json:"-"`
}

// DefaultPluginTimeout is xbot's default bound on activation and calls.
const DefaultPluginTimeout = 30 * time.Second

// WebPluginDecl is xbot's frontend module declaration.
type WebPluginDecl struct {
	Entry       string          `json:"entry"`
	Contributes json.RawMessage `json:"contributes,omitempty"`
}

// PluginDependency names another plugin this one needs.
type PluginDependency struct {
	ID      string `json:"id"`
	Version string `json:"version"`
}

// PluginContributes declares what a plugin provides (documentation and
// discovery; the registrations in Activate are what count).
type PluginContributes struct {
	Tools            []ToolContribution         `json:"tools,omitempty"`
	Hooks            []HookContribution         `json:"hooks,omitempty"`
	ContextEnrichers []EnricherContribution     `json:"context_enrichers,omitempty"`
	Commands         []CommandContribution      `json:"commands,omitempty"`
	Crons            []CronContribution         `json:"crons,omitempty"`
	Themes           []ThemeContribution        `json:"themes,omitempty"`
	Overlays         []OverlayContribution      `json:"overlays,omitempty"`
	Configuration    *ConfigurationContribution `json:"configuration,omitempty"`
	UI               []UISlotContribution       `json:"ui,omitempty"`
}

// ToolContribution declares a tool.
type ToolContribution struct {
	Name        string         `json:"name"`
	Description string         `json:"description"`
	InputSchema map[string]any `json:"input_schema,omitempty"`
}

// HookContribution declares a hook: an event and a tool matcher.
type HookContribution struct {
	Event   string `json:"event"`
	Matcher string `json:"matcher,omitempty"`
}

// EnricherContribution declares a context enricher.
type EnricherContribution struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

// CommandContribution declares a slash command.
type CommandContribution struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

// CronContribution declares a scheduled message.
type CronContribution struct {
	Message      string `json:"message"`
	CronExpr     string `json:"cron_expr,omitempty"`
	EverySeconds int    `json:"every_seconds,omitempty"`
	At           string `json:"at,omitempty"`
	DelaySeconds int    `json:"delay_seconds,omitempty"`
}

// ThemeContribution declares a theme file.
type ThemeContribution struct {
	ID   string `json:"id"`
	File string `json:"file"`
}

// OverlayContribution declares a full-screen overlay.
type OverlayContribution struct {
	ID          string `json:"id"`
	Description string `json:"description"`
}

// ConfigurationContribution declares user settings.
type ConfigurationContribution struct {
	Title      string                    `json:"title"`
	Properties map[string]ConfigProperty `json:"properties"`
}

// ConfigProperty is one user setting.
type ConfigProperty struct {
	Type        string `json:"type"`
	Default     any    `json:"default,omitempty"`
	Description string `json:"description"`
}

// UISlotContribution declares a widget in a UI zone.
type UISlotContribution struct {
	ID              string   `json:"id"`
	Slot            string   `json:"slot"`
	Priority        int      `json:"priority,omitempty"`
	Description     string   `json:"description,omitempty"`
	RefreshInterval string   `json:"refresh_interval,omitempty"`
	Triggers        []string `json:"triggers,omitempty"`
	Sync            bool     `json:"sync,omitempty"`
	Interactive     bool     `json:"interactive,omitempty"`
}

// RuntimeType says how xbot runs a plugin.
type RuntimeType string

// xbot's runtimes. A Go plugin adapted with Adapt runs compiled in (or as
// a Hearth child process with pluginrpc.Serve), whatever it declares.
const (
	RuntimeNative RuntimeType = "native"
	RuntimeStdio  RuntimeType = "stdio"
	RuntimeGRPC   RuntimeType = "grpc"
	RuntimeWASM   RuntimeType = "wasm"
	RuntimeScript RuntimeType = "script"
)

// xbot's permission names. Hearth does not gate the PluginContext by
// them: what a plugin may do is Hearth's policy's to decide.
const (
	PermToolsRegister     = "tools.register"
	PermToolsCall         = "tools.call"
	PermHooksSubscribe    = "hooks.subscribe"
	PermContextEnrich     = "context.enrich"
	PermStoragePrivate    = "storage.private"
	PermStorageShared     = "storage.shared"
	PermNetworkOutbound   = "network.outbound"
	PermBusRead           = "bus.read"
	PermBusWrite          = "bus.write"
	PermBusPlugin         = "bus.plugin"
	PermUIContribute      = "ui.contribute"
	PermChannelsRegister  = "channels.register"
	PermCommandsRegister  = "commands.register"
	PermCronSchedule      = "cron.schedule"
	PermUIThemes          = "ui.themes"
	PermUIOverlay         = "ui.overlay"
	PermNotificationsSend = "notifications.send"
	PermRPC               = "rpc"
)

// HookEvent names a lifecycle event.
type HookEvent string

// xbot's hook events. Hearth runs PreToolUse, PostToolUse,
// PostToolUseFailure, UserPromptSubmit and AgentStop; registering any
// other is an error (see PluginContext.OnEvent).
const (
	HookPreToolUse       HookEvent = "PreToolUse"
	HookPostToolUse      HookEvent = "PostToolUse"
	HookPostToolUseError HookEvent = "PostToolUseFailure"
	HookUserPromptSubmit HookEvent = "UserPromptSubmit"
	HookAgentStop        HookEvent = "AgentStop"
	HookSessionStart     HookEvent = "SessionStart"
	HookSessionEnd       HookEvent = "SessionEnd"
	HookSubAgentStart    HookEvent = "SubAgentStart"
	HookSubAgentStop     HookEvent = "SubAgentStop"
	HookPreCompact       HookEvent = "PreCompact"
	HookPostCompact      HookEvent = "PostCompact"
	HookCronFired        HookEvent = "CronFired"
	HookWebhookReceived  HookEvent = "WebhookReceived"
)

// HookDecision is a hook's verdict.
type HookDecision string

// The verdicts. On PreToolUse, Deny refuses the call and Ask makes it
// need the user's approval; Allow and Defer leave Hearth's policy to
// decide: a hook can make the policy stricter, never looser.
const (
	DecisionAllow HookDecision = "allow"
	DecisionDeny  HookDecision = "deny"
	DecisionAsk   HookDecision = "ask"
	DecisionDefer HookDecision = "defer"
)

// HookResult is a hook's answer; nil means no objection.
type HookResult struct {
	Decision HookDecision   `json:"decision"`
	Message  string         `json:"message,omitempty"`
	Data     map[string]any `json:"data,omitempty"`
}

// HookPayload is what a hook receives. ToolName is the name the plugin
// that owns the tool registered (hello, not greeter__hello); Extra has
// "tool" (the name the model called), "plugin" (the tool's plugin) and,
// after a call, "output" (ToolOutput again, as xbot's git hooks read it).
type HookPayload struct {
	Event         HookEvent      `json:"event"`
	ToolName      string         `json:"tool_name,omitempty"`
	ToolInput     string         `json:"tool_input,omitempty"`
	ToolOutput    string         `json:"tool_output,omitempty"`
	ToolElapsedMs int64          `json:"tool_elapsed_ms,omitempty"`
	SessionID     string         `json:"session_id,omitempty"`
	Channel       string         `json:"channel,omitempty"`
	ChatID        string         `json:"chat_id,omitempty"`
	UserID        string         `json:"user_id,omitempty"`
	TenantID      int64          `json:"tenant_id,omitempty"`
	Extra         map[string]any `json:"extra,omitempty"`
}

// HookHandler handles one event.
type HookHandler func(ctx context.Context, payload *HookPayload) (*HookResult, error)

// ContextEnricher returns text for the model's context before each turn.
type ContextEnricher func(ctx context.Context) (string, error)

// StyleClass is a semantic style of widget text.
type StyleClass string

// The styles.
const (
	StyleNormal  StyleClass = "normal"
	StyleDim     StyleClass = "dim"
	StyleAccent  StyleClass = "accent"
	StyleSuccess StyleClass = "success"
	StyleWarning StyleClass = "warning"
	StyleError   StyleClass = "error"
	StyleInfo    StyleClass = "info"
	StyleMuted   StyleClass = "muted"
	StyleRaw     StyleClass = "raw"
)

// WidgetSpan is one styled piece of a widget's text.
type WidgetSpan struct {
	Text  string
	Style StyleClass
}

// UIWidget renders a widget into spans for the given width (0: any).
type UIWidget interface {
	Render(width int) []WidgetSpan
}

// OverlayProvider renders a full-screen overlay.
type OverlayProvider interface {
	Render(width, height int) string
	HandleKey(key string) bool
}

// SoundID names a sound effect.
type SoundID string

// The sounds.
const (
	SoundBeep        SoundID = "beep"
	SoundChime       SoundID = "chime"
	SoundComplete    SoundID = "complete"
	SoundError       SoundID = "error"
	SoundAchievement SoundID = "achievement"
)

// NotificationLevel is a notification's severity.
type NotificationLevel string

// The levels.
const (
	NotifyInfo    NotificationLevel = "info"
	NotifySuccess NotificationLevel = "success"
	NotifyWarning NotificationLevel = "warning"
	NotifyError   NotificationLevel = "error"
)
