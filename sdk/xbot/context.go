package xbot

import (
	"context"
	"errors"
)

// ErrNotSupported is wrapped by the PluginContext methods for xbot
// features Hearth does not have (middleware, cron, commands, themes,
// overlays, channel providers, session hooks).
var ErrNotSupported = errors.New("not supported by Hearth")

// ToolRegistrar registers tools.
type ToolRegistrar interface {
	RegisterTool(tool PluginTool) error
	RegisterTools(tools ...PluginTool) error
	UseMiddleware(middleware PluginMiddleware) error
}

// HookSubscriber subscribes to lifecycle events.
type HookSubscriber interface {
	OnPreToolUse(matcher string, handler HookHandler) error
	OnPostToolUse(matcher string, handler HookHandler) error
	OnUserPrompt(handler HookHandler) error
	OnAgentStop(handler HookHandler) error
	OnSessionStart(handler HookHandler) error
	OnSessionEnd(handler HookHandler) error
	OnEvent(event HookEvent, matcher string, handler HookHandler) error
	OnAllToolUse(handler HookHandler) error
	OnError(handler HookHandler) error
}

// StorageProvider is the plugin's key-value storage.
type StorageProvider interface {
	Storage() StorageAccessor
	StorageInt(key string) (int64, bool)
	StorageBool(key string) (bool, bool)
	StorageJSON(key string, value any) error
	StorageGetJSON(key string, target any) error
}

// SessionMetadata describes where the plugin runs.
type SessionMetadata interface {
	PluginID() string
	WorkingDir() string
	Channel() string
	ChatID() string
	TenantID() int64
	Logger() Logger
}

// EventBusPublisher is the plugin-to-plugin event bus.
type EventBusPublisher interface {
	Subscribe(topic string, handler PluginEventHandler) error
	Publish(topic string, data any) error
}

// UIContributor contributes widgets, themes and overlays.
type UIContributor interface {
	ContributeUI(widgetID, zone string, widget UIWidget, priority int) error
	UpdateWidget(widgetID string) error
	SetWidgetRegistry(wr *WidgetRegistry)
	ContributeTheme(id string, themeData []byte) error
	RegisterOverlay(id string, provider OverlayProvider) error
	ShowOverlay(id string) error
	HideOverlay() error
	RegisterWebActionHandler(widgetID string, handler WebActionHandler) error
}

// CronScheduler schedules messages.
type CronScheduler interface {
	ScheduleCron(spec CronContribution) (string, error)
	CancelCron(jobID string) error
}

// PluginContext is what Activate receives, with xbot's method set. What
// each method does on Hearth is in docs/plugins.md (xbot Go plugins).
type PluginContext interface {
	ToolRegistrar
	HookSubscriber
	StorageProvider
	SessionMetadata
	EventBusPublisher
	UIContributor
	CronScheduler

	EnrichContext(name string, enricher ContextEnricher) error
	OnPluginError(callback PluginErrorCallback) error
	SetValue(key string, value any)
	GetValue(key string) (any, bool)
	ToolCallCount() int64
	HookCallCount() int64
	RegisterChannelProvider(provider any) error
	RegisterCommand(name string, description string, handler PluginCommandHandler) error
	Notify(level NotificationLevel, title, message string)
	PlaySound(sound SoundID)
}

// PluginErrorCallback is told about errors in the plugin's own lifecycle.
type PluginErrorCallback func(ctx context.Context, err error)

// PluginEventHandler receives an event bus message.
type PluginEventHandler func(ctx context.Context, topic string, data any) error

// PluginMiddleware wraps tool calls (not supported by Hearth).
type PluginMiddleware func(ctx context.Context, toolName string, input string, next PluginMiddlewareNext) (*ToolResult, error)

// PluginMiddlewareNext calls the next middleware.
type PluginMiddlewareNext func(ctx context.Context, toolName string, input string) (*ToolResult, error)

// PluginCommandHandler answers a slash command (not supported by Hearth).
type PluginCommandHandler func(ctx context.Context, args string, pctx PluginContext) (string, error)

// WebActionHandler handles a user's action on a web widget.
type WebActionHandler func(action string, data string) (string, error)

// WidgetRegistry is xbot's TUI widget registry; Hearth keeps widgets per
// plugin and ignores a registry handed in.
type WidgetRegistry struct{}

// Logger is xbot's structured plugin logger.
type Logger interface {
	Debug(msg string, fields ...Field)
	Info(msg string, fields ...Field)
	Warn(msg string, fields ...Field)
	Error(msg string, fields ...Field)
	Debugf(format string, args ...any)
	Infof(format string, args ...any)
	Warnf(format string, args ...any)
	Errorf(format string, args ...any)
	WithField(key string, value any) Logger
	WithFields(fields ...Field) Logger
}

// Field is one structured logging field.
type Field struct {
	Key   string
	Value any
}

// StorageAccessor is the plugin's private key-value store of strings.
type StorageAccessor interface {
	// Get returns the value of key; ("", false) when it is not set.
	Get(key string) (string, bool)
	// Set stores value under key.
	Set(key, value string) error
	// Delete removes key.
	Delete(key string) error
	// Keys returns the keys, sorted.
	Keys() []string
	// Clear removes every key.
	Clear() error
}
