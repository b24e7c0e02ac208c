package kernel

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/hearth-agent/hearth/internal/llm"
	"github.com/hearth-agent/hearth/internal/policy"
	"github.com/hearth-agent/hearth/internal/store"
	"github.com/hearth-agent/hearth/internal/tools"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/pipeline"
	"github.com/hearth-agent/hearth/sdk/toolcall"
)

// ErrDenied is the cause of a call refused by a stage handler or the gate.
var ErrDenied = errors.New("tool call denied")

// errNotRun answers calls left over when a stage ended the turn.
var errNotRun = errors.New("tool call not run")

// toStageCalls converts the model's calls for the stage context, each
// named by its tool's tools.StageName (a name no other plugin can change;
// runToolCalls maps it back). Arguments that are not a JSON object leave
// Arguments nil; dispatch reports them.
func toStageCalls(calls []llm.ToolCall, reg *tools.Registry) []sdk.ToolCall {
	if len(calls) == 0 {
		return nil
	}
	out := make([]sdk.ToolCall, len(calls))
	for i, c := range calls {
		sc := sdk.ToolCall{ID: c.ID, Name: c.Function.Name}
		if t, ok := reg.Lookup(c.Function.Name); ok {
			sc.Name, sc.Plugin = tools.StageName(t), t.Plugin
		}
		if args, _, err := toolcall.DecodeArguments(json.RawMessage(c.Function.Arguments)); err == nil {
			sc.Arguments = args
		}
		out[i] = sc
	}
	return out
}

// modelCalls puts the model's calls of its latest answer in the stage
// context (toStageCalls) and keeps them, and the arguments decoded for it,
// for rawArguments.
func (t *turnState) modelCalls(calls []llm.ToolCall, reg *tools.Registry) {
	t.sc.ToolCalls = toStageCalls(calls, reg)
	t.lastCalls = calls
	t.lastArgs = make([]map[string]any, len(calls))
	for i, c := range t.sc.ToolCalls {
		t.lastArgs[i] = c.Arguments
	}
	t.argsRuns = t.handlerRuns
}

// pristine returns the arguments decoded from the model's call i for the
// stage context when no stage handler has run since (so none can have
// changed them, in place or not); nil otherwise.
func (t *turnState) pristine(i int) map[string]any {
	if t.handlerRuns != t.argsRuns || i < 0 || i >= len(t.lastArgs) {
		return nil
	}
	return t.lastArgs[i]
}

// rawArguments returns the JSON the tool is sent for call: the model's own
// text of the call (orig, nil when there is none) when it decodes to
// exactly the arguments call carries, else those arguments encoded. So
// the bytes a tool receives always say what every check of the call saw
// (stage handlers, decision hooks, the policy engine): a call is never
// paired with another call's text, whatever the ids say. pristine, when
// not nil, is the map decoded from orig's text that no handler can have
// changed since: call carrying that very map is the text's, without
// decoding it again.
func rawArguments(call sdk.ToolCall, orig *llm.ToolCall, pristine map[string]any) string {
	if orig != nil && pristine != nil && call.Arguments != nil &&
		reflect.ValueOf(call.Arguments).UnsafePointer() == reflect.ValueOf(pristine).UnsafePointer() {
		return orig.Function.Arguments
	}
	if orig != nil {
		text := orig.Function.Arguments
		args, _, err := toolcall.DecodeArguments(json.RawMessage(text))
		if err != nil && call.Arguments == nil {
			return text // still the model's malformed text, refused as such
		}
		if err == nil && reflect.DeepEqual(args, call.Arguments) {
			return text
		}
	}
	if call.Arguments == nil {
		return "{}"
	}
	b, err := json.Marshal(call.Arguments)
	if err != nil {
		return "{}"
	}
	return string(b)
}

