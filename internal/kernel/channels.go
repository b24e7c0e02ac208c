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
	"github.com/hearth-agent/hearth/sdk/guard"
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
	// ErrChannelTaken means another plugin owns the channel, or the name
	// is another plugin's (names.ErrChannelTaken).
	ErrChannelTaken = names.ErrChannelTaken
	// ErrChannelLimit means the plugin has MaxChannelsPerPlugin channels
	// already, or the description is over MaxChannelDescription bytes.
	ErrChannelLimit = errors.New("channel limit reached")
)

// Bounds on what one plugin declares: every output channel is a tool in
// every request, its description in the model's prompt.
const (
	MaxChannelsPerPlugin  = 16
	MaxChannelDescription = 2048
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

	syncMu sync.Mutex // serialises syncOutputTools: its read and its Patch
}

// reservedChannel reports whether name is Hearth's.
func (k *Kernel) reservedChannel(name string) bool {
	if names.IsReservedChannel(name) || strings.EqualFold(name, OutputSendPlugin) {
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
	if len(spec.Description) > MaxChannelDescription {
		return fmt.Errorf("%w: channel %q: a description of %d bytes (at most %d)", ErrChannelLimit, name, len(spec.Description), MaxChannelDescription)
	}
	r := &k.chans
	r.mu.Lock()
	if r.m == nil {
		r.m = map[string]*pluginChannel{}
	}
	c := r.m[name]
	if c == nil {
		for n, o := range r.m {
			if names.Key(n) == names.Key(name) {
				r.mu.Unlock()
				return fmt.Errorf("%w: %q is plugin %q's", ErrChannelTaken, name, o.info.Plugin)
			}
		}
		count := 0
		for _, o := range r.m {
			if o.info.Plugin == plugin {
				count++
			}
		}
		if count >= MaxChannelsPerPlugin {
			r.mu.Unlock()
			return fmt.Errorf("%w: plugin %q has %d channels (at most %d)", ErrChannelLimit, plugin, count, MaxChannelsPerPlugin)
		}
		if err := k.cfg.Names.ClaimChannel(k.base, name, plugin); err != nil {
			r.mu.Unlock()
			if errors.Is(err, names.ErrReserved) {
				return fmt.Errorf("%w: %w", ErrChannelReserved, err)
			}
			return fmt.Errorf("register channel: %w", err)
		}
		c = &pluginChannel{info: ChannelInfo{Name: name, Plugin: plugin}}
		r.m[name] = c
	} else if c.info.Plugin != plugin {
		r.mu.Unlock()
		return fmt.Errorf("%w: %q is plugin %q's", ErrChannelTaken, name, c.info.Plugin)
	}
	before := c.info
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
	// The tool shows the output half only.
	changed := c.info.Output != before.Output || c.info.Caps != before.Caps || c.info.Description != before.Description
	r.mu.Unlock()
	if spec.Output && !before.Output {
		k.SetSink(name, k.channelSink(c))
	}
	if changed && c.info.Output {
		// The tool reads the handler from c when called: a new handler
		// alone changes nothing in the registry.
		k.syncOutputTools(name)
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
		k.cfg.Names.ReleaseChannel(name, plugin)
	}
	r.mu.Unlock()
	if wasOutput {
		k.SetSink(name, nil)
		k.syncOutputTools(name)
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
			k.cfg.Names.ReleaseChannel(n, plugin)
		}
	}
	r.mu.Unlock()
	for _, n := range outputs {
		k.SetSink(n, nil)
	}
	if len(outputs) > 0 {
		k.syncOutputTools(outputs...)
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
// The handler runs under guard.Call: the caller waits at most until
// ctx ends or sendTimeout passes, whichever is first (HomeAgent's
// handler has no context to honour), and a panic becomes an error.
func HandlerSend(h sdk.ToolHandler) ChannelSend {
	return func(ctx context.Context, msg ChannelMessage) (any, error) {
		args := ChannelArgs(msg)
		return guard.Call(ctx, sendTimeout, func(context.Context) (any, error) { return h(args) })
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
		if in.Source != c.info.Plugin {
			// Not the owner's input (see sinkFor): never its handler's.
			return
		}
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
			msg := ChannelMessage{Channel: c.info.Name, ChatID: in.ChatID, UserID: in.UserID,
				GroupID: in.GroupID, Type: sdk.ChannelTypeText, Payload: ev.Text, Final: true}
			// The handler runs on the session's goroutine: bounded, and a
			// panic in it is an error, not the end of Hearth.
			if _, err := guard.Call(k.base, sendTimeout, func(ctx context.Context) (any, error) { return send(ctx, msg) }); err != nil {
				k.log.Warn("channel output failed", "channel", c.info.Name, "plugin", c.info.Plugin, "err", err)
			}
		}
	}
}

// syncOutputTools brings the output_send__<name> tools of the channels
// changed up to date, in one change of the registry; the other channels'
// tools are left as they are (not built again).
func (k *Kernel) syncOutputTools(changed ...string) {
	r := &k.chans
	r.syncMu.Lock()
	defer r.syncMu.Unlock()
	var drop []string
	var entries []tools.Entry
	r.mu.Lock()
	for _, n := range changed {
		if c := r.m[n]; c != nil && c.info.Output {
			entries = append(entries, tools.Entry{Def: k.outputSendDef(c.info), Handler: k.outputSend(n)})
		} else {
			drop = append(drop, n)
		}
	}
	r.mu.Unlock()
	added, errs := k.tools.Patch(OutputSendPlugin, drop, entries)
	for _, t := range added {
		_ = k.known(t, nil)
	}
	for _, err := range errs {
		k.log.Error("output_send tool not registered", "err", err)
	}
}

// outputSendDef is the tool output_send__<name> for the channel info.
// Its effect is read when the call only answers the turn's own chat on
// this channel with text, public otherwise (see outputSendEffect).
func (k *Kernel) outputSendDef(info ChannelInfo) sdk.ToolDef {
	types := sdk.CapNames(info.Caps)
	desc := fmt.Sprintf("Send a message through the channel %q (plugin %s), which can send: %s.",
		info.Name, info.Plugin, strings.Join(types, ", "))
	if info.Description != "" {
		desc += " " + info.Description
	}
	return sdk.ToolDef{
		Name: info.Name, Title: "send through " + info.Name, Description: desc,
		Effect:        sdk.EffectRead,
		ResolveEffect: outputSendEffect(info.Name),
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

// outputSendEffect resolves the effect of one output_send__<name> call.
// It is read (a reply, like the turn's final answer) only when the turn
// is on the channel name, so the message goes to the turn's own chat, and
// the call sends plain text without meta; anything else is public and
// asks: meta can name another recipient, a message from another
// channel's turn reaches people that turn is not about, and a file,
// image or audio payload can be a local path, a way to send host files
// out.
func outputSendEffect(name string) sdk.ResolveEffectFunc {
	return func(ctx context.Context, args map[string]any) (sdk.Assessment, error) {
		s, _ := ctx.Value(sessionCtxKey{}).(*session)
		typ, _ := args["type"].(string)
		meta, _ := args["meta"].(string)
		if s != nil && s.key.channel == name && (typ == "" || typ == sdk.ChannelTypeText) && meta == "" {
			return sdk.Assessment{Effect: sdk.EffectRead}, nil
		}
		return sdk.Assessment{Effect: sdk.EffectPublic}, nil
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

// sinkFor returns the sink for in's events: a plugin channel's output
// handler gets only the turns its owner injected; every other input on
// that channel (another plugin's injection, the owner writing to a stored
// (channel, chat) session from the web UI) goes to the fallback sink.
func (k *Kernel) sinkFor(in Input) Sink {
	r := &k.chans
	r.mu.Lock()
	c := r.m[in.Channel]
	foreign := c != nil && c.info.Output && (in.Plugin == "" || in.Plugin != c.info.Plugin)
	r.mu.Unlock()
	if foreign {
		return k.sink("")
	}
	return k.sink(in.Channel)
}

// channelChat keys the sessions of a plugin channel by person when the
// plugin relays without a chat id: (name, "group:<GroupID>") for a
// group's message, (name, "user:<UserID>") for a person's, so two people
// never share one session (name, "").
func (k *Kernel) channelChat(in *Input) {
	if in.ChatID != "" || in.Plugin == "" || (in.UserID == "" && in.GroupID == "") {
		return
	}
	if _, ok := k.ownChannel(in.Plugin, in.Channel); !ok {
		return
	}
	if in.GroupID != "" {
		in.ChatID = "group:" + in.GroupID
	} else {
		in.ChatID = "user:" + in.UserID
	}
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
