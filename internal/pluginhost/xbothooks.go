package pluginhost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/hearth-agent/hearth/internal/tools"
	"github.com/hearth-agent/hearth/sdk"
)

// xbot's hook events (plugin/PROTOCOL.md §5.1) and what Hearth does with
// each. An event Hearth has a counterpart for is mapped onto it; one it
// has none for is refused when the plugin activates, with a log line
// naming it and why: never dropped silently.
const (
	xbotPreToolUse         = "PreToolUse"
	xbotPostToolUse        = "PostToolUse"
	xbotPostToolUseFailure = "PostToolUseFailure"
	xbotUserPromptSubmit   = "UserPromptSubmit"
	xbotAgentStop          = "AgentStop"
	xbotSessionStart       = "SessionStart"
	xbotPreCompact         = "PreCompact"
	xbotPostCompact        = "PostCompact"
)

// compactHooker is what a Host offers when it compacts sessions' history
// (*kernel.Kernel does): phase is "pre" or "post" (kernel.CompactPre,
// kernel.CompactPost).
type compactHooker interface {
	RegisterCompactHook(plugin string, h func(phase, channel, chatID string, messages, tokens int))
}

// xbotRefusedEvents are xbot's events Hearth has no counterpart for, with
// the reason given when a plugin subscribes to one.
var xbotRefusedEvents = map[string]string{
	"SessionEnd":    "Hearth does not tell plugins when a session ends (sessions are evicted when idle, and reset on request)",
	"SubAgentStart": "Hearth has no sub-agents",
	"SubAgentStop":  "Hearth has no sub-agents",
	// PreCompact and PostCompact are hooks (xbotCompactHooks), not script
	// triggers; refused here when the host does not compact.
	xbotPreCompact:    "Hearth fires PreCompact only as a plugin hook, and only in a host that compacts history",
	xbotPostCompact:   "Hearth fires PostCompact only as a plugin hook, and only in a host that compacts history",
	"CronFired":       "Hearth has no scheduler that fires plugin hooks",
	"WebhookReceived": "Hearth receives no webhooks on behalf of plugins",
}

// xbotEventSupported says whether Hearth maps event, and if not why.
func xbotEventSupported(event string) (ok bool, why string) {
	switch event {
	case xbotPreToolUse, xbotPostToolUse, xbotPostToolUseFailure, xbotUserPromptSubmit, xbotAgentStop, xbotSessionStart:
		return true, ""
	}
	if why, known := xbotRefusedEvents[event]; known {
		return false, why
	}
	return false, "it is not one of xbot's hook events"
}

// toolRegistry is what a Host offers when it can say which plugin
// registered a tool under which name (*kernel.Kernel does).
type toolRegistry interface {
	Tools() *tools.Registry
}

// xbotToolName returns the name the tool the model calls model was
// registered under by its own plugin (python_greet for
// com-example-python-hello__python_greet), as xbot's hooks expect: it
// asks the tool registry, never cuts the string. A tool the registry does
// not know (or a host without one) keeps the model's name.
func (p *Process) xbotToolName(model string) string {
	if r, ok := p.opts.Host.(toolRegistry); ok && r.Tools() != nil {
		if t, ok := r.Tools().Lookup(model); ok && t.Local != "" {
			return t.Local
		}
	}
	return model
}

// xbotHookCall is the parameters of one hook request.
type xbotHookCall struct {
	event, tool, input, channel, chat string
	extra                             map[string]any // event-specific parameters (PreCompact's messageCount)
}

func (c xbotHookCall) params() map[string]any {
	m := map[string]any{
		"event": c.event, "toolName": c.tool, "toolInput": c.input,
		"sessionId": c.channel + "/" + c.chat, "channel": c.channel, "chatId": c.chat,
	}
	for k, v := range c.extra {
		m[k] = v
	}
	return m
}

// xbotSessions remembers the chats a plugin has seen since it started,
// for SessionStart: the first message of a chat starts its session.
type xbotSessions struct {
	mu   sync.Mutex
	seen map[string]bool
}

// first reports whether key is new, and remembers it.
func (s *xbotSessions) first(key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.seen[key] {
		return false
	}
	if s.seen == nil {
		s.seen = map[string]bool{}
	}
	s.seen[key] = true
	return true
}

// xbotDeniedText answers a message a UserPromptSubmit hook refused
// without saying why (both verbs name the plugin's id).
const xbotDeniedText = "The plugin %s refused this message.\n插件 %s 拒绝了这条消息。"

// registerXbotHooks maps the hooks of an activate response onto Hearth's
// stages and decision hooks, refusing (with a log line) the events Hearth
// has no counterpart for.
func (p *Process) registerXbotHooks(link *xbotLink, hooks []xbotHook, matchers []xbotMatcher, timeout time.Duration) {
	sessions := &xbotSessions{}
	for i, h := range hooks {
		if ch, ok := p.opts.Host.(compactHooker); ok && (h.Event == xbotPreCompact || h.Event == xbotPostCompact) {
			p.registerXbotCompactHook(link, ch, h, timeout)
			continue
		}
		if ok, why := xbotEventSupported(h.Event); !ok {
			p.log.Warn("xbot hook refused: Hearth has no counterpart for this event", "event", h.Event, "matcher", h.Matcher, "why", why)
			continue
		}
		p.registerXbotHook(link, h, matchers[i], timeout, sessions)
	}
}

