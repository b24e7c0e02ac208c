package kernel

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/hearth-agent/hearth/internal/llm"
	"github.com/hearth-agent/hearth/internal/policy"
	"github.com/hearth-agent/hearth/internal/scope"
	"github.com/hearth-agent/hearth/internal/tools"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/toolcall"
)

// DirectCall is one tool call made outside a model turn: an MCP client's
// tools/call (internal/mcpserve). The client's own model chose the call,
// so it runs as the agent's call for the requester, through everything a
// turn's call goes through.
type DirectCall struct {
	// Requester is who asks: the channel, chat and user the policy sees
	// (Text and the rest are ignored).
	Requester sdk.Injection
	// Tool is the tool's model-facing name (plugin__tool).
	Tool string
	// Arguments is the JSON object of arguments; empty means none.
	Arguments json.RawMessage
	// CallID names the call in the audit log and to the tool; empty gets
	// "direct".
	CallID string
	// Approver asks the caller to approve a call that needs it; nil means
	// nobody can be asked, and such a call is refused with a message
	// saying how to allow it.
	Approver policy.Approver
	// Taint is the caller's session taint: read before the call (a
	// tainted session's calls are judged as tainted) and set once an
	// untrusted tool's result is returned. Nil counts as untainted and
	// keeps nothing.
	Taint *atomic.Bool
	// Progress, when not nil, receives the tool's ToolContext.Progress
	// reports as a turn's channel does: at most about ten a second (the
	// latest before the result), the message cut short and its secrets
	// masked.
	Progress func(done, total float64, message string)
}

// ErrNotOffered is returned by CallTool for a tool the requester is not
// offered (or that does not exist): to the caller it is unknown.
var ErrNotOffered = fmt.Errorf("%w (not offered to this caller)", tools.ErrUnknownTool)

// CallTool runs one call as a turn's call runs: only a tool DirectTools
// gives this requester, then before_toolcall, validation of the
// arguments, the policy (approval through c.Approver), the audit log
// (started, then the outcome), the tool, after_toolcall. Everything that
// stops the call is a result with IsError set, as the model would see it;
// the error is only for a tool that is not offered (ErrNotOffered) or a
// kernel that is shut down (ErrClosed). Secrets of the provider are
// masked in the result's content; the built-in memory plugin's results
// are masked and marked as in a turn (recall_marks.go).
func (k *Kernel) CallTool(ctx context.Context, c DirectCall) (toolcall.Result, error) {
	k.mu.Lock()
	if k.closed {
		k.mu.Unlock()
		return toolcall.Result{}, ErrClosed
	}
	k.wg.Add(1)
	k.mu.Unlock()
	defer k.wg.Done()
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stop := context.AfterFunc(k.base, func() { cancel(context.Cause(k.base)) })
	defer stop()

	t := k.directTurn(c)
	ctx = scope.With(ctx, t.conv) // the tool and its stages act in the requester's conversation
	id := c.CallID
	if id == "" {
		id = "direct"
	}
	args := c.Arguments
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	p := &preparedCall{call: sdk.ToolCall{ID: id, Name: c.Tool}}
	if m, _, err := toolcall.DecodeArguments(args); err == nil {
		p.call.Arguments = m
	}
	// The caller's text is the call's text, as the model's is in a turn:
	// malformed arguments are refused by prepare as a model's would be.
	p.orig = &llm.ToolCall{ID: id, Type: "function", Function: llm.FunctionCall{Name: c.Tool, Arguments: string(args)}}
	tool, ok := k.tools.Lookup(c.Tool)
	if !ok || !k.offered(t, tool) {
		// Audited as a turn audits a call of a tool it was not offered:
		// denied, not offered.
		p.notOffered()
		k.audit(ctx, t, p, false) // the call is refused either way; a failure is logged
		return toolcall.Result{}, fmt.Errorf("%w: %q", ErrNotOffered, c.Tool)
	}
	p.call.Name, p.call.Plugin = k.tools.CallName(tool), tool.Plugin
	t.offered = map[string]bool{p.call.Name: true}
	k.prepare(ctx, t, p)
	ran := false
	if !p.ready {
		if err := k.audit(ctx, t, p, true); err != nil {
			p.finish(toolcall.ErrorResult(errNotRun, "not run: the audit log could not be written"))
			p.outcome = "not-run"
		} else {
			p.result, ran = p.tool.Invoke(ctx, p.tc, p.args, p.raw), true
		}
		p.progress.close() // a waiting report goes before the result
	}
	k.maskMemoryResult(p) // recall_marks.go: as a turn's call
	if ran && p.tool.Def.Untrusted && c.Taint != nil {
		// Third-party text reaches the caller's model from here on.
		c.Taint.Store(true)
	}
	if k.pipeline.Has(sdk.StageAfterToolcall) {
		k.afterToolcall(t, p)
	}
	k.settle(ctx, t, p)
	if ran {
		// The conversations shown a fact the call changed are told.
		k.noteMemoryResult(ctx, t, p, false)
	}
	if k.secrets != nil {
		p.result.Content = k.secrets.String(p.result.Content)
	}
	if errors.Is(context.Cause(ctx), ErrClosed) {
		return p.result, ErrClosed
	}
	return p.result, nil
}

// DirectTools returns the tools a direct caller (in's channel, chat and
// user) may call with CallTool: those OfferedTools gives, with every
// plugin's on-demand tools loaded (a caller outside a turn has its own
// tool list; it cannot load them with plugins__use, which is left out).
func (k *Kernel) DirectTools(in sdk.Injection) []*tools.Tool {
	t := k.directTurn(DirectCall{Requester: in})
	var out []*tools.Tool
	for _, tool := range k.tools.List() {
		if k.offered(t, tool) {
			out = append(out, tool)
		}
	}
	return out
}

// directTurn is the turn state a direct call is prepared in: the
// requester's channel, chat and user, a conversation of its own with
// every on-demand plugin loaded, the caller's taint.
func (k *Kernel) directTurn(c DirectCall) *turnState {
	in := c.Requester
	in.Text = ""
	s := &session{key: sessionKey{in.Channel, in.ChatID}}
	for _, tool := range k.tools.List() {
		if k.onDemand(tool) && !s.pluginUsed(tool.Plugin) {
			s.usePlugin(tool.Plugin)
		}
	}
	// The call's progress goes to the caller as a turn's goes to its
	// channel: throttled (prepare's progressFor) and masked.
	emit := func(Event) {}
	if c.Progress != nil {
		emit = maskEvents(k.secrets, func(ev Event) {
			if ev.Kind == EventToolProgress {
				c.Progress(ev.Done, ev.Total, ev.Text)
			}
		})
	}
	t := &turnState{
		in:   Input{Injection: in},
		s:    s,
		emit: emit,
	}
	t.conv = k.conversation(t.in)
	t.sc = &sdk.StageContext{UserID: in.UserID, GroupID: in.GroupID, Channel: in.Channel, ChatID: in.ChatID,
		Extra: map[string]any{}}
	if c.Approver != nil {
		t.in.Approver = c.Approver
	}
	if c.Taint != nil {
		t.tainted = c.Taint.Load()
	}
	return t
}
