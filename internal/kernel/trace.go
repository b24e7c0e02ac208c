package kernel

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"reflect"
	"time"
	"unicode/utf8"

	"github.com/hearth-agent/hearth/internal/llm"
	"github.com/hearth-agent/hearth/internal/policy"
	"github.com/hearth-agent/hearth/internal/redact"
	"github.com/hearth-agent/hearth/internal/scope"
	"github.com/hearth-agent/hearth/internal/store"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/pipeline"
)

// TraceSaver keeps turn traces. A History that implements it, as
// *store.Store does, gets every turn's trace (unless Options.NoTraces):
// saved once, when the turn ends (a turn Hearth stopped in the middle of
// leaves none: a row saved at the start would cost every turn a second
// write). A failed save is logged; the turn goes on.
type TraceSaver interface {
	SaveTrace(ctx context.Context, tr *store.Trace) error
}

var _ TraceSaver = (*store.Store)(nil)

// Sizes of what a trace keeps of the texts it records.
const (
	traceInputRunes = 200     // Trace.Input and Trace.Answer
	traceToolBytes  = 8 << 10 // a tool call's arguments and result, each
)

// tracer records one turn's trace. Every method is called from the turn's
// goroutine and is a no-op on a nil *tracer (a turn not traced).
type tracer struct {
	tr    store.Trace
	mask  func(string) string
	costs bool // every model call so far had a price, in tr.Cost's currency
}

// traceMask returns what masks secrets in traces: the provider's source
// keys, and anything that looks like a key, when the provider knows its
// keys (llm.Sources); else only what looks like a key.
func traceMask(provider llm.Provider) func(string) string {
	if p, ok := provider.(interface{ Secrets() *redact.Secrets }); ok {
		return p.Secrets().All
	}
	return redact.KeyLike
}

// startTrace begins the trace of a turn answering in, or returns nil when
// turns are not traced.
func (k *Kernel) startTrace(in Input) *tracer {
	if k.traces == nil {
		return nil
	}
	var id [8]byte
	rand.Read(id[:])
	return &tracer{mask: k.mask, costs: true, tr: store.Trace{
		ID: hex.EncodeToString(id[:]), Channel: in.Channel, ChatID: in.ChatID, UserID: in.UserID, GroupID: in.GroupID,
		Plugin: in.Plugin, Input: cut(k.mask(in.Text), traceInputRunes), Untrusted: cut(k.mask(in.Untrusted), traceInputRunes),
		Started: time.Now(),
	}}
}

// saveTrace stores the trace as it is now, logging a failure.
func (k *Kernel) saveTrace(ctx context.Context, t *turnState) {
	tr := t.trace
	if tr == nil {
		return
	}
	tr.tr.SessionID = t.s.storeID
	if err := k.traces.SaveTrace(context.WithoutCancel(ctx), &tr.tr); err != nil {
		k.log.Warn("saving the turn's trace failed", "session", t.s.key, "trace", tr.tr.ID, "err", err)
	}
}

// endTrace records how the turn ended and saves the trace.
func (k *Kernel) endTrace(ctx context.Context, t *turnState, out Outcome) {
	tr := t.trace
	if tr == nil {
		return
	}
	tr.tr.Ended = time.Now()
	tr.tr.DurationMS = ms(tr.tr.Ended.Sub(tr.tr.Started))
	tr.tr.Answer = cut(tr.mask(out.Text), traceInputRunes)
	switch {
	case out.Interrupted:
		tr.tr.Outcome = store.TraceInterrupted
	case out.Err != nil:
		tr.tr.Outcome = store.TraceError
	default:
		tr.tr.Outcome = store.TraceAnswered
	}
	if out.Err != nil {
		tr.tr.Error = tr.mask(out.Err.Error())
	}
	if !tr.costs || len(tr.tr.ModelCalls) == 0 {
		tr.tr.Cost = nil
	}
	k.saveTrace(ctx, t)
}