// registerXbotHook maps one supported xbot hook onto a Hearth stage or
// decision hook. Tool events carry the name the tool's plugin registered
// (xbotToolName), and the matcher is tried on it and on the model's name.
func (p *Process) registerXbotHook(link *xbotLink, h xbotHook, m xbotMatcher, timeout time.Duration, sessions *xbotSessions) {
	ask := func(c xbotHookCall) *xbotHookResult {
		ctx, cancel := context.WithTimeout(context.Background(), min(timeout, p.opts.StageTimeout))
		defer cancel()
		resp, err := link.exchange(ctx, xbotRequest{Method: "hook", Params: c.params()})
		if err == nil && resp.Error != "" {
			err = errors.New(resp.Error)
		}
		if err != nil {
			// The detail (the plugin's own text, perhaps) goes to the log;
			// the person reads a fixed text naming the plugin.
			p.log.Warn("xbot hook failed; a message it checks is refused", "event", c.event, "err", err)
			return &xbotHookResult{Decision: "deny", Message: fmt.Sprintf(guardFailedText, p.m.ID, p.m.ID)}
		}
		return resp.HookResult
	}
	// callArgs picks the one tool call of an after_toolcall stage, if the
	// matcher takes it.
	callArgs := func(sc *sdk.StageContext) (string, string, bool) {
		if len(sc.ToolCalls) != 1 {
			return "", "", false
		}
		local := p.xbotToolName(sc.ToolCalls[0].Name)
		if !m.matchTool(sc.ToolCalls[0].Name, local) {
			return "", "", false
		}
		b, _ := json.Marshal(sc.ToolCalls[0].Arguments)
		return local, string(b), true
	}
	switch h.Event {
	case xbotPreToolUse:
		// A decision hook, not a stage handler: the policy engine holds
		// and refuses calls while the plugin is down.
		p.hooked()
		p.opts.Host.RegisterDecisionHook(p.name, p.xbotPreToolHook(link, h, m, min(timeout, p.opts.StageTimeout)))
	case xbotPostToolUse, xbotPostToolUseFailure:
		failure := h.Event == xbotPostToolUseFailure
		p.opts.Host.RegisterStage(p.name, sdk.StageAfterToolcall, false, func(sc *sdk.StageContext) error {
			tool, input, ok := callArgs(sc)
			if !ok || len(sc.ToolResults) != 1 || sc.ToolResults[0].Success == failure {
				return nil
			}
			ask(xbotHookCall{event: h.Event, tool: tool, input: input, channel: sc.Channel, chat: sc.ChatID})
			return nil
		})
	case xbotUserPromptSubmit:
		p.opts.Host.RegisterStage(p.name, sdk.StageOnInput, false, func(sc *sdk.StageContext) error {
			r := ask(xbotHookCall{event: h.Event, input: sc.RawMessage, channel: sc.Channel, chat: sc.ChatID})
			if r != nil && r.Decision == "deny" {
				msg := r.Message
				if strings.TrimSpace(msg) == "" {
					msg = fmt.Sprintf(xbotDeniedText, p.m.ID, p.m.ID)
				}
				sc.Response = &msg
			}
			return nil
		})
	case xbotAgentStop:
		p.opts.Host.RegisterStage(p.name, sdk.StageAfterOutput, false, func(sc *sdk.StageContext) error {
			ask(xbotHookCall{event: h.Event, input: sc.FinalText, channel: sc.Channel, chat: sc.ChatID})
			return nil
		})
	case xbotSessionStart:
		// The first message of a chat since the plugin started opens its
		// session; the hook is told before the message is handled.
		p.opts.Host.RegisterStage(p.name, sdk.StageOnInput, false, func(sc *sdk.StageContext) error {
			if sessions.first(sc.Channel + "/" + sc.ChatID) {
				ask(xbotHookCall{event: h.Event, channel: sc.Channel, chat: sc.ChatID})
			}
			return nil
		})
	}
}

// registerXbotCompactHook tells the plugin about each compaction of a
// session's history: PreCompact before the summary call (messageCount and
// estimatedTokensBefore: what is about to be compacted), PostCompact after
// it (estimatedTokensAfter: the request's estimate now). trigger is
// "auto": Hearth compacts when a request nears the window. The hook's
// answer is not used; one that fails is logged.
func (p *Process) registerXbotCompactHook(link *xbotLink, ch compactHooker, h xbotHook, timeout time.Duration) {
	pre := h.Event == xbotPreCompact
	ch.RegisterCompactHook(p.name, func(phase, channel, chatID string, messages, tokens int) {
		if (phase == "pre") != pre {
			return
		}
		extra := map[string]any{"trigger": "auto"}
		if pre {
			extra["messageCount"], extra["estimatedTokensBefore"] = messages, tokens
		} else {
			extra["estimatedTokensAfter"] = tokens
		}
		ctx, cancel := context.WithTimeout(context.Background(), min(timeout, p.opts.StageTimeout))
		defer cancel()
		c := xbotHookCall{event: h.Event, channel: channel, chat: chatID, extra: extra}
		resp, err := link.exchange(ctx, xbotRequest{Method: "hook", Params: c.params()})
		if err == nil && resp.Error != "" {
			err = errors.New(resp.Error)
		}
		if err != nil {
			p.log.Warn("xbot hook failed", "event", h.Event, "err", err)
		}
	})
}