// modelCall returns the model's call that calls[i] comes from: the call
// at the same position of the model's answer, when it has the same id and
// name (post_action handlers may have added, removed or reordered calls);
// else nil. It pairs by position, never by looking an id up.
func modelCall(calls []sdk.ToolCall, i int, model []llm.ToolCall) *llm.ToolCall {
	if i >= len(model) || model[i].ID != calls[i].ID || model[i].Function.Name != calls[i].Name {
		return nil
	}
	return &model[i]
}

// uniqueIDs gives each call without an id, or with the id of a call
// before it, a fresh one (call_<n>, used by no other call), so that each
// tool message answers exactly one call. The model's answers have unique
// ids already (llm); post_action handlers may add calls that do not.
func uniqueIDs(calls []sdk.ToolCall) {
	used := make(map[string]bool, len(calls))
	for _, c := range calls {
		used[c.ID] = true
	}
	seen := make(map[string]bool, len(calls))
	n := 0
	for i := range calls {
		c := &calls[i]
		if c.ID == "" || seen[c.ID] {
			for {
				c.ID = "call_" + strconv.Itoa(n)
				n++
				if !used[c.ID] && !seen[c.ID] {
					break
				}
			}
		}
		seen[c.ID] = true
	}
}

type preparedCall struct {
	call sdk.ToolCall
	tool *tools.Tool
	args map[string]any
	raw  json.RawMessage // what the tool is sent, once prepared
	orig *llm.ToolCall   // the model's call this one comes from, if any
	// pristine is the index of orig in the model's answer (turnState.pristine),
	// -1 when there is no orig.
	pristine int
	tc       *sdk.ToolContext
	result   toolcall.Result

	progress *progressReporter // the call's progress reports, once it may run
	ready    bool              // result is final; do not invoke
	took     time.Duration     // how long the handler ran, once invoked

	approval *store.TraceApproval // the approval asked, for the trace

	// memMeta is the built-in memory plugin's result metadata as it came,
	// unmasked, for the correction marks only (recall_marks.go).
	memMeta map[string]string

	// for the audit log
	auth    policy.Result
	outcome string // denied, invalid, not-run; ok or error once run
}

