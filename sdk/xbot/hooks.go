package xbot

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/guard"
)

// How xbot's hook events run on Hearth:
//
//	PreToolUse          a decision hook: Deny refuses the call, Ask makes it
//	                    need approval, Allow and Defer leave the policy to
//	                    decide (a hook never allows what policy refused). A
//	                    hook that fails or panics refuses the call.
//	PostToolUse         after_toolcall, for a call that succeeded
//	PostToolUseFailure  after_toolcall, for a call that failed (OnError)
//	UserPromptSubmit    on_input; Deny answers with its message instead of
//	                    running the turn, and so does a hook that fails,
//	                    panics or does not answer in time (with a short
//	                    refusal naming the plugin): a broken filter lets
//	                    nothing through
//	AgentStop           after_output; a failure is only logged (the answer
//	                    is already given)
//
// Every hook (and enricher) runs under DefaultPluginTimeout through
// guard.Call: one that ignores its context does not hold the turn, and a
// panic is a failure. A PostToolUse or AgentStop failure is logged.
//
// Every other event is refused with an error wrapping ErrNotSupported.

// OnPreToolUse asks handler about every call of a tool matching matcher.
func (c *Context) OnPreToolUse(matcher string, handler HookHandler) error {
	return c.OnEvent(HookPreToolUse, matcher, handler)
}

// OnPostToolUse runs handler after every successful call of a tool
// matching matcher.
func (c *Context) OnPostToolUse(matcher string, handler HookHandler) error {
	return c.OnEvent(HookPostToolUse, matcher, handler)
}

// OnUserPrompt runs handler on every input before the turn.
func (c *Context) OnUserPrompt(handler HookHandler) error {
	return c.OnEvent(HookUserPromptSubmit, "", handler)
}

// OnAgentStop runs handler after every answer.
func (c *Context) OnAgentStop(handler HookHandler) error {
	return c.OnEvent(HookAgentStop, "", handler)
}

// OnSessionStart is refused: Hearth has no session start event for
// plugins.
func (c *Context) OnSessionStart(handler HookHandler) error {
	return c.OnEvent(HookSessionStart, "", handler)
}

// OnSessionEnd is refused, as OnSessionStart.
func (c *Context) OnSessionEnd(handler HookHandler) error {
	return c.OnEvent(HookSessionEnd, "", handler)
}

// OnAllToolUse runs handler before and after every call.
func (c *Context) OnAllToolUse(handler HookHandler) error {
	if err := c.OnPreToolUse("", handler); err != nil {
		return err
	}
	return c.OnPostToolUse("", handler)
}

// OnError runs handler after every failed call.
func (c *Context) OnError(handler HookHandler) error {
	return c.OnEvent(HookPostToolUseError, "", handler)
}

// OnEvent subscribes handler to event; matcher selects tools by name
// ("" or "*" all, "Shell*" a prefix, "*_list" a suffix, "*git*" a part,
// "a|b" either), matched against the name the owning plugin registered
// and the name the model calls.
func (c *Context) OnEvent(event HookEvent, matcher string, handler HookHandler) error {
	if handler == nil {
		return fmt.Errorf("xbot: %s hook: the handler is nil", event)
	}
	switch event {
	case HookPreToolUse:
		c.s.RegisterDecisionHook(func(ctx context.Context, tc *sdk.ToolContext, tool string, args map[string]any) (sdk.HookDecision, error) {
			return c.preToolUse(ctx, matcher, handler, tc, tool, args)
		})
	case HookPostToolUse, HookPostToolUseError:
		failed := event == HookPostToolUseError
		c.s.RegisterStage(sdk.StageAfterToolcall, func(sc *sdk.StageContext) error {
			return c.postToolUse(event, failed, matcher, handler, sc)
		})
	case HookUserPromptSubmit:
		c.s.RegisterGuardStage(sdk.StageOnInput, func(sc *sdk.StageContext) error {
			return c.userPrompt(handler, sc)
		})
	case HookAgentStop:
		c.s.RegisterStage(sdk.StageAfterOutput, func(sc *sdk.StageContext) error {
			p := stagePayload(event, sc)
			p.ToolOutput = sc.FinalText
			_, err := c.run(handler, p)
			return err
		})
	default:
		return fmt.Errorf("xbot: hook event %q: %w", event, ErrNotSupported)
	}
	return nil
}