// chat makes one model call: checked against the budgets first (a call
// over one is not made: the *llm.BudgetError is the turn's error), then
// recorded in the usage ledger and the trace.
func (k *Kernel) chat(ctx context.Context, t *turnState, req *llm.Request, onDelta func(llm.Delta)) (*llm.Response, error) {
	tr := t.trace
	src := k.currentSource()
	model := req.Model
	if model == "" {
		model = src.Model
	}
	started := time.Now()
	// Each call is held against the budgets before it is made: through
	// sources, each source tried (a fallback at its own price); else the
	// one call. The holds end once the call's usage is counted.
	var held []*reservation
	defer func() {
		for _, r := range held {
			r.release()
		}
	}()
	if g, ok := k.provider.(llm.Gated); ok && g.GatesCalls() {
		ctx = llm.WithCallGate(ctx, func(s llm.Source, m string) (func(), error) {
			r, err := k.reserve(ctx, t, req, s, m, started)
			if err != nil {
				return nil, err
			}
			held = append(held, r)
			return r.release, nil
		})
	} else {
		r, err := k.reserve(ctx, t, req, src, model, started)
		if err != nil {
			return nil, err
		}
		held = append(held, r)
	}
	asked := model
	mc := store.TraceModelCall{Source: src.Name, Model: model, Started: started}
	var first time.Time
	resp, err := k.provider.Chat(ctx, req, func(d llm.Delta) {
		if first.IsZero() && d.Retry == nil {
			first = time.Now()
		}
		onDelta(d)
	})
	if resp != nil {
		if resp.Model != "" {
			mc.Model = resp.Model
		}
		if resp.Source != "" && resp.Source != src.Name {
			// A fallback answered (llm.Sources): its price counts.
			if s, ok := k.sourceNamed(resp.Source); ok {
				src = s
				if asked = req.Model; asked == "" {
					asked = s.Model
				}
			}
			mc.Source, mc.Fallback = resp.Source, tr.maskText(resp.Fallback)
		}
	}
	u := usageOf(resp)
	price, priced := billedPrice(src, asked, mc.Model)
	k.recordUsage(ctx, t, src.Name, mc.Model, price, priced, u, started)
	t.cost.add(price, priced, u, started)
	if tr == nil {
		return resp, err
	}
	mc.DurationMS = ms(time.Since(mc.Started))
	if !first.IsZero() {
		mc.FirstTokenMS = ms(first.Sub(mc.Started))
	}
	if err != nil {
		if cause := context.Cause(ctx); cause != nil && errors.Is(err, ctx.Err()) {
			err = cause // why the turn was cancelled: stopped, a newer input, shutdown
		}
		mc.Error = tr.mask(err.Error())
	}
	if resp != nil {
		mc.FinishReason, mc.ToolCalls = resp.FinishReason, len(resp.ToolCalls)
		mc.Usage = traceUsage(resp.Usage)
		addTraceUsage(&tr.tr.Usage, mc.Usage)
	}
	if priced {
		mc.Cost = &store.TraceCost{Amount: price.CostAt(u, started), Currency: price.CurrencyCode()}
		switch {
		case tr.tr.Cost == nil:
			c := *mc.Cost
			tr.tr.Cost = &c
		case tr.tr.Cost.Currency == mc.Cost.Currency:
			tr.tr.Cost.Amount += mc.Cost.Amount
		default:
			tr.costs = false
		}
	} else {
		tr.costs = false
	}
	tr.tr.ModelCalls = append(tr.tr.ModelCalls, mc)
	return resp, err
}

// maskText masks s as the trace's texts are; a nil tracer returns "".
func (tr *tracer) maskText(s string) string {
	if tr == nil || s == "" {
		return ""
	}
	return tr.mask(s)
}

func usageOf(resp *llm.Response) llm.Usage {
	if resp == nil {
		return llm.Usage{}
	}
	return resp.Usage
}

func traceUsage(u llm.Usage) store.TraceUsage {
	return store.TraceUsage{InputTokens: u.PromptTokens, OutputTokens: u.CompletionTokens,
		CachedTokens: u.CachedTokens, ReasoningTokens: u.ReasoningTokens}
}

func addTraceUsage(total *store.TraceUsage, u store.TraceUsage) {
	total.InputTokens += u.InputTokens
	total.OutputTokens += u.OutputTokens
	total.CachedTokens += u.CachedTokens
	total.ReasoningTokens += u.ReasoningTokens
}

// runStage runs stage's handlers on the turn's stage context
// (toolPlugin as for pipeline.Handlers.Run), recording the run.
func (k *Kernel) runStage(t *turnState, stage sdk.Stage, toolPlugin string) {
	k.runHandlers(t, stage, k.pipeline.Handlers(stage), toolPlugin, "")
}