// runToolCalls runs the calls of one assistant message and returns that
// message (with the calls as finally run: before_toolcall may rewrite
// arguments) and the tool messages answering them, one per call, in order.
// before_toolcall and after_toolcall run one call at a time, in order; the
// handlers themselves run concurrently, except that serial tools of one
// plugin run one after another.
//
// It writes as it goes: the assistant message is stored before any call
// runs, each call is audited as started before it runs and again when it
// ends, and each result is stored as soon as it is final, so a crash
// loses at most the calls still running.
func (k *Kernel) runToolCalls(ctx context.Context, t *turnState, calls []sdk.ToolCall, text, reasoning string) (llm.Message, []llm.Message) {
	sc := t.sc
	calls = slices.Clone(calls)
	for i := range calls {
		// Stage handlers were shown stage names; the model, the history
		// and the events use the name each tool is offered under.
		if tool, ok := k.tools.LookupStage(calls[i].Name, calls[i].Plugin); ok {
			calls[i].Name, calls[i].Plugin = k.tools.CallName(tool), tool.Plugin
		}
	}
	uniqueIDs(calls)
	prepared := make([]*preparedCall, len(calls))
	ended := false
	for i, call := range calls {
		p := &preparedCall{call: call, orig: modelCall(calls, i, t.lastCalls), pristine: -1}
		if p.orig != nil {
			p.pristine = i
		}
		prepared[i] = p
		t.toolCalls++
		switch {
		case ended:
			p.finish(toolcall.ErrorResult(errNotRun, "not run: the turn was ended before this call"))
			p.outcome = "not-run"
			continue
		case t.toolCalls > k.cfg.MaxToolCalls:
			p.finish(toolcall.ErrorResult(errNotRun, fmt.Sprintf(
				"not run: this turn reached its limit of %d tool calls", k.cfg.MaxToolCalls)))
			p.outcome = "not-run"
			continue
		}
		k.prepare(ctx, t, p)
		if sc.Response != nil {
			ended = true
		}
	}
	wire := make([]llm.ToolCall, len(prepared))
	for i, p := range prepared {
		wire[i] = p.wire(t)
	}
	assistant := llm.Message{Role: "assistant", Content: text, Reasoning: reasoning, ToolCalls: wire}
	// after_toolcall may still change a result; then results are stored
	// once it has run.
	later := k.pipeline.Has(sdk.StageAfterToolcall) && sc.Response == nil
	if err := k.storeMessages(ctx, t, assistant); err != nil {
		// Nothing runs that could not be recorded.
		for _, p := range prepared {
			if !p.ready {
				p.finish(toolcall.ErrorResult(errNotRun, "not run: the conversation could not be saved"))
				p.outcome = "not-run"
			}
		}
	}
	done := func(p *preparedCall) {
		p.progress.close()    // its latest report goes before its end event
		k.maskMemoryResult(p) // recall_marks.go
		if !later {
			k.storeMessages(ctx, t, p.message())
		}
		k.settle(ctx, t, p)
	}
	for _, p := range prepared {
		if !p.ready {
			if err := k.audit(ctx, t, p, true); err != nil {
				// A call that could not be recorded does not run.
				t.setSaveError(fmt.Errorf("%w: %w", ErrNotSaved, err))
				p.finish(toolcall.ErrorResult(errNotRun, "not run: the audit log could not be written"))
				p.outcome = "not-run"
			}
		}
		if p.ready {
			done(p)
			continue
		}
		t.emit(Event{Kind: EventToolStart, Tool: p.call.Name, CallID: p.call.ID, Args: string(p.raw)})
	}
	k.invokeAll(ctx, prepared, done)

	msgs := make([]llm.Message, len(prepared))
	for i, p := range prepared {
		if p.tool != nil && p.tool.Def.Untrusted && (p.outcome == "ok" || p.outcome == "error") {
			// Third-party text reaches the model from here on.
			t.tainted = true
		}
		if later {
			k.afterToolcall(t, p)
			k.storeMessages(ctx, t, p.message())
		}
		k.log.LogAttrs(ctx, slog.LevelDebug, "tool call", slog.String("tool", p.qualified()),
			slog.String("call", p.call.ID), slog.String("outcome", p.outcome),
			slog.Duration("duration", p.took.Round(time.Millisecond)))
		t.emit(Event{Kind: EventToolEnd, Tool: p.call.Name, CallID: p.call.ID, Text: p.result.Content, IsError: p.result.IsError,
			Metadata: p.result.Metadata})
		msgs[i] = p.message()
		t.images = append(t.images, p.result.Images...)
		k.noteMemoryResult(ctx, t, p, true) // recall_marks.go
	}
	t.traceToolCalls(prepared)
	k.remember(t, append([]llm.Message{assistant}, msgs...)...)
	return assistant, msgs
}

// settle records the outcome of a call that has its result.
func (k *Kernel) settle(ctx context.Context, t *turnState, p *preparedCall) {
	if p.outcome == "" {
		p.outcome = "ok"
		if p.result.IsError {
			p.outcome = "error"
		}
	}
	k.audit(ctx, t, p, false) // the call has run; a failure is logged
}

// wire returns the call as the assistant message carries it: the
// arguments the tool is (or would have been) sent.
func (p *preparedCall) wire(t *turnState) llm.ToolCall {
	raw := string(p.raw)
	if p.raw == nil {
		raw = rawArguments(p.call, p.orig, t.pristine(p.pristine))
	}
	return llm.ToolCall{ID: p.call.ID, Type: "function", Function: llm.FunctionCall{Name: p.call.Name, Arguments: raw}}
}

// message is the tool message answering the call.
func (p *preparedCall) message() llm.Message {
	return llm.Message{Role: "tool", ToolCallID: p.call.ID, Content: p.result.Content}
}

