package pluginhost

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/host"
)

// xbot's channel plugins (agent/transport_channel_plugin.go in xbot): a
// plugin whose plugin.json has contributes.channelProvider owns a channel
// and speaks a second, duplex protocol on the same stdio, beside the
// request/response one of plugin/PROTOCOL.md:
//
//   - host → plugin event: {"type":"channel_config","metadata":{"config":"{...}"}}
//     once at start, the channel's settings as a JSON string;
//   - plugin → host request: {"id":"p1","method":"send_inbound","params":
//     {"channel","chat_id","content","sender_id","sender_name","chat_type"}}:
//     a person's message, answered {"id":"p1","result":"ok"};
//   - host → plugin request: {"id":"srv-1","method":"channel_send","params":
//     {"channel","chat_id","content","metadata"}}: the answer to deliver;
//     and {"id":"srv-2","method":"execute_tool","params":{"name","input"}}
//     for a channel tool, answered {"id":"srv-2","result":{"content","is_error"}};
//   - plugin → host declaration: {"type":"channel_tools","tools":[...]}
//     (each tool may name the channels it is for; a new declaration
//     replaces the last), {"type":"channel_prompt","system_parts":{...}}.
//
// Hearth runs one process where xbot runs two (one for activate, one for
// the channel): lines with an id, a method or a type are the duplex
// protocol, the others answer activate, hook, enrich and deactivate. The
// channel is a Hearth channel (internal/kernel/channels.go): a message
// reaches the session of (channel, chat_id) in the name of sender_id,
// whose role on the channel caps what it may do (policy.Engine.Allowed);
// the turn's answer goes back with channel_send. Messages of type web_ui
// declare the plugin's web widgets and clicks on them come back as
// web_ui_action requests (webui.go, webuiboard.go).

// xbotChannelDecl is contributes.channelProvider of plugin.json.
type xbotChannelDecl struct {
	Name         string           `json:"name"`
	ConfigSchema []map[string]any `json:"config_schema"`
}

// xbotChannel returns the channel plugin.json declares, or nil.
func (m *Manifest) xbotChannel() *xbotChannelDecl {
	if !m.Xbot() || len(m.Contributes) == 0 {
		return nil
	}
	var c struct {
		ChannelProvider *xbotChannelDecl `json:"channelProvider"`
	}
	if json.Unmarshal(m.Contributes, &c) != nil || c.ChannelProvider == nil || c.ChannelProvider.Name == "" {
		return nil
	}
	return c.ChannelProvider
}

// config returns the channel's settings: each config_schema default,
// overridden by plugin.json's config.
func (d *xbotChannelDecl) config(m *Manifest) map[string]string {
	cfg := map[string]string{}
	for _, s := range d.ConfigSchema {
		k, _ := s["key"].(string)
		if v, ok := s["default_value"]; ok && k != "" {
			cfg[k] = fmt.Sprint(v)
		}
	}
	for k, v := range m.Config {
		if s, ok := v.(string); ok {
			cfg[k] = s
		} else if b, err := json.Marshal(v); err == nil {
			cfg[k] = string(b)
		}
	}
	return cfg
}

// xbotFrame is one line of the duplex protocol, either way.
type xbotFrame struct {
	ID          json.RawMessage   `json:"id,omitempty"`
	Method      string            `json:"method,omitempty"`
	Type        string            `json:"type,omitempty"`
	Params      json.RawMessage   `json:"params,omitempty"`
	Result      json.RawMessage   `json:"result,omitempty"`
	Error       json.RawMessage   `json:"error,omitempty"`
	Metadata    map[string]string `json:"metadata,omitempty"`
	Tools       []xbotTool        `json:"tools,omitempty"`
	SystemParts map[string]string `json:"system_parts,omitempty"`
	UI          []json.RawMessage `json:"ui,omitempty"`
}

// duplex reports whether the frame belongs to the duplex protocol.
func (f *xbotFrame) duplex() bool {
	return (len(f.ID) > 0 && string(f.ID) != "null" && string(f.ID) != `""`) || f.Type != "" || f.Method != ""
}