func (c *Context) preToolUse(ctx context.Context, matcher string, handler HookHandler, tc *sdk.ToolContext, tool string, args map[string]any) (sdk.HookDecision, error) {
	local := tool
	if tc != nil && tc.Tool != "" {
		local = tc.Tool
	}
	if !matchTool(matcher, local, tool) {
		return sdk.HookDecision{Verdict: sdk.VerdictAllow}, nil
	}
	input, _ := json.Marshal(args)
	p := &HookPayload{Event: HookPreToolUse, ToolName: local, ToolInput: string(input), Extra: map[string]any{"tool": tool}}
	if tc != nil {
		p.Channel, p.ChatID, p.UserID = tc.Channel, tc.ChatID, tc.UserID
		p.TenantID = TenantOf(tc.Channel, tc.ChatID)
		p.Extra["plugin"] = tc.PluginID
		if tc.Turn != nil {
			p.SessionID = tc.Turn.SessionID
		}
	}
	c.hookCalls.Add(1)
	r, err := guard.Call(ctx, c.hookTimeout(), func(ctx context.Context) (*HookResult, error) { return handler(ctx, p) })
	if err != nil {
		c.fail(err)
		return sdk.HookDecision{}, fmt.Errorf("xbot PreToolUse hook of %s: %w", c.id, err)
	}
	if r == nil {
		return sdk.HookDecision{Verdict: sdk.VerdictAllow}, nil
	}
	switch r.Decision {
	case DecisionDeny:
		return sdk.HookDecision{Verdict: sdk.VerdictDeny, Reason: r.Message}, nil
	case DecisionAsk:
		return sdk.HookDecision{Verdict: sdk.VerdictAsk, Reason: r.Message}, nil
	}
	return sdk.HookDecision{Verdict: sdk.VerdictAllow}, nil
}

func (c *Context) postToolUse(event HookEvent, failed bool, matcher string, handler HookHandler, sc *sdk.StageContext) error {
	if len(sc.ToolCalls) != 1 || len(sc.ToolResults) != 1 || sc.ToolResults[0].Success == failed {
		return nil
	}
	call, res := sc.ToolCalls[0], sc.ToolResults[0]
	local := localName(call.Name, call.Plugin)
	if !matchTool(matcher, local, call.Name) {
		return nil
	}
	input, _ := json.Marshal(call.Arguments)
	out := resultText(res.Result)
	p := stagePayload(event, sc)
	p.ToolName, p.ToolInput, p.ToolOutput = local, string(input), out
	p.Extra["tool"], p.Extra["plugin"], p.Extra["output"] = call.Name, call.Plugin, out
	_, err := c.run(handler, p)
	return err
}

// userPrompt is the on_input handler of a UserPromptSubmit hook. It
// fails closed: a hook that errs, panics or does not answer in time
// refuses the message as a Deny would, so a broken filter lets nothing
// through. The error goes to the plugin's log, never to the person.
func (c *Context) userPrompt(handler HookHandler, sc *sdk.StageContext) error {
	p := stagePayload(HookUserPromptSubmit, sc)
	p.ToolInput = sc.RawMessage
	p.Extra["prompt"] = sc.RawMessage
	r, err := c.run(handler, p)
	if err != nil {
		c.s.Logger().Warn("xbot UserPromptSubmit hook failed; the message is refused", "err", err)
		sc.SetResponse(fmt.Sprintf(hookFailedText, c.id, c.id))
		return nil
	}
	if r != nil && r.Decision == DecisionDeny {
		msg := r.Message
		if msg == "" {
			msg = fmt.Sprintf("The plugin %s refused this message.", c.id)
		}
		sc.SetResponse(msg)
	}
	return nil
}