func (p *preparedCall) finish(r toolcall.Result) {
	p.result, p.ready = r, true
}

// notOfferedRules are the policy rules under which a tool is left out of
// the tool list (policy.Engine.Offer).
var notOfferedRules = map[string]bool{policy.RuleRole: true, policy.RuleUserOnly: true, policy.RuleOff: true}

// notOffered answers a call of a tool that was not in this turn's list.
func (p *preparedCall) notOffered() {
	p.finish(toolcall.ErrorResult(tools.ErrUnknownTool, fmt.Sprintf("unknown tool %q", p.call.Name)))
	p.outcome = "denied"
	if p.auth.Decision.Rule == "" {
		p.auth.Decision.Rule = "not-offered"
	}
}

// prepare resolves, runs before_toolcall for, validates and gates one call.
func (k *Kernel) prepare(ctx context.Context, t *turnState, p *preparedCall) {
	sc := t.sc
	tool, ok := k.tools.Lookup(p.call.Name)
	if ok {
		// A call by the qualified name is the call of the name offered;
		// results and the history carry the name the model is offered,
		// stage handlers the tool's stage name (tools.StageName).
		p.call.Name = k.tools.CallName(tool)
	}
	if !ok || !t.offered[p.call.Name] || !k.inScope(t, tool) {
		// A tool not in the list sent with this request (none is, when
		// no tools were sent) is unknown to the model: it never runs.
		p.notOffered()
		return
	}
	p.tool = tool
	hs := k.pipeline.Handlers(sdk.StageBeforeToolcall)
	if hs.Len() > 0 {
		shown := p.call
		shown.Name, shown.Plugin = tools.StageName(tool), tool.Plugin
		sc.ToolCalls = []sdk.ToolCall{shown}
		sc.ToolResults = nil
		k.runHandlers(t, sdk.StageBeforeToolcall, hs, tool.Plugin, p.call.ID)
		if sc.Response != nil {
			// The turn ends here (the seed's short circuit to
			// after_output): this call does not run either, whether or
			// not the handlers after the one that ended it would have
			// let it.
			p.finish(toolcall.ErrorResult(errNotRun, "not run: a stage handler ended the turn before this call"))
			p.outcome, p.auth.Decision.Rule, p.auth.DecidedBy = "not-run", "before_toolcall", "stage"
			return
		}
		if len(sc.ToolCalls) != 1 || sc.ToolCalls[0].ID != p.call.ID {
			p.finish(toolcall.ErrorResult(ErrDenied, "denied: a stage handler removed this call"))
			p.outcome, p.auth.Decision.Rule, p.auth.DecidedBy = "denied", "before_toolcall", "stage"
			return
		}
		got := sc.ToolCalls[0]
		if same, ok := k.tools.LookupStage(got.Name, got.Plugin); (got.Name != shown.Name || got.Plugin != shown.Plugin) && (!ok || same != tool) {
			// The target cannot be swapped; the handlers after the swap
			// judged another tool than the one that would run.
			p.finish(toolcall.ErrorResult(ErrDenied, "denied: a stage handler changed which tool this call runs"))
			p.outcome, p.auth.Decision.Rule, p.auth.DecidedBy = "denied", "before_toolcall", "stage"
			return
		}
		p.call = sc.ToolCalls[0]
		p.call.Name, p.call.Plugin = k.tools.CallName(tool), tool.Plugin
	}
	if p.call.Deny != "" {
		p.finish(toolcall.ErrorResult(ErrDenied, "denied: "+p.call.Deny))
		p.outcome, p.auth.Decision.Rule, p.auth.DecidedBy = "denied", "before_toolcall", "stage"
		return
	}
	raw := json.RawMessage(rawArguments(p.call, p.orig, t.pristine(p.pristine)))
	args := p.call.Arguments
	if args == nil {
		// Either no arguments, or text that is not a JSON object: decoding
		// again gives {} or the error the model should see.
		var err error
		if args, raw, err = toolcall.DecodeArguments(raw); err != nil {
			p.finish(toolcall.ErrorResult(err, err.Error()))
			p.outcome = "invalid"
			return
		}
	}
	if err := tool.Validate(args); err != nil {
		p.finish(toolcall.ErrorResult(err, err.Error()))
		p.outcome = "invalid"
		return
	}
	p.args, p.raw = args, raw
	p.tc = &sdk.ToolContext{
		PluginID: tool.Plugin, Tool: tool.Local, CallID: p.call.ID, Actor: t.actor(),
		Turn:    &sdk.TurnInfo{SessionID: t.s.key.String(), Tainted: t.tainted},
		Channel: t.in.Channel, ChatID: t.in.ChatID, UserID: t.in.UserID, GroupID: t.in.GroupID,
		InjectedBy: t.in.Plugin, Effect: tool.Def.EffectiveEffect(), KV: k.kv(tool.Plugin),
	}
	p.tc.Progress = k.progressFor(t, p)
	if k.cfg.Policy == nil {
		p.auth = policy.Result{Allowed: true, DecidedBy: "none"}
	} else if !k.authorize(ctx, t, p, args, raw) {
		return
	}
	// Authorizing may have waited for a guard that was starting or
	// restarting (policy.Engine.SuspendHooks), or for the user. A
	// before_toolcall handler registered meanwhile has not seen this call,
	// and the guard it belongs to may count on it: the call is refused.
	if late := hs.Later(tool.Plugin); len(late) > 0 {
		reason := fmt.Sprintf("plugin %q checks calls before they run and started after this call was checked; try again", late[0])
		p.finish(toolcall.ErrorResult(fmt.Errorf("%w: %s", ErrDenied, reason), "denied: "+reason))
		p.outcome, p.auth.Allowed, p.auth.Decision.Rule, p.auth.DecidedBy = "denied", false, "before_toolcall", "stage:"+late[0]
	}
}

