package kernel

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/hearth-agent/hearth/internal/names"
	"github.com/hearth-agent/hearth/internal/tools"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/host"
)

// Errors RegisterChannel returns (wrapped).
var (
	// ErrChannelName is sdk.ErrChannelName: not 1 to sdk.MaxChannelName
	// of A-Z a-z 0-9 _ -.
	ErrChannelName = sdk.ErrChannelName
	// ErrChannelReserved means the name is one of Hearth's own channels
	// (terminal, web, ask, mcp, ...) or stands for Hearth itself.
	ErrChannelReserved = errors.New("channel name is reserved for Hearth")
	// ErrChannelTaken means another plugin owns the channel.
	ErrChannelTaken = errors.New("channel belongs to another plugin")
)

// OutputSendPlugin is the name the output_send__<channel> tools are
// registered under in the tool registry (their model-visible names are
// HomeAgent's); the plugin that owns the channel runs the call.
const OutputSendPlugin = "output_send"

// sendTimeout bounds the delivery of a turn's answer to a channel's
// output handler, which runs on the session's goroutine.
const sendTimeout = time.Minute

// ChannelSpec is what a plugin declares for one channel it owns. The
// input and output halves may come in two calls (HomeAgent's
// RegisterInputChannel and RegisterOutputChannel): a second
// RegisterChannel of the same name by the same plugin merges into the
// first.
type ChannelSpec struct {
	Input       bool           // the plugin injects people's messages into it
	Output      bool           // the plugin delivers the channel's output (Send required)
	Caps        int            // sdk.CapText|sdk.CapFile|...; 0 with Output means CapText
	Description string         // for the model: what the channel is, its meta format
	Def         sdk.ChannelDef // NoMemory, ContextPolicy, RecallPolicy (Cleaner stays plugin-side)
	Send        ChannelSend    // the output handler
}

// ChannelMessage is one outbound message handed to a channel's Send (see
// sdk.OutputMessage for its fields).
type ChannelMessage = sdk.OutputMessage

// ChannelSend delivers msg. Its value is the tool result the model sees
// for an output_send__<name> call (ignored for Final messages).
type ChannelSend func(ctx context.Context, msg ChannelMessage) (any, error)

// ChannelInfo describes a registered plugin channel.
type ChannelInfo struct {
	Name, Plugin  string
	Input, Output bool
	Caps          int
	Description   string
	Def           sdk.ChannelDef
}

var _ host.ChannelHost = (*Kernel)(nil)

// pluginChannel is one registered channel.
type pluginChannel struct {
	info ChannelInfo
	send ChannelSend

	mu   sync.Mutex
	sent map[string]bool // chat -> the running turn sent through output_send
}

// channelRegistry holds the plugins' channels, by name.
type channelRegistry struct {
	mu sync.Mutex
	m  map[string]*pluginChannel

	syncMu sync.Mutex // serialises syncOutputTools: its read and its Replace
}

// reservedChannel reports whether name is Hearth's.
func (k *Kernel) reservedChannel(name string) bool {
	if names.IsReserved(name) || strings.EqualFold(name, OutputSendPlugin) {
		return true
	}
	if k.cfg.Policy != nil && slices.ContainsFunc(k.cfg.Policy.LocalChannels, func(c string) bool { return strings.EqualFold(c, name) }) {
		return true
	}
	return false
}

// RegisterChannel makes name a channel of plugin: its injections into name
// are answered in the sessions (name, chat) (see pluginInput), and with
// Output the answers of turns it did not wait for go to spec.Send, and the
// model gets output_send__<name>. It fails with ErrChannelName,
// ErrChannelReserved, ErrChannelTaken, or for a bad spec.
func (k *Kernel) RegisterChannel(plugin, name string, spec ChannelSpec) error {
	if plugin == "" {
		return errors.New("register channel: no plugin")
	}
	if err := sdk.CheckChannelName(name); err != nil {
		return err
	}
	if k.reservedChannel(name) {
		return fmt.Errorf("%w: %q", ErrChannelReserved, name)
	}
	if err := spec.Def.Validate(); err != nil {
		return fmt.Errorf("channel %q: %w", name, err)
	}
	if spec.Output && spec.Send == nil {
		return fmt.Errorf("channel %q: an output channel needs a handler", name)
	}
	if spec.Caps&^(sdk.CapText|sdk.CapFile|sdk.CapImage|sdk.CapAudio|sdk.CapStructured) != 0 {
		return fmt.Errorf("channel %q: unknown capability bits %#x", name, spec.Caps)
	}
	r := &k.chans
	r.mu.Lock()
	if r.m == nil {
		r.m = map[string]*pluginChannel{}
	}
	for n, c := range r.m {
		if names.Key(n) == names.Key(name) && c.info.Plugin != plugin {
			r.mu.Unlock()
			return fmt.Errorf("%w: %q is plugin %q's", ErrChannelTaken, name, c.info.Plugin)
		}
	}
	c := r.m[name]
	if c == nil {
		c = &pluginChannel{info: ChannelInfo{Name: name, Plugin: plugin}}
		r.m[name] = c
	}
	c.info.Input = c.info.Input || spec.Input
	if spec.Output {
		c.info.Output, c.info.Caps, c.info.Description, c.send = true, spec.Caps, spec.Description, spec.Send
		if c.info.Caps == 0 {
			c.info.Caps = sdk.CapText
		}
	}
	if spec.Output || !c.info.Output {
		c.info.Def = spec.Def
	}
	r.mu.Unlock()
	if spec.Output {
		k.SetSink(name, k.channelSink(c))
		k.syncOutputTools()
	}
	return nil
}

