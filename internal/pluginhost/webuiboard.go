package pluginhost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"
)

// WidgetActionTimeout bounds a plugin's answer to web_ui_action.
const WidgetActionTimeout = 10 * time.Second

// Bounds on a web_ui_action sent from the UI.
const (
	maxActionName = 64
	maxActionData = 4 << 10
	maxChatID     = 256
)

// ErrNoWidget is returned for an action on a widget the plugin has not
// declared (or a plugin that is not running).
var ErrNoWidget = errors.New("no such widget")

// WidgetAction is one click in the web UI, sent to the owning plugin as
// xbot's web_ui_action request {widgetId, action, data, chatId}.
type WidgetAction struct {
	Action string `json:"action"`
	// Data is a JSON string of the interaction's data (for a table's
	// action cell, the row as {column: text}).
	Data   string `json:"data,omitempty"`
	ChatID string `json:"chat_id,omitempty"`
}

// actionFunc sends a web_ui_action to a running plugin.
type actionFunc func(ctx context.Context, params map[string]any) (json.RawMessage, error)

// WidgetBoard holds every plugin's declared web widgets and tells
// subscribers when a plugin's set changes. A Manager has one
// (Options.Widgets, created when nil).
type WidgetBoard struct {
	mu   sync.Mutex
	sets map[string][]WebWidget
	act  map[string]actionFunc
	subs map[int]func(plugin string)
	next int
}

// NewWidgetBoard returns an empty board.
func NewWidgetBoard() *WidgetBoard {
	return &WidgetBoard{sets: map[string][]WebWidget{}, act: map[string]actionFunc{}, subs: map[int]func(string){}}
}

// set replaces plugin's widgets and the function its actions go to. A
// nil board (a Process made without Options' defaults) keeps nothing.
func (b *WidgetBoard) set(plugin string, ws []WebWidget, act actionFunc) {
	if b == nil {
		return
	}
	b.mu.Lock()
	if len(ws) == 0 {
		delete(b.sets, plugin)
	} else {
		b.sets[plugin] = ws
	}
	b.act[plugin] = act
	b.mu.Unlock()
	b.changed(plugin)
}

// clear drops plugin's widgets, when it stops.
func (b *WidgetBoard) clear(plugin string) {
	if b == nil {
		return
	}
	b.mu.Lock()
	_, had := b.sets[plugin]
	delete(b.sets, plugin)
	delete(b.act, plugin)
	b.mu.Unlock()
	if had {
		b.changed(plugin)
	}
}

// changed calls every subscriber.
func (b *WidgetBoard) changed(plugin string) {
	if b == nil {
		return
	}
	b.mu.Lock()
	subs := make([]func(string), 0, len(b.subs))
	for _, f := range b.subs {
		subs = append(subs, f)
	}
	b.mu.Unlock()
	for _, f := range subs {
		f(plugin)
	}
}

// Subscribe calls f with a plugin's name each time its widgets change
// (never while holding the board); stop ends it.
func (b *WidgetBoard) Subscribe(f func(plugin string)) (stop func()) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.next++
	id := b.next
	b.subs[id] = f
	return func() {
		b.mu.Lock()
		delete(b.subs, id)
		b.mu.Unlock()
	}
}

// All returns every declared widget, by plugin, in the plugin's order.
func (b *WidgetBoard) All() []WebWidget {
	b.mu.Lock()
	defer b.mu.Unlock()
	plugins := make([]string, 0, len(b.sets))
	for p := range b.sets {
		plugins = append(plugins, p)
	}
	sort.Strings(plugins)
	var out []WebWidget
	for _, p := range plugins {
		out = append(out, b.sets[p]...)
	}
	return out
}

// Act sends a click on plugin's widget to the plugin as web_ui_action and
// returns its answer as text. It fails with ErrNoWidget when the plugin
// has not declared that widget, and after WidgetActionTimeout.
func (b *WidgetBoard) Act(ctx context.Context, plugin, widget string, a WidgetAction) (string, error) {
	if a.Action == "" || len(a.Action) > maxActionName || len(a.Data) > maxActionData || len(a.ChatID) > maxChatID {
		return "", fmt.Errorf("an action needs a name of at most %d bytes, data of at most %d and a chat id of at most %d",
			maxActionName, maxActionData, maxChatID)
	}
	b.mu.Lock()
	var found bool
	for _, w := range b.sets[plugin] {
		found = found || (w.ID == widget && w.Actions)
	}
	act := b.act[plugin]
	b.mu.Unlock()
	if !found || act == nil {
		return "", fmt.Errorf("%w %q of plugin %q", ErrNoWidget, widget, plugin)
	}
	ctx, cancel := context.WithTimeout(ctx, WidgetActionTimeout)
	defer cancel()
	res, err := act(ctx, map[string]any{"widgetId": widget, "action": a.Action, "data": a.Data, "chatId": a.ChatID})
	if err != nil {
		return "", fmt.Errorf("web_ui_action: %w", err)
	}
	return actionText(res), nil
}

// actionText is a web_ui_action answer as text: xbot plugins answer
// "ok" or {"result": "..."}.
func actionText(res json.RawMessage) string {
	var s string
	if json.Unmarshal(res, &s) == nil {
		return s
	}
	var r struct {
		Result *string `json:"result"`
	}
	if json.Unmarshal(res, &r) == nil && r.Result != nil {
		return *r.Result
	}
	return truncateText(string(res), maxWidgetText)
}

// Widgets returns the manager's widget board.
func (m *Manager) WidgetBoard() *WidgetBoard { return m.opts.Widgets }

// WebWidgets returns every plugin's web widgets: those xbot channel
// plugins declared with web_ui, then each script plugin's latest widget
// outputs as text widgets (without actions).
func (m *Manager) WebWidgets() []WebWidget {
	out := m.opts.Widgets.All()
	m.mu.Lock()
	names := make([]string, 0, len(m.procs))
	for n := range m.procs {
		names = append(names, n)
	}
	m.mu.Unlock()
	sort.Strings(names)
	for _, n := range names {
		for _, w := range m.Widgets(n) {
			out = append(out, WebWidget{Plugin: n, ID: w.ID, Slot: w.Slot, Type: WidgetText,
				Props: WidgetProps{Text: clip(w.Text, maxWidgetText)}})
		}
	}
	return out
}