// authorize asks the policy engine about a prepared call and reports
// whether it may run; a refusal is finished.
func (k *Kernel) authorize(ctx context.Context, t *turnState, p *preparedCall, args map[string]any, raw json.RawMessage) bool {
	tool := p.tool
	c := &policy.Call{Tool: tool, Args: args, Raw: raw, TC: p.tc, Requester: t.requester(), Approver: t.watchApproval(p, maskApprover(k.secrets, t.in.Approver))}
	if p.call.Ask != "" {
		c.MinVerdict, c.MinReason, c.MinBy = policy.Ask, p.call.Ask, "stage"
	}
	p.auth = k.cfg.Policy.Authorize(ctx, c)
	if !p.auth.Allowed && notOfferedRules[p.auth.Decision.Rule] && c.MinVerdict == policy.Allow &&
		p.auth.Decision.Effect == tool.Def.EffectiveEffect() {
		// Refused for a reason that also kept it out of the tool list (and
		// not for an effect resolved from these arguments): to this
		// requester the tool does not exist.
		p.notOffered()
		return false
	}
	if !p.auth.Allowed {
		p.finish(toolcall.ErrorResult(fmt.Errorf("%w: %s", ErrDenied, p.auth.Reason), "denied: "+p.auth.Reason))
		p.outcome = "denied"
		return false
	}
	p.tc.Effect, p.tc.Grant = p.auth.Decision.Effect, p.auth.Grant
	return true
}