// errorText is the frame's error: a string, or the JSON of anything else.
func (f *xbotFrame) errorText() string {
	if len(f.Error) == 0 || string(f.Error) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(f.Error, &s) == nil {
		return s
	}
	return string(f.Error)
}

// lockedWriter writes whole lines from several goroutines.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

// xbotChan is the host side of a running channel plugin's duplex protocol.
type xbotChan struct {
	p    *Process
	decl *xbotChannelDecl
	w    *lockedWriter

	regMu     sync.Mutex // held while the tools are registered
	mu        sync.Mutex
	next      int
	pending   map[string]chan xbotFrame
	closed    bool
	actTools  []toolEntry // from the activate answer
	chanTools []toolEntry // from the latest channel_tools
	prompt    map[string]string
}

// toolEntry is one tool and its handler, for ReplaceRemoteTools.
type toolEntry struct {
	def sdk.ToolDef
	h   sdk.RawToolHandler
}

func newXbotChan(p *Process, decl *xbotChannelDecl, w io.Writer) *xbotChan {
	return &xbotChan{p: p, decl: decl, w: &lockedWriter{w: w}, pending: map[string]chan xbotFrame{}}
}

// write sends one frame.
func (c *xbotChan) write(f any) error {
	b, err := json.Marshal(f)
	if err != nil {
		return err
	}
	if _, err := c.w.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("plugin is not running: %w", err)
	}
	return nil
}

// demux reads the plugin's output: duplex frames are handled here, the
// other JSON lines go on to pw, where the request/response link reads
// them, through a queue so that output nobody waits for (an answer that
// came too late, a stray line) never holds up the duplex frames. Lines
// that are not JSON are the plugin's stray prints: logged and dropped.
func (c *xbotChan) demux(r io.Reader, pw *io.PipeWriter) {
	defer c.close()
	fwd := make(chan string, xbotForwardQueue)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for line := range fwd {
			if _, err := pw.Write([]byte(line + "\n")); err != nil {
				return
			}
		}
	}()
	defer func() { close(fwd); <-done }()
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, cut, err := readLine(br, xbotMaxLine)
		switch {
		case cut > 0:
			c.p.log.Warn("discarded a line of the plugin's output longer than the limit",
				"limit", xbotMaxLine, "size", len(line)+cut, "start", truncateText(line, 200))
		case strings.TrimSpace(line) != "":
			var f xbotFrame
			switch {
			case json.Unmarshal([]byte(line), &f) != nil:
				c.p.log.Debug("plugin output that is not JSON; dropped", "line", truncateText(line, 200))
			case f.duplex():
				c.handle(f)
			default:
				select {
				case fwd <- line:
				default:
					c.p.log.Warn("dropped an answer of the plugin nobody waits for", "start", truncateText(line, 200))
				}
			}
		}
		if err != nil {
			pw.CloseWithError(err)
			return
		}
	}
}

// xbotForwardQueue is how many answers of a channel plugin may wait for
// the request/response link.
const xbotForwardQueue = 64

// close fails the calls waiting for an answer.
func (c *xbotChan) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	for id, ch := range c.pending {
		close(ch)
		delete(c.pending, id)
	}
}

// handle acts on one frame from the plugin.
func (c *xbotChan) handle(f xbotFrame) {
	switch {
	case f.Type == "channel_tools":
		c.setTools(&c.chanTools, c.channelTools(f.Tools))
	case f.Type == "channel_prompt":
		c.mu.Lock()
		c.prompt = f.SystemParts
		c.mu.Unlock()
	case f.Type == "web_ui":
		c.webUI(f.UI)
	case f.Type != "":
		c.p.log.Warn("xbot channel message not supported by Hearth; ignored", "type", f.Type)
	case f.Method != "":
		res, err := c.serve(f)
		if len(f.ID) == 0 {
			return
		}
		out := map[string]any{"id": f.ID}
		if err != nil {
			out["error"] = err.Error()
		} else {
			out["result"] = res
		}
		if werr := c.write(out); werr != nil {
			c.p.log.Warn("answering the plugin", "method", f.Method, "err", werr)
		}
	default: // an answer to one of our calls
		var id string
		_ = json.Unmarshal(f.ID, &id)
		c.mu.Lock()
		ch := c.pending[id]
		delete(c.pending, id)
		c.mu.Unlock()
		if ch != nil {
			ch <- f
		}
	}
}