// UnregisterChannel removes the output half of plugin's channel name (its
// sink and output_send tool), and the channel with it if it has no input
// half.
func (k *Kernel) UnregisterChannel(plugin, name string) error {
	r := &k.chans
	r.mu.Lock()
	c := r.m[name]
	if c == nil || c.info.Plugin != plugin {
		r.mu.Unlock()
		return fmt.Errorf("plugin %q has no channel %q", plugin, name)
	}
	wasOutput := c.info.Output
	c.info.Output, c.send = false, nil
	if !c.info.Input {
		delete(r.m, name)
	}
	r.mu.Unlock()
	if wasOutput {
		k.SetSink(name, nil)
		k.syncOutputTools()
	}
	return nil
}

// dropChannels removes every channel of plugin (it was withdrawn or is
// down).
func (k *Kernel) dropChannels(plugin string) {
	r := &k.chans
	r.mu.Lock()
	var outputs []string
	for n, c := range r.m {
		if c.info.Plugin == plugin {
			if c.info.Output {
				outputs = append(outputs, n)
			}
			delete(r.m, n)
		}
	}
	r.mu.Unlock()
	for _, n := range outputs {
		k.SetSink(n, nil)
	}
	if len(outputs) > 0 {
		k.syncOutputTools()
	}
}

// ChannelOwner returns the plugin that registered the channel name.
func (k *Kernel) ChannelOwner(name string) (plugin string, ok bool) {
	r := &k.chans
	r.mu.Lock()
	defer r.mu.Unlock()
	if c := r.m[name]; c != nil {
		return c.info.Plugin, true
	}
	return "", false
}

// Channels returns the registered plugin channels, sorted by name.
func (k *Kernel) Channels() []ChannelInfo {
	r := &k.chans
	r.mu.Lock()
	out := make([]ChannelInfo, 0, len(r.m))
	for _, c := range r.m {
		out = append(out, c.info)
	}
	r.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// RegisterPluginChannel implements sdk/host.ChannelHost: reg from a
// PluginSDK (compiled in, or through a child's bridge), its handler
// called with HomeAgent's arguments (see sdk.ChannelRegistration).
func (k *Kernel) RegisterPluginChannel(plugin string, reg sdk.ChannelRegistration) error {
	spec := ChannelSpec{Input: reg.Input, Output: reg.Output, Caps: reg.Caps, Description: reg.Description, Def: reg.Def}
	switch {
	case !reg.Output:
	case reg.Send != nil:
		spec.Send = reg.Send
	case reg.Handler != nil:
		spec.Send = HandlerSend(reg.Handler)
	default:
		return fmt.Errorf("channel %q: an output channel needs a handler", reg.Name)
	}
	return k.RegisterChannel(plugin, reg.Name, spec)
}

// HandlerSend adapts HomeAgent's output handler to a ChannelSend: it gets
// msg as ChannelArgs.
func HandlerSend(h sdk.ToolHandler) ChannelSend {
	return func(_ context.Context, msg ChannelMessage) (any, error) {
		return h(ChannelArgs(msg))
	}
}

// ChannelArgs returns msg as an output handler's arguments (see
// sdk.OutputMessage.Args).
func ChannelArgs(msg ChannelMessage) map[string]any { return msg.Args() }

// channelSink delivers the answers of c's turns that nobody waits for to
// c's output handler, unless the turn already sent through
// output_send__<name> (the plugin's own prompt may tell the model to).
func (k *Kernel) channelSink(c *pluginChannel) Sink {
	tool := sdk.OutputSendPrefix + c.info.Name
	return func(in sdk.Injection, ev Event) {
		switch ev.Kind {
		case EventToolEnd:
			if ev.Tool == tool && !ev.IsError {
				c.mu.Lock()
				if c.sent == nil {
					c.sent = map[string]bool{}
				}
				c.sent[in.ChatID] = true
				c.mu.Unlock()
			}
		case EventFinal, EventError, EventInterrupted:
			c.mu.Lock()
			sent := c.sent[in.ChatID]
			delete(c.sent, in.ChatID)
			c.mu.Unlock()
			if ev.Kind != EventFinal || sent || strings.TrimSpace(ev.Text) == "" {
				return
			}
			r := &k.chans
			r.mu.Lock()
			send := c.send
			r.mu.Unlock()
			if send == nil {
				return
			}
			ctx, cancel := context.WithTimeout(k.base, sendTimeout)
			defer cancel()
			if _, err := send(ctx, ChannelMessage{Channel: c.info.Name, ChatID: in.ChatID, UserID: in.UserID,
				GroupID: in.GroupID, Type: sdk.ChannelTypeText, Payload: ev.Text, Final: true}); err != nil {
				k.log.Warn("channel output failed", "channel", c.info.Name, "plugin", c.info.Plugin, "err", err)
			}
		}
	}
}

// syncOutputTools makes the output_send__<name> tools those of the
// registered output channels, in one change of the registry.
func (k *Kernel) syncOutputTools() {
	r := &k.chans
	r.syncMu.Lock()
	defer r.syncMu.Unlock()
	r.mu.Lock()
	var entries []tools.Entry
	for _, c := range r.m {
		if c.info.Output {
			entries = append(entries, tools.Entry{Def: outputSendDef(c.info), Handler: k.outputSend(c.info.Name)})
		}
	}
	r.mu.Unlock()
	sort.Slice(entries, func(i, j int) bool { return entries[i].Def.Name < entries[j].Def.Name })
	added, errs := k.tools.Replace(OutputSendPlugin, entries)
	for _, t := range added {
		_ = k.known(t, nil)
	}
	for _, err := range errs {
		k.log.Error("output_send tool not registered", "err", err)
	}
}

// outputSendDef is the tool output_send__<name> for the channel info.
func outputSendDef(info ChannelInfo) sdk.ToolDef {
	types := sdk.CapNames(info.Caps)
	desc := fmt.Sprintf("Send a message through the channel %q (plugin %s), which can send: %s.",
		info.Name, info.Plugin, strings.Join(types, ", "))
	if info.Description != "" {
		desc += " " + info.Description
	}
	return sdk.ToolDef{
		Name: info.Name, Title: "send through " + info.Name, Description: desc,
		Effect: sdk.EffectPublic,
		Parameters: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"payload": map[string]any{"type": "string", "description": "the message: its text, a file's path or URL, or JSON for structured data"},
				"type": map[string]any{"type": "string",
					"description": "what payload is, one of: " + strings.Join(types, ", ") + " (default text)"},
				"meta": map[string]any{"type": "string", "description": "delivery details in the form the channel's description asks for (recipient, format)"},
			},
			"required": []any{"payload"},
		},
	}
}