// audit records one call in the audit log: with started, that it is about
// to run (its outcome follows in a second row when it ends).
func (k *Kernel) audit(ctx context.Context, t *turnState, p *preparedCall, started bool) error {
	if k.cfg.Policy == nil {
		return nil
	}
	decision, outcome := "allow", p.outcome
	if started {
		outcome = "started"
	}
	if p.outcome == "denied" || p.outcome == "invalid" || p.outcome == "not-run" {
		decision = "deny"
	}
	effect := p.auth.Decision.Effect
	if effect == "" && p.tool != nil {
		effect = p.tool.Def.EffectiveEffect()
	}
	role := p.auth.Role
	if role == "" {
		role = k.cfg.Policy.RoleOf(t.requester())
	}
	name := p.qualified() // the audit log keys on the qualified name
	hash := p.auth.ArgsHash
	if hash == "" {
		hash = policy.ArgsHash(name, json.RawMessage(p.wire(t).Function.Arguments))
	}
	rule := p.auth.Decision.Rule
	if rule == "" {
		rule = outcome
	}
	by := p.auth.DecidedBy
	if by == "" {
		by = "host"
	}
	return k.cfg.Policy.Audit(ctx, store.AuditEntry{
		Session: t.s.key.String(), Channel: t.in.Channel, User: t.in.UserID, Role: string(role),
		Actor: string(t.actor()), Tool: name, Effect: string(effect), ArgsHash: hash,
		Decision: decision, Rule: rule, DecidedBy: by, Duration: p.result.Duration, Outcome: outcome,
	})
}

// invokeAll runs the ready-to-run calls: concurrently, except serial tools
// of one plugin, which run in order in one lane. done is called for each
// call as soon as it returns, from the goroutine that ran it.
func (k *Kernel) invokeAll(ctx context.Context, prepared []*preparedCall, done func(*preparedCall)) {
	var lanes [][]*preparedCall
	serial := map[string]int{}
	for _, p := range prepared {
		if p.ready {
			continue
		}
		if p.tool.Serial {
			if i, ok := serial[p.tool.Plugin]; ok {
				lanes[i] = append(lanes[i], p)
				continue
			}
			serial[p.tool.Plugin] = len(lanes)
		}
		lanes = append(lanes, []*preparedCall{p})
	}
	run := func(lane []*preparedCall) {
		for _, p := range lane {
			began := time.Now()
			p.result = p.tool.Invoke(ctx, p.tc, p.args, p.raw)
			p.took = time.Since(began)
			done(p)
		}
	}
	if len(lanes) == 1 {
		run(lanes[0])
		return
	}
	var wg sync.WaitGroup
	for _, lane := range lanes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			run(lane)
		}()
	}
	wg.Wait()
}

// afterToolcall runs after_toolcall for one call; a handler may rewrite
// the result.
func (k *Kernel) afterToolcall(t *turnState, p *preparedCall) {
	sc := t.sc
	plugin := ""
	if p.tool != nil {
		plugin = p.tool.Plugin
	}
	success := !p.result.IsError
	before := pipeline.CloneValue(p.result.Value)
	shown := p.call
	if p.tool != nil {
		shown.Name = tools.StageName(p.tool)
	}
	sc.ToolCalls = []sdk.ToolCall{shown}
	noMemory, memText := memoryOf(p.tool, p.result)
	sc.ToolResults = []sdk.ToolResult{{CallID: p.call.ID, Name: shown.Name, Plugin: plugin,
		Success: success, Result: p.result.Value, NoMemory: noMemory, MemoryText: memText}}
	k.runHandlers(t, sdk.StageAfterToolcall, k.pipeline.Handlers(sdk.StageAfterToolcall), plugin, p.call.ID)
	if len(sc.ToolResults) != 1 {
		return
	}
	got := sc.ToolResults[0]
	if got.Success == success && sameResult(got.Result, before) {
		return
	}
	r := toolcall.Encode(got.Result)
	r.IsError = r.IsError || !got.Success
	p.result = r
}

// qualified is the call's tool's qualified name, the canonical one logs,
// the audit log and policy rules key on; the name called when no tool was
// found.
func (p *preparedCall) qualified() string {
	if p.tool != nil {
		return p.tool.Name
	}
	return p.call.Name
}