// hookFailedText answers a message whose UserPromptSubmit hook failed
// (both verbs name the plugin's id).
const hookFailedText = "The plugin %s could not check this message, so it was not sent to the assistant.\n" +
	"插件 %s 无法检查这条消息，因此没有发送给助手。"

// run calls a stage-run handler through guard.Call with the hook
// deadline: a handler that ignores its context does not hold the turn
// past it, and a panic becomes an error.
func (c *Context) run(handler HookHandler, p *HookPayload) (*HookResult, error) {
	c.hookCalls.Add(1)
	r, err := guard.Call(context.Background(), c.hookTimeout(), func(ctx context.Context) (*HookResult, error) {
		return handler(ctx, p)
	})
	if err != nil {
		c.fail(err)
		return nil, fmt.Errorf("xbot %s hook of %s: %w", p.Event, c.id, err)
	}
	return r, nil
}

// hookTimeout bounds one hook or enricher call: DefaultPluginTimeout,
// unless a test of this package set a shorter one.
func (c *Context) hookTimeout() time.Duration {
	if c.timeout > 0 {
		return c.timeout
	}
	return DefaultPluginTimeout
}

func stagePayload(event HookEvent, sc *sdk.StageContext) *HookPayload {
	return &HookPayload{
		Event: event, SessionID: sc.Channel + "/" + sc.ChatID, Channel: sc.Channel, ChatID: sc.ChatID,
		UserID: sc.UserID, TenantID: TenantOf(sc.Channel, sc.ChatID), Extra: map[string]any{},
	}
}

// localName is the name a tool's plugin registered: the model's name
// without the "<plugin>__" prefix.
func localName(name, plugin string) string {
	if plugin != "" {
		if rest, ok := strings.CutPrefix(name, plugin+"__"); ok {
			return rest
		}
	}
	return name
}

// resultText is a tool result as text, as the model read it.
func resultText(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case interface{ Text() string }:
		return x.Text()
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// matchTool reports whether matcher selects a tool by either name.
func matchTool(matcher string, names ...string) bool {
	m := strings.TrimSpace(matcher)
	if m == "" || m == "*" {
		return true
	}
	for _, alt := range strings.Split(m, "|") {
		alt = strings.TrimSpace(alt)
		for _, n := range names {
			if alt != "" && glob(alt, n) {
				return true
			}
		}
	}
	return false
}

// glob matches name against pattern, where '*' is any run of characters.
func glob(pattern, name string) bool {
	parts := strings.Split(pattern, "*")
	if len(parts) == 1 {
		return pattern == name
	}
	if !strings.HasPrefix(name, parts[0]) {
		return false
	}
	name = name[len(parts[0]):]
	last := parts[len(parts)-1]
	for _, p := range parts[1 : len(parts)-1] {
		i := strings.Index(name, p)
		if i < 0 {
			return false
		}
		name = name[i+len(p):]
	}
	return strings.HasSuffix(name, last)
}

// enrich is the pre_action handler of EnrichContext.
func (c *Context) enrich(sc *sdk.StageContext) error {
	c.mu.Lock()
	list := append([]enricher(nil), c.enrichers...)
	c.mu.Unlock()
	var b strings.Builder
	for _, e := range list {
		text, err := guard.Call(context.Background(), c.hookTimeout(), func(ctx context.Context) (string, error) { return e.fn(ctx) })
		if err != nil {
			c.s.Logger().Warn("xbot context enricher failed", "enricher", e.name, "err", err)
			c.fail(err)
			continue
		}
		if text = strings.TrimSpace(text); text != "" {
			fmt.Fprintf(&b, "\n\n## %s (%s)\n%s", e.name, c.id, text)
		}
	}
	if b.Len() == 0 {
		return nil
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