// runHandlers runs hs, the handlers of stage, recording the run when the
// turn is traced and there is a handler: how long it took and what the
// handlers changed. callID names the call of before_toolcall and
// after_toolcall.
func (k *Kernel) runHandlers(t *turnState, stage sdk.Stage, hs pipeline.Handlers, toolPlugin, callID string) {
	if hs.Len() == 0 {
		return
	}
	t.handlerRuns++
	if t.trace == nil {
		// HomeAgent's stage handlers take no context: they run on a
		// goroutine bound to the turn's conversation, their own so that
		// what they leave running never sees a later turn's.
		scope.Run(t.conv, func() { hs.Run(t.sc, toolPlugin) })
		return
	}
	sc := t.sc
	before := stageSnapshot{raw: sc.RawMessage, llm: sc.LLMText, final: sc.FinalText, response: sc.Response != nil,
		ctxMsgs: len(sc.ContextMsgs), calls: append([]sdk.ToolCall(nil), sc.ToolCalls...),
		results: append([]sdk.ToolResult(nil), sc.ToolResults...)}
	start := time.Now()
	scope.Run(t.conv, func() { hs.Run(sc, toolPlugin) })
	t.trace.tr.Stages = append(t.trace.tr.Stages, store.TraceStage{Stage: string(stage), ToolPlugin: toolPlugin,
		CallID: callID, Handlers: hs.Len(), DurationMS: ms(time.Since(start)), Changed: before.changed(sc)})
}

// stageSnapshot is what a stage run is compared with afterwards; shallow,
// so a handler that changes a call's arguments in place goes unseen.
type stageSnapshot struct {
	raw, llm, final string
	response        bool
	ctxMsgs         int
	calls           []sdk.ToolCall
	results         []sdk.ToolResult
}

func (b *stageSnapshot) changed(sc *sdk.StageContext) []string {
	var out []string
	add := func(yes bool, field string) {
		if yes {
			out = append(out, field)
		}
	}
	add(sc.RawMessage != b.raw, "raw_message")
	add(len(sc.ContextMsgs) != b.ctxMsgs, "context_msgs")
	add(sc.LLMText != b.llm, "llm_text")
	add(!reflect.DeepEqual(sc.ToolCalls, b.calls), "tool_calls")
	add(!reflect.DeepEqual(sc.ToolResults, b.results), "tool_results")
	add(sc.FinalText != b.final, "final_text")
	add(sc.Response != nil && !b.response, "response")
	return out
}

// watchApproval returns approver recording its answer in p, for the
// trace; nil stays nil.
func (t *turnState) watchApproval(p *preparedCall, approver policy.Approver) policy.Approver {
	if t.trace == nil || approver == nil {
		return approver
	}
	return func(ctx context.Context, req *policy.ApprovalRequest) (policy.Answer, error) {
		start := time.Now()
		answer, err := approver(ctx, req)
		p.approval = &store.TraceApproval{Answer: string(answer), WaitMS: ms(time.Since(start))}
		switch {
		case errors.Is(ctx.Err(), context.DeadlineExceeded):
			p.approval.Answer = "expired"
		case err != nil:
			p.approval.Answer = "error: " + t.trace.mask(err.Error())
		}
		return answer, err
	}
}

// traceToolCalls records the calls of one assistant message, once each
// has its result.
func (t *turnState) traceToolCalls(prepared []*preparedCall) {
	tr := t.trace
	if tr == nil {
		return
	}
	for _, p := range prepared {
		// Masked whole, then cut: a key across the cut is masked too.
		args, cutArgs := cutBytes(tr.mask(p.wire(t).Function.Arguments), traceToolBytes)
		result, cutResult := cutBytes(tr.mask(p.result.Content), traceToolBytes)
		c := store.TraceToolCall{CallID: p.call.ID, Name: p.call.Name, Arguments: args, Result: result,
			Truncated: cutArgs || cutResult, IsError: p.result.IsError, Outcome: p.outcome, Decision: "allow",
			Rule: p.auth.Decision.Rule, DecidedBy: p.auth.DecidedBy, Effect: string(p.auth.Decision.Effect),
			Approval: p.approval, DurationMS: ms(p.result.Duration)}
		if p.tool != nil {
			c.Plugin = p.tool.Plugin
			if c.Effect == "" {
				c.Effect = string(p.tool.Def.EffectiveEffect())
			}
		}
		if p.outcome == "denied" || p.outcome == "invalid" || p.outcome == "not-run" {
			c.Decision = "deny"
			c.Reason = tr.mask(p.auth.Reason)
		}
		if c.Approval != nil {
			c.Approval.AnsweredBy = p.auth.DecidedBy
		}
		tr.tr.ToolCalls = append(tr.tr.ToolCalls, c)
	}
}

// ms is d in milliseconds.
func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// cut returns the first n runes of s.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := 0
	for j := range s {
		if i == n {
			return s[:j]
		}
		i++
	}
	return s
}

// cutBytes returns s cut to at most n bytes, on a rune boundary, and
// whether it was cut.
func cutBytes(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n], true
}