// serve answers a request of the plugin.
func (c *xbotChan) serve(f xbotFrame) (any, error) {
	if f.Method != "send_inbound" {
		return nil, fmt.Errorf("method %q is not supported by Hearth", f.Method)
	}
	var in struct {
		Channel    string `json:"channel"`
		ChatID     string `json:"chat_id"`
		Content    string `json:"content"`
		SenderID   string `json:"sender_id"`
		SenderName string `json:"sender_name"`
		ChatType   string `json:"chat_type"`
	}
	if err := json.Unmarshal(f.Params, &in); err != nil {
		return nil, fmt.Errorf("send_inbound: %w", err)
	}
	if in.Channel != "" && in.Channel != c.decl.Name {
		return nil, fmt.Errorf("send_inbound: the plugin's channel is %q, not %q", c.decl.Name, in.Channel)
	}
	inj := sdk.Injection{Channel: c.decl.Name, ChatID: in.ChatID, UserID: in.SenderID, Text: in.Content}
	if in.ChatType == "group" {
		inj.GroupID = in.ChatID
	}
	if err := c.p.opts.Host.Inject(c.p.name, inj); err != nil {
		return nil, fmt.Errorf("send_inbound: %w", err)
	}
	return "ok", nil
}

// call sends a request to the plugin and waits for its answer.
func (c *xbotChan) call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, errors.New("plugin is not running")
	}
	c.next++
	id := fmt.Sprintf("srv-%d", c.next)
	ch := make(chan xbotFrame, 1)
	c.pending[id] = ch
	c.mu.Unlock()
	if err := c.write(map[string]any{"id": id, "method": method, "params": params}); err != nil {
		c.forget(id)
		return nil, err
	}
	select {
	case f, ok := <-ch:
		if !ok {
			return nil, errors.New("plugin is not running: its output ended")
		}
		if e := f.errorText(); e != "" {
			return nil, errors.New(e)
		}
		return f.Result, nil
	case <-ctx.Done():
		c.forget(id)
		return nil, ctx.Err()
	}
}

func (c *xbotChan) forget(id string) {
	c.mu.Lock()
	delete(c.pending, id)
	c.mu.Unlock()
}

// send delivers a message of the channel with channel_send.
func (c *xbotChan) send(ctx context.Context, msg sdk.OutputMessage) (any, error) {
	params := map[string]any{"channel": c.decl.Name, "chat_id": msg.ChatID, "content": msg.Payload}
	if msg.Final {
		params["metadata"] = map[string]string{"is_final": "true"}
	}
	if _, err := c.call(ctx, "channel_send", params); err != nil {
		return nil, fmt.Errorf("channel_send: %w", err)
	}
	return "sent", nil
}

// channelTools turns a channel_tools declaration into tools whose calls
// go to the plugin with execute_tool. A tool naming channels runs only in
// a turn of one of them.
func (c *xbotChan) channelTools(decls []xbotTool) []toolEntry {
	var out []toolEntry
	for _, t := range decls {
		schema, err := xbotSchema(xbotTool{Name: t.Name, Description: t.Description, Parameters: t.Parameters, InputSchema: t.InputSchema})
		if err != nil {
			c.p.log.Warn("channel tool refused", "tool", t.Name, "err", err)
			continue
		}
		name, channels := t.Name, t.Channels
		out = append(out, toolEntry{
			def: sdk.ToolDef{Name: name, Description: channelsNote(t.Description, channels), Parameters: schema, Timeout: c.p.toolTimeout()},
			h: func(ctx context.Context, tc *sdk.ToolContext, _ map[string]any, raw json.RawMessage) (any, error) {
				if err := channelGuard(name, channels, tc); err != nil {
					return nil, err
				}
				res, err := c.call(ctx, "execute_tool", map[string]any{"name": name, "input": string(raw)})
				if err != nil {
					return nil, err
				}
				var r struct {
					Content *string `json:"content"`
					IsError bool    `json:"is_error"`
				}
				if json.Unmarshal(res, &r) != nil || r.Content == nil {
					var s string
					if json.Unmarshal(res, &s) == nil {
						return s, nil
					}
					return string(res), nil
				}
				if r.IsError {
					return nil, errors.New(*r.Content)
				}
				return *r.Content, nil
			},
		})
	}
	return out
}