// outputSend is output_send__<name>'s handler: it checks the type against
// the channel's capabilities, then calls its output handler, with the
// turn's chat and people when the turn is on that channel.
func (k *Kernel) outputSend(name string) sdk.RawToolHandler {
	return func(ctx context.Context, tc *sdk.ToolContext, _ map[string]any, raw json.RawMessage) (any, error) {
		var a struct {
			Payload string `json:"payload"`
			Type    string `json:"type"`
			Meta    string `json:"meta"`
		}
		if err := json.Unmarshal(raw, &a); err != nil {
			return nil, fmt.Errorf("decoding arguments: %w", err)
		}
		r := &k.chans
		r.mu.Lock()
		c := r.m[name]
		var info ChannelInfo
		var send ChannelSend
		if c != nil {
			info, send = c.info, c.send
		}
		r.mu.Unlock()
		if send == nil {
			return nil, fmt.Errorf("channel %q is not available now", name)
		}
		if a.Type == "" {
			a.Type = sdk.ChannelTypeText
		}
		if bit := sdk.CapForType(a.Type); bit == 0 || info.Caps&bit == 0 {
			return nil, fmt.Errorf("channel %q cannot send %q: it declared %s", name, a.Type, strings.Join(sdk.CapNames(info.Caps), ", "))
		}
		msg := ChannelMessage{Channel: name, Type: a.Type, Payload: a.Payload, Meta: a.Meta}
		if tc != nil && tc.Channel == name {
			msg.ChatID, msg.UserID, msg.GroupID = tc.ChatID, tc.UserID, tc.GroupID
		}
		return send(ctx, msg)
	}
}

// ownChannel returns the channel plugin owns under name.
func (k *Kernel) ownChannel(plugin, name string) (ChannelInfo, bool) {
	r := &k.chans
	r.mu.Lock()
	defer r.mu.Unlock()
	if c := r.m[name]; c != nil && c.info.Plugin == plugin {
		return c.info, true
	}
	return ChannelInfo{}, false
}

// quietSync keeps the answer of a turn someone waits for (InjectSync) out
// of its channel's output handler: the caller gets it and sends it
// (HomeAgent's InjectInputSync contract).
func (k *Kernel) quietSync(in *Input) {
	r := &k.chans
	r.mu.Lock()
	c := r.m[in.Channel]
	output := c != nil && c.info.Output
	r.mu.Unlock()
	if output && in.OnEvent == nil {
		in.OnEvent = func(Event) {}
	}
}
