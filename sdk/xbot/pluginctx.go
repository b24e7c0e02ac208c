package xbot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hearth-agent/hearth/sdk"
)

// Context is the PluginContext of one Hearth plugin: NewContext wraps the
// PluginSDK a plugin receives in Start, and Adapt hands one to an xbot
// plugin's Activate.
type Context struct {
	s  *sdk.PluginSDK
	id string // the xbot id (PluginID); the Hearth name when none

	toolCalls, hookCalls atomic.Int64
	storeMu              sync.Mutex // kvStorage's

	mu        sync.Mutex
	values    map[string]any
	widgets   map[string]UIWidget
	zones     map[string]string
	rendered  map[string][]WidgetSpan
	enrichers []enricher
	onErr     PluginErrorCallback

	timeout time.Duration // hookTimeout's; set only by this package's tests
}

var _ PluginContext = (*Context)(nil)

type enricher struct {
	name string
	fn   ContextEnricher
}

// NewContext wraps the PluginSDK a plugin receives in Start.
func NewContext(s *sdk.PluginSDK) *Context {
	return &Context{s: s, id: s.PluginName()}
}

// RegisterTool registers a tool offered in every channel.
func (c *Context) RegisterTool(t PluginTool) error { return c.register(t, nil) }

// RegisterTools registers each tool, stopping at the first error.
func (c *Context) RegisterTools(tools ...PluginTool) error {
	for _, t := range tools {
		if err := c.register(t, nil); err != nil {
			return err
		}
	}
	return nil
}

// RegisterForChannel registers a tool offered only in sessions of the
// given channel (web, qq, ...). A channel's tools are merged with the
// global ones in name order.
func (c *Context) RegisterForChannel(channel string, t PluginTool) error {
	if channel == "" {
		return errors.New("xbot: RegisterForChannel needs a channel")
	}
	return c.register(t, []string{channel})
}

func (c *Context) register(t PluginTool, channels []string) error {
	if t == nil {
		return errors.New("xbot: RegisterTool with a nil tool")
	}
	def := t.Definition()
	err := c.s.RegisterRawTool(def.Name, sdk.ToolDef{
		Name: def.Name, Description: def.Description, Parameters: def.Schema(), Channels: channels,
	}, func(ctx context.Context, tc *sdk.ToolContext, _ map[string]any, raw json.RawMessage) (any, error) {
		c.toolCalls.Add(1)
		input := string(raw)
		var res *ToolResult
		var err error
		switch x := t.(type) {
		case PluginToolV2:
			res, err = x.ExecuteWithContext(callContext(ctx, tc, input), input)
		case ContextTool:
			res, err = x.ExecuteV2(ctx, *callContext(ctx, tc, input))
		default:
			res, err = t.Execute(ctx, input)
		}
		if err != nil {
			return nil, err
		}
		return toHost(res), nil
	})
	if err != nil {
		return fmt.Errorf("xbot: registering tool %q: %w", def.Name, err)
	}
	return nil
}

// callContext is the ToolCallContext of a call.
func callContext(ctx context.Context, tc *sdk.ToolContext, input string) *ToolCallContext {
	cc := &ToolCallContext{Ctx: ctx, Input: input}
	if tc != nil {
		cc.CallID, cc.Channel, cc.ChatID, cc.UserID, cc.GroupID = tc.CallID, tc.Channel, tc.ChatID, tc.UserID, tc.GroupID
		cc.Actor, cc.Plugin = tc.Actor, tc.PluginID
		cc.TenantID = TenantOf(tc.Channel, tc.ChatID)
		if tc.Turn != nil {
			cc.SessionID, cc.Tainted = tc.Turn.SessionID, tc.Turn.Tainted
		}
	}
	return cc
}

// TenantOf is Hearth's stand-in for xbot's tenant id, which xbot keeps
// one of per channel and chat: a positive number derived from the two
// (FNV-1a, 63 bits), the same on every run; 0 when both are empty.
func TenantOf(channel, chatID string) int64 {
	if channel == "" && chatID == "" {
		return 0
	}
	h := fnv.New64a()
	h.Write([]byte(channel))
	h.Write([]byte{0})
	h.Write([]byte(chatID))
	n := int64(h.Sum64() & (1<<63 - 1))
	if n == 0 {
		n = 1
	}
	return n
}

// UseMiddleware is not supported: Hearth's stages wrap calls instead.
func (c *Context) UseMiddleware(PluginMiddleware) error {
	return fmt.Errorf("xbot: UseMiddleware: %w (use a before_toolcall or after_toolcall stage)", ErrNotSupported)
}

