package pluginhost

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hearth-agent/hearth/sdk"
)

// xbot's stdio protocol (docs: ../shared/xbot-stdio-protocol.md): one JSON
// request per line without an id, one response per request, one request in
// flight. Hearth keeps the wire format, so a plugin cannot tell the
// difference, but unlike xbot it queues calls with their own deadlines
// instead of killing the process on a timeout: a late answer is read and
// dropped, and only a process that stays silent past the hard limit is
// restarted.

type xbotRequest struct {
	Method string         `json:"method"`
	Params map[string]any `json:"params,omitempty"`
}

type xbotResponse struct {
	Result     *string         `json:"result,omitempty"`
	Error      string          `json:"error,omitempty"`
	Tools      []xbotTool      `json:"tools,omitempty"`
	Hooks      []xbotHook      `json:"hooks,omitempty"`
	Enrichers  []xbotEnricher  `json:"enrichers,omitempty"`
	HookResult *xbotHookResult `json:"hookResult,omitempty"`
}

// xbotTool is a tool an xbot plugin declares, in its activate answer or a
// channel_tools message.
type xbotTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  []xbotParam     `json:"parameters,omitempty"`
	InputSchema json.RawMessage `json:"inputSchema,omitempty"`
	// Channels, as in a channel_tools declaration: the tool runs only in
	// a turn of one of these channels (empty: everywhere).
	Channels []string `json:"channels,omitempty"`
}

type xbotParam struct {
	Name        string          `json:"name"`
	Type        string          `json:"type"`
	Description string          `json:"description,omitempty"`
	Required    bool            `json:"required,omitempty"`
	Items       json.RawMessage `json:"items,omitempty"`
}

type xbotHook struct {
	Event   string `json:"event"`
	Matcher string `json:"matcher,omitempty"`
}

type xbotEnricher struct {
	Name string `json:"name"`
}

type xbotHookResult struct {
	Decision string          `json:"decision"`
	Message  string          `json:"message,omitempty"`
	Data     json.RawMessage `json:"data,omitempty"`
}

// xbotMaxLine is the longest line of an xbot plugin's output read: xbot's
// limit.
const xbotMaxLine = 1 << 20

// errXbotTooLarge is the answer to a request whose response line was
// longer than xbotMaxLine.
var errXbotTooLarge = fmt.Errorf("the plugin's answer was larger than %d MiB, the most one line may hold", xbotMaxLine>>20)

// xbotLine is a line of the plugin's output; tooLarge is a line longer
// than xbotMaxLine, which is dropped.
type xbotLine struct {
	b        []byte
	tooLarge bool
}

// truncateText cuts s to at most n bytes, at a character boundary.
func truncateText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// xbotLink is the one-at-a-time exchange with the process.
type xbotLink struct {
	w     io.Writer
	lines chan xbotLine // response lines, read by one goroutine
	turn  chan struct{} // holds the right to the next exchange
	hard  time.Duration // a process silent this long after a request is hung
	hung  chan error    // reports a hung process to the supervisor
}

func newXbotLink(r io.Reader, w io.Writer, hard time.Duration, log *slog.Logger) *xbotLink {
	l := &xbotLink{w: w, lines: make(chan xbotLine, 1), turn: make(chan struct{}, 1), hard: hard, hung: make(chan error, 1)}
	l.turn <- struct{}{}
	go func() {
		defer close(l.lines)
		br := bufio.NewReaderSize(r, 64<<10)
		for {
			line, cut, err := readLine(br, xbotMaxLine)
			switch {
			case cut > 0:
				// One request is in flight at a time: a line this long
				// is its answer (or output no answer follows, which
				// the caller could not wait out either).
				log.Warn("discarded a line of the plugin's output longer than the limit",
					"limit", xbotMaxLine, "size", len(line)+cut, "start", truncateText(line, 200))
				l.lines <- xbotLine{tooLarge: true}
			case strings.TrimSpace(line) != "":
				l.lines <- xbotLine{b: []byte(line)}
			}
			if err != nil {
				return
			}
		}
	}()
	return l
}