// channelsNote tells the model, in a tool's description, the channels it
// is limited to.
func channelsNote(desc string, channels []string) string {
	if len(channels) == 0 {
		return desc
	}
	return desc + fmt.Sprintf("\n\n(Only in channel %s.)", strings.Join(channels, ", "))
}

// channelGuard refuses a call of a tool limited to channels from a turn
// of another channel (or from no turn).
func channelGuard(tool string, channels []string, tc *sdk.ToolContext) error {
	if len(channels) == 0 || (tc != nil && slices.Contains(channels, tc.Channel)) {
		return nil
	}
	return fmt.Errorf("tool %s is only for channel %s", tool, strings.Join(channels, ", "))
}

// setTools replaces one of the two tool sets and registers both.
func (c *xbotChan) setTools(set *[]toolEntry, tools []toolEntry) {
	c.regMu.Lock() // one registration at a time, so the last one wins
	defer c.regMu.Unlock()
	c.mu.Lock()
	*set = tools
	all := append(append([]toolEntry(nil), c.actTools...), c.chanTools...)
	c.mu.Unlock()
	defs := make([]sdk.ToolDef, len(all))
	hs := make([]sdk.RawToolHandler, len(all))
	for i, e := range all {
		defs[i], hs[i] = e.def, e.h
	}
	for _, err := range c.p.opts.Host.ReplaceRemoteTools(c.p.name, defs, hs) {
		if err != nil {
			c.p.log.Warn("channel plugin tool refused", "err", err)
		}
	}
}

// promptStage adds the plugin's channel_prompt parts to the system prompt
// of its channel's sessions.
func (c *xbotChan) promptStage(sc *sdk.StageContext) error {
	if sc.Channel != c.decl.Name {
		return nil
	}
	c.mu.Lock()
	parts := c.prompt
	c.mu.Unlock()
	if len(parts) == 0 {
		return nil
	}
	keys := make([]string, 0, len(parts))
	for k := range parts {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "\n\n%s", strings.TrimSpace(parts[k]))
	}
	for _, m := range sc.ContextMsgs {
		if m["role"] == "system" {
			if s, ok := m["content"].(string); ok {
				m["content"] = s + b.String()
				return nil
			}
		}
	}
	sc.ContextMsgs = append([]map[string]any{{"role": "system", "content": strings.TrimSpace(b.String())}}, sc.ContextMsgs...)
	return nil
}

// openChannel registers the plugin's channel with the host and sends the
// plugin its configuration. A channel plugin names the people who write
// to it, so it may inject as a user (into its own channel only: it has
// no input.channels); their roles on the channel cap what they can do.
func (c *xbotChan) openChannel() error {
	cfg := c.decl.config(c.p.m)
	if v, set := cfg["enabled"]; set && v != "true" {
		// xbot creates the channel only when its config enables it.
		c.p.log.Warn("xbot channel not opened: its config has enabled != \"true\"", "channel", c.decl.Name, "enabled", v)
		return nil
	}
	ch, ok := c.p.opts.Host.(host.ChannelHost)
	if !ok {
		return errors.New("this host has no plugin channels")
	}
	c.p.opts.Host.SetCapabilities(c.p.name, append(slices.Clone(c.p.m.Capabilities), sdk.CapabilityInjectUser))
	desc := c.p.m.Description
	if desc == "" {
		desc = "xbot channel " + c.decl.Name
	}
	if err := ch.RegisterPluginChannel(c.p.name, sdk.ChannelRegistration{
		Name: c.decl.Name, Input: true, Output: true, Caps: sdk.CapText, Description: desc, Send: c.send,
	}); err != nil {
		return fmt.Errorf("channel %q: %w", c.decl.Name, err)
	}
	c.p.opts.Host.RegisterStage(c.p.name, sdk.StagePreAction, false, c.promptStage)
	b, _ := json.Marshal(cfg)
	return c.write(map[string]any{"type": "channel_config", "metadata": map[string]string{"config": string(b)}})
}