// EnrichContext adds text to the model's context before each turn: the
// enrichers run in registration order at pre_action, and each non-empty
// text joins the system message under "## <name> (<plugin id>)", as in
// xbot. An enricher's error is logged and its text left out.
func (c *Context) EnrichContext(name string, fn ContextEnricher) error {
	if fn == nil {
		return errors.New("xbot: EnrichContext with a nil enricher")
	}
	c.mu.Lock()
	first := len(c.enrichers) == 0
	c.enrichers = append(c.enrichers, enricher{name: name, fn: fn})
	c.mu.Unlock()
	if first {
		c.s.RegisterStage(sdk.StagePreAction, c.enrich)
	}
	return nil
}

// Storage is the plugin's private store, kept in its Hearth KV.
func (c *Context) Storage() StorageAccessor { return kvStorage{kv: c.s.KV(), mu: &c.storeMu} }

// StorageInt reads an integer value.
func (c *Context) StorageInt(key string) (int64, bool) {
	v, ok := c.Storage().Get(key)
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(v, 10, 64)
	return n, err == nil
}

// StorageBool reads a boolean value.
func (c *Context) StorageBool(key string) (bool, bool) {
	v, ok := c.Storage().Get(key)
	if !ok {
		return false, false
	}
	b, err := strconv.ParseBool(v)
	return b, err == nil
}

// StorageJSON stores value encoded as JSON.
func (c *Context) StorageJSON(key string, value any) error {
	b, err := json.Marshal(value)
	if err != nil {
		return fmt.Errorf("xbot storage: encoding %q: %w", key, err)
	}
	return c.Storage().Set(key, string(b))
}

// StorageGetJSON decodes the JSON value of key into target.
func (c *Context) StorageGetJSON(key string, target any) error {
	v, ok := c.Storage().Get(key)
	if !ok {
		return fmt.Errorf("xbot storage: key %q not found", key)
	}
	if err := json.Unmarshal([]byte(v), target); err != nil {
		return fmt.Errorf("xbot storage: decoding %q: %w", key, err)
	}
	return nil
}

// PluginID is the plugin's xbot id (its manifest's), or its Hearth name.
func (c *Context) PluginID() string { return c.id }

// WorkingDir is the plugin's data directory.
func (c *Context) WorkingDir() string { return c.s.DataDir() }

// Channel is empty: a Hearth plugin serves every channel. A call's
// channel is in its ToolCallContext and HookPayload.
func (c *Context) Channel() string { return "" }

// ChatID is empty, as Channel.
func (c *Context) ChatID() string { return "" }

// TenantID is 0, as Channel; see TenantOf.
func (c *Context) TenantID() int64 { return 0 }

// Logger is the plugin's Hearth logger.
func (c *Context) Logger() Logger { return slogLogger{l: c.s.Logger()} }

// Subscribe receives the messages published on topic by any xbot plugin
// of this process.
func (c *Context) Subscribe(topic string, handler PluginEventHandler) error {
	if handler == nil {
		return errors.New("xbot: Subscribe with a nil handler")
	}
	bus.mu.Lock()
	defer bus.mu.Unlock()
	if bus.m == nil {
		bus.m = map[string][]PluginEventHandler{}
	}
	bus.m[topic] = append(bus.m[topic], handler)
	return nil
}

// Publish hands data to topic's subscribers, in order; their errors and
// panics are logged, not returned.
func (c *Context) Publish(topic string, data any) error {
	bus.mu.Lock()
	hs := append([]PluginEventHandler(nil), bus.m[topic]...)
	bus.mu.Unlock()
	for _, h := range hs {
		func() {
			defer func() {
				if r := recover(); r != nil {
					c.s.Logger().Error("xbot event handler panicked", "topic", topic, "panic", fmt.Sprint(r))
				}
			}()
			if err := h(context.Background(), topic, data); err != nil {
				c.s.Logger().Warn("xbot event handler failed", "topic", topic, "err", err)
			}
		}()
	}
	return nil
}

// bus is the process's xbot event bus.
var bus struct {
	mu sync.Mutex
	m  map[string][]PluginEventHandler
}