// exchange sends one request and waits for its response, or ctx's end. A
// request whose caller gave up keeps the link until its late response
// arrives (and is dropped) or the hard limit passes (the process is hung).
func (l *xbotLink) exchange(ctx context.Context, req xbotRequest) (*xbotResponse, error) {
	select {
	case <-l.turn:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	b, err := json.Marshal(req)
	if err != nil {
		l.turn <- struct{}{}
		return nil, err
	}
	// The write is bounded too: a plugin that stops reading its input
	// fills the pipe, and the write would block the turn.
	wrote := make(chan error, 1)
	go func() {
		_, err := l.w.Write(append(b, '\n'))
		wrote <- err
	}()
	select {
	case err := <-wrote:
		if err != nil {
			l.turn <- struct{}{}
			return nil, fmt.Errorf("plugin is not running: %w", err)
		}
	case <-ctx.Done():
		go l.finishWrite(wrote)
		return nil, fmt.Errorf("the plugin is not reading its input: %w", ctx.Err())
	}
	for {
		select {
		case line, ok := <-l.lines:
			if !ok {
				l.turn <- struct{}{}
				return nil, errors.New("plugin is not running: its output ended")
			}
			if line.tooLarge {
				l.turn <- struct{}{}
				return nil, errXbotTooLarge
			}
			var resp xbotResponse
			if err := json.Unmarshal(line.b, &resp); err != nil {
				// Not a response: stray output. Keep waiting.
				continue
			}
			l.turn <- struct{}{}
			return &resp, nil
		case <-ctx.Done():
			go l.drain()
			return nil, ctx.Err()
		}
	}
}

// finishWrite waits for the write of an abandoned request: once it is
// written, for its late response (drain); if it is still not written
// after the hard limit, the process is hung, and the link is free once the
// supervisor's kill ends the write.
func (l *xbotLink) finishWrite(wrote <-chan error) {
	t := time.NewTimer(l.hard)
	defer t.Stop()
	select {
	case err := <-wrote:
		if err != nil {
			l.turn <- struct{}{}
			return
		}
		l.drain()
	case <-t.C:
		select {
		case l.hung <- fmt.Errorf("stopped reading its input (a request not taken within %s)", l.hard):
		default:
		}
		<-wrote
		l.turn <- struct{}{}
	}
}

// drain waits for the late response of an abandoned request.
func (l *xbotLink) drain() {
	t := time.NewTimer(l.hard)
	defer t.Stop()
	for {
		select {
		case line, ok := <-l.lines:
			if !ok {
				l.turn <- struct{}{}
				return
			}
			var resp xbotResponse
			if !line.tooLarge && json.Unmarshal(line.b, &resp) != nil {
				continue
			}
			l.turn <- struct{}{}
			return
		case <-t.C:
			select {
			case l.hung <- fmt.Errorf("stopped answering (no response within %s)", l.hard):
			default:
			}
			l.turn <- struct{}{}
			return
		}
	}
}

// runXbot activates an xbot stdio plugin, registers its tools, hooks and
// enrichers, and serves it until it exits or Stop.
func (p *Process) runXbot(sp *spawned) (autoRestart bool, err error) {
	timeout := p.toolTimeout()
	if decl := p.m.xbotChannel(); decl != nil {
		return p.runXbotChannel(sp, decl, timeout)
	}
	link := newXbotLink(sp.stdout, sp.stdin, 2*timeout, p.log)
	ctx, cancel := context.WithTimeout(context.Background(), p.opts.HandshakeTimeout)
	type act struct {
		resp *xbotResponse
		err  error
	}
	got := make(chan act, 1)
	go func() {
		r, err := link.exchange(ctx, xbotRequest{Method: "activate", Params: map[string]any{"pluginId": p.m.ID}})
		got <- act{r, err}
	}()
	var a act
	select {
	case a = <-got:
	case werr := <-sp.exited:
		cancel()
		sp.kill()
		return true, fmt.Errorf("exited during activate: %v", exitText(werr))
	case <-p.stop: // stopped while it activates: no need to wait for it
		cancel()
		sp.kill()
		<-sp.exited
		return false, nil
	}
	cancel()
	if a.err == nil && a.resp.Error != "" {
		a.err = errors.New(a.resp.Error)
	}
	if a.err != nil {
		sp.kill()
		<-sp.exited
		if errors.Is(a.err, context.DeadlineExceeded) {
			err := fmt.Errorf("no answer to activate within %s; its tools and hooks are not loaded (Hearth retries in the background and does not wait for it again)", p.opts.HandshakeTimeout)
			p.giveUpWaiting(err)
			return true, err
		}
		return true, fmt.Errorf("activate failed: %w", a.err)
	}
	p.activateAnswered()
	matchers, err := p.xbotMatchers(a.resp.Hooks)
	if err != nil {
		// What the plugin answers to activate does not change by
		// restarting it; a guard among its hooks keeps refusing.
		sp.kill()
		<-sp.exited
		return false, err
	}
	if err := p.registerXbot(link, a.resp, matchers, timeout, nil); err != nil {
		sp.kill()
		<-sp.exited
		return true, err
	}
	if err := p.hookWithoutRegistration(); err != nil {
		sp.kill()
		<-sp.exited
		return false, err
	}
	p.guarded()
	p.opts.Host.ResumeHooks(p.name)
	p.markRunning(sp.cmd.Process.Pid, "xbot stdio")

	select {
	case werr := <-sp.exited:
		sp.kill()
		return true, fmt.Errorf("exited: %v", exitText(werr))
	case herr := <-link.hung:
		sp.kill()
		<-sp.exited
		return true, herr
	case <-p.stop:
		dctx, dcancel := context.WithTimeout(context.Background(), p.opts.GracePeriod)
		_, _ = link.exchange(dctx, xbotRequest{Method: "deactivate"})
		dcancel()
		sp.stdin.Close()
		select {
		case <-sp.exited:
		case <-time.After(p.opts.GracePeriod):
		}
		sp.kill()
		return false, nil
	}
}

// toolTimeout is the deadline of the plugin's tools: plugin.json's, else
// xbot's 30 seconds.
func (p *Process) toolTimeout() time.Duration {
	if d := p.m.ToolTimeout(); d > 0 {
		return d
	}
	return 30 * time.Second
}

// xbotMatchers compiles the matchers of the hooks an activate response
// registers, one for each. A matcher that does not compile fails the
// activation; if it belongs to a PreToolUse hook the plugin counts as a
// guard, so the calls that hook would have been asked about are refused
// (all of them: which ones it meant is unknown).
func (p *Process) xbotMatchers(hooks []xbotHook) ([]xbotMatcher, error) {
	matchers := make([]xbotMatcher, len(hooks))
	for i, h := range hooks {
		m, err := compileXbotMatcher(h.Matcher)
		if err != nil {
			if h.Event == "PreToolUse" {
				p.hooked()
			}
			return nil, fmt.Errorf("activate: %s hook: %w", h.Event, err)
		}
		matchers[i] = m
	}
	return matchers, nil
}

// registerXbot turns an activate response into Hearth registrations,
// after plugin.json's default modes are in force.
func (p *Process) registerXbot(link *xbotLink, r *xbotResponse, matchers []xbotMatcher, timeout time.Duration, c *xbotChan) error {
	if c == nil {
		if err := p.opts.Host.SetManifest(p.name, sdk.Manifest{ID: p.name, Name: p.name, Version: "0.0.0", DefaultModes: p.m.DefaultModes}); err != nil {
			return err
		}
	}
	var entries []toolEntry
	for _, t := range r.Tools {
		schema, err := xbotSchema(t)
		if err != nil {
			return fmt.Errorf("tool %q: %w", t.Name, err)
		}
		tool, channels := t.Name, t.Channels
		def := sdk.ToolDef{Name: tool, Description: channelsNote(t.Description, channels), Parameters: schema, Timeout: timeout}
		h := func(ctx context.Context, tc *sdk.ToolContext, _ map[string]any, raw json.RawMessage) (any, error) {
			if err := channelGuard(tool, channels, tc); err != nil {
				return nil, err
			}
			resp, err := link.exchange(ctx, xbotRequest{Method: "execute_tool", Params: map[string]any{"toolName": tool, "input": string(raw)}})
			if err != nil {
				return nil, err
			}
			if resp.Error != "" {
				return nil, errors.New(resp.Error)
			}
			if resp.Result == nil {
				return "", nil
			}
			return *resp.Result, nil
		}
		if c != nil {
			entries = append(entries, toolEntry{def: def, h: h})
			continue
		}
		if err := p.opts.Host.RegisterTool(p.name, def, h); err != nil {
			return err
		}
	}
	if c != nil {
		c.setTools(&c.actTools, entries)
	}
	p.registerXbotHooks(link, r.Hooks, matchers, timeout)
	if len(r.Enrichers) > 0 {
		enrichers := r.Enrichers
		p.opts.Host.RegisterStage(p.name, sdk.StagePreAction, false, func(sc *sdk.StageContext) error {
			return p.enrich(link, enrichers, sc, timeout)
		})
	}
	return nil
}

// enrich adds each enricher's text to the system prompt under a heading
// "## <enricher> (<plugin id>)", as xbot does.
func (p *Process) enrich(link *xbotLink, enrichers []xbotEnricher, sc *sdk.StageContext, timeout time.Duration) error {
	var b strings.Builder
	for _, e := range enrichers {
		ctx, cancel := context.WithTimeout(context.Background(), min(timeout, p.opts.StageTimeout))
		resp, err := link.exchange(ctx, xbotRequest{Method: "enrich", Params: map[string]any{"enricherName": e.Name}})
		cancel()
		if err != nil || resp.Error != "" || resp.Result == nil || strings.TrimSpace(*resp.Result) == "" {
			continue
		}
		fmt.Fprintf(&b, "\n\n## %s (%s)\n%s", e.Name, p.m.ID, strings.TrimSpace(*resp.Result))
	}
	if b.Len() == 0 {
		return nil
	}
	for _, m := range sc.ContextMsgs {
		if m["role"] == "system" {
			if c, ok := m["content"].(string); ok {
				m["content"] = c + b.String()
				return nil
			}
		}
	}
	sc.ContextMsgs = append([]map[string]any{{"role": "system", "content": strings.TrimSpace(b.String())}}, sc.ContextMsgs...)
	return nil
}

// xbotSchema returns the tool's JSON Schema: its inputSchema, else one
// built from its parameter list.
func xbotSchema(t xbotTool) (map[string]any, error) {
	if len(t.InputSchema) > 0 && string(t.InputSchema) != "null" {
		var s map[string]any
		if err := json.Unmarshal(t.InputSchema, &s); err != nil {
			return nil, fmt.Errorf("inputSchema: %w", err)
		}
		return s, nil
	}
	props := map[string]any{}
	var required []string
	for _, prm := range t.Parameters {
		typ := prm.Type
		if typ == "" {
			typ = "string"
		}
		ps := map[string]any{"type": typ}
		if prm.Description != "" {
			ps["description"] = prm.Description
		}
		if len(prm.Items) > 0 {
			var items any
			if err := json.Unmarshal(prm.Items, &items); err == nil {
				ps["items"] = items
			}
		} else if typ == "array" {
			ps["items"] = map[string]any{"type": "string"}
		}
		props[prm.Name] = ps
		if prm.Required {
			required = append(required, prm.Name)
		}
	}
	s := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		s["required"] = required
	}
	return s, nil
}