// ContributeUI keeps a widget. It is rendered on UpdateWidget, its spans
// kept (RenderedWidget) and shown in the web UI, zone as its slot (see
// widgets.go).
func (c *Context) ContributeUI(widgetID, zone string, widget UIWidget, priority int) error {
	if widgetID == "" || widget == nil {
		return errors.New("xbot: ContributeUI needs an id and a widget")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.widgets == nil {
		c.widgets = map[string]UIWidget{}
	}
	c.widgets[widgetID] = widget
	if c.zones == nil {
		c.zones = map[string]string{}
	}
	c.zones[widgetID] = zone
	return nil
}

// UpdateWidget renders the widget again and sends the plugin's widgets
// to the host's web UI board.
func (c *Context) UpdateWidget(widgetID string) error {
	c.mu.Lock()
	w := c.widgets[widgetID]
	c.mu.Unlock()
	if w == nil {
		return fmt.Errorf("xbot: no widget %q", widgetID)
	}
	spans := w.Render(0)
	c.mu.Lock()
	if c.rendered == nil {
		c.rendered = map[string][]WidgetSpan{}
	}
	c.rendered[widgetID] = spans
	c.mu.Unlock()
	return c.publishWidgets()
}

// RenderedWidget returns the spans of the widget's last UpdateWidget.
func (c *Context) RenderedWidget(widgetID string) ([]WidgetSpan, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s, ok := c.rendered[widgetID]
	return s, ok
}

// SetWidgetRegistry is ignored: Hearth keeps the widgets.
func (c *Context) SetWidgetRegistry(*WidgetRegistry) {}

// ContributeTheme is not supported.
func (c *Context) ContributeTheme(id string, _ []byte) error {
	return fmt.Errorf("xbot: theme %q: %w", id, ErrNotSupported)
}

// RegisterOverlay is not supported.
func (c *Context) RegisterOverlay(id string, _ OverlayProvider) error {
	return fmt.Errorf("xbot: overlay %q: %w", id, ErrNotSupported)
}

// ShowOverlay is not supported.
func (c *Context) ShowOverlay(id string) error {
	return fmt.Errorf("xbot: overlay %q: %w", id, ErrNotSupported)
}

// HideOverlay is not supported.
func (c *Context) HideOverlay() error { return fmt.Errorf("xbot: overlays: %w", ErrNotSupported) }

// RegisterWebActionHandler is not supported: Hearth's web UI does not
// host xbot widgets.
func (c *Context) RegisterWebActionHandler(widgetID string, _ WebActionHandler) error {
	return fmt.Errorf("xbot: web actions of %q: %w", widgetID, ErrNotSupported)
}

// ScheduleCron is not supported.
func (c *Context) ScheduleCron(CronContribution) (string, error) {
	return "", fmt.Errorf("xbot: ScheduleCron: %w", ErrNotSupported)
}

// CancelCron is not supported.
func (c *Context) CancelCron(jobID string) error {
	return fmt.Errorf("xbot: CancelCron %q: %w", jobID, ErrNotSupported)
}

// OnPluginError sets the callback told about the plugin's hook and
// enricher failures.
func (c *Context) OnPluginError(cb PluginErrorCallback) error {
	c.mu.Lock()
	c.onErr = cb
	c.mu.Unlock()
	return nil
}

// SetValue keeps a value for the plugin.
func (c *Context) SetValue(key string, value any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.values == nil {
		c.values = map[string]any{}
	}
	c.values[key] = value
}

// GetValue returns a value SetValue kept.
func (c *Context) GetValue(key string) (any, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.values[key]
	return v, ok
}

// ToolCallCount is how many calls the plugin's tools have had.
func (c *Context) ToolCallCount() int64 { return c.toolCalls.Load() }

// HookCallCount is how many times the plugin's hooks have run.
func (c *Context) HookCallCount() int64 { return c.hookCalls.Load() }

// RegisterChannelProvider is not supported here: a channel plugin is a
// HomeAgent-style sdk channel or an xbot stdio channel plugin.
func (c *Context) RegisterChannelProvider(any) error {
	return fmt.Errorf("xbot: RegisterChannelProvider: %w", ErrNotSupported)
}

// RegisterCommand is not supported.
func (c *Context) RegisterCommand(name, _ string, _ PluginCommandHandler) error {
	return fmt.Errorf("xbot: command %q: %w", name, ErrNotSupported)
}

// Notify logs the notification at its level.
func (c *Context) Notify(level NotificationLevel, title, message string) {
	l := slog.LevelInfo
	switch level {
	case NotifyWarning:
		l = slog.LevelWarn
	case NotifyError:
		l = slog.LevelError
	}
	c.s.Logger().Log(context.Background(), l, "xbot notification", "title", title, "message", message)
}

// PlaySound does nothing: Hearth plays no sounds.
func (c *Context) PlaySound(SoundID) {}

// fail tells the plugin's error callback, if any.
func (c *Context) fail(err error) {
	c.mu.Lock()
	cb := c.onErr
	c.mu.Unlock()
	if cb != nil {
		cb(context.Background(), err)
	}
}
