package kernel

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/hearth-agent/hearth/internal/llm"
	"github.com/hearth-agent/hearth/internal/policy"
	"github.com/hearth-agent/hearth/internal/scope"
	"github.com/hearth-agent/hearth/sdk"
)

// turnState is what one turn accumulates.
type turnState struct {
	in      Input
	s       *session
	emit    func(Event)
	sc      *sdk.StageContext
	user    llm.Message
	steps   []llm.Message // complete assistant/tool exchanges of this turn
	usage   llm.Usage
	cost    turnCost // cost.go
	tainted bool
	conv    scope.Scope // the conversation's memory scope

	marksUpTo int64 // the newest correction mark the request holds, until a model answers (recall_marks.go)

	lastCalls []llm.ToolCall // the model's calls in its latest answer
	// lastArgs are lastCalls' arguments as decoded for the stage context
	// (nil where they did not decode), while handlerRuns is still
	// argsRuns: no stage handler has run since, so none can have changed
	// them (rawArguments).
	lastArgs              []map[string]any
	handlerRuns, argsRuns int

	offered   map[string]bool // the tools sent with the latest request; never changed (toolSet.names)
	toolCalls int             // tool calls the model asked for in this turn

	trace *tracer // nil when turns are not traced

	progressMu sync.Mutex  // one progress event at a time (progressFor)
	images     []sdk.Image // the images the latest step's tools returned

	userSaved bool // the user's message is in the history (and the store)
	saveMu    sync.Mutex
	saveErr   error // the first failure to store a message of this turn
}

func (t *turnState) requester() policy.Requester {
	return policy.Requester{Channel: t.in.Channel, Group: t.in.GroupID, User: t.in.UserID, Plugin: t.in.Plugin}
}

func (t *turnState) actor() sdk.Actor {
	if t.in.Actor == "" {
		return sdk.ActorAgent
	}
	return t.in.Actor
}

// turn answers one input: on_input, context, pre_action, then model and
// tool calls until the model stops calling tools, then before_output, the
// answer, after_output, and memory.
func (k *Kernel) turn(ctx context.Context, s *session, in Input) (out Outcome) {
	k.transcribeVoiceNotes(ctx, &in) // voicenote.go
	k.readImages(ctx, &in)           // ocrinput.go
	t := &turnState{in: in, s: s, emit: maskEvents(k.secrets, k.emitter(in)), trace: k.startTrace(in)}
	// Third-party text as the user's message (a prompt of an MCP server)
	// taints the turn from its start.
	t.tainted = in.Untrusted != ""
	defer func() {
		out.Usage, out.Cost = t.usage, t.cost.total()
		if k.secrets != nil {
			out.Text = k.secrets.String(out.Text)
		}
	}()
	if t.trace != nil {
		// Every event and the outcome name the trace, so a channel can
		// show what happened for an answer.
		id, emit := t.trace.tr.ID, t.emit
		t.emit = func(ev Event) { ev.TraceID = id; emit(ev) }
		defer func() { out.TraceID = id }()
	}
	defer func() { k.endTrace(ctx, t, out) }()
	ctx = context.WithValue(ctx, sessionCtxKey{}, s)
	t.conv = k.conversation(in)
	ctx = scope.With(ctx, t.conv) // what the turn's plugins call acts in its conversation
	t.sc = &sdk.StageContext{
		RawMessage: in.Text, UserID: in.UserID, GroupID: in.GroupID, NoMemory: in.NoMemory,
		Channel: in.Channel, ChatID: in.ChatID, InjectedBy: in.Plugin, Extra: map[string]any{},
	}
	sc := t.sc
	k.runStage(t, sdk.StageOnInput, "")
	t.user = userMessage(in, sc.RawMessage)
	inputImages := k.inputImages(&t.user, in.Media)
	if sc.Response != nil {
		return k.respond(ctx, t, *sc.Response, true)
	}
	if err := k.loadHistory(ctx, s); err != nil {
		return k.fail(ctx, t, err)
	}

	window, model := k.contextWindow(&llm.Request{Model: k.cfg.Model})
	budget := window - answerReserve(window)
	k.fitTools(budget) // before the system prompt, which names the plugins to load
	user := withImages(t.user, inputImages)
	pluginCtx := k.pluginContext(ctx, sc.RawMessage)
	if m, ok := k.recall(ctx, t); ok { // recall.go
		pluginCtx = append(pluginCtx, m)
	}
	// The request: what stays byte-identical from turn to turn first (the
	// system prompt, the summary of compacted history, the history), what
	// is new after it (the message, plugin context, recalled memory).
	build := func() []llm.Message {
		msgs := make([]llm.Message, 0, len(s.history)+len(pluginCtx)+3)
		msgs = append(msgs, llm.Message{Role: "system", Content: k.systemPrompt(s)})
		if s.summary != "" {
			msgs = append(msgs, summaryMessage(s.summary)) // compact.go
		}
		msgs = append(msgs, s.history...)
		msgs = append(msgs, user)
		return append(msgs, pluginCtx...)
	}
	msgs := build()
	// The first request's tools, worked out once: building them asks every
	// dynamic description (a round trip to a child plugin each).
	firstTools := k.toolSpecs(t)
	tools := firstTools.tokens
	if need := messagesTokens(withoutHistory(msgs)) + tools; need > budget {
		// Refused before it is stored: it would fail every later turn.
		room := inputRoom{instructions: messageTokens(msgs[0]) + messagesTokens(pluginCtx), message: messageTokens(t.user),
			tools: tools, history: messagesTokens(s.history), deferred: k.deferredCount()}
		return k.fail(ctx, t, room.tooLong(model, window, budget))
	}
	head := msgs[:len(msgs)-len(s.history)-1-len(pluginCtx)]
	if k.maybeCompact(ctx, t, head, firstTools.specs, messagesTokens(msgs)+tools, budget) { // compact.go
		msgs = build()
	}
	msgs = fitRequest(msgs, tools, budget)
	if k.pipeline.Has(sdk.StagePreAction) {
		sc.ContextMsgs = toMaps(msgs)
		k.runStage(t, sdk.StagePreAction, "")
		if sc.Response != nil {
			return k.respond(ctx, t, *sc.Response, true)
		}
		msgs = reattachImages(fromMaps(sc.ContextMsgs, k.log), t.user.Content, inputImages)
	}

	if err := k.saveUser(ctx, t); err != nil {
		return k.fail(ctx, t, err)
	}

	onDelta := func(d llm.Delta) {
		if d.Retry != nil {
			t.emit(Event{Kind: EventRetry, Text: d.Retry.String(), Retry: d.Retry})
			return
		}
		if d.Reasoning != "" {
			t.emit(Event{Kind: EventReasoning, Text: d.Reasoning})
		}
		if d.Content != "" {
			t.emit(Event{Kind: EventText, Text: d.Content})
		}
	}
	retried := false
	for step := 1; ; step++ {
		last := step >= k.cfg.MaxSteps || t.toolCalls >= k.cfg.MaxToolCalls
		req := &llm.Request{Model: k.cfg.Model}
		var set toolSet
		switch {
		case last:
		case step == 1:
			set = firstTools
		default:
			set = k.toolSpecs(t)
		}
		req.Tools = set.specs
		t.offered = set.names
		// The turn's own exchanges grow; older history makes room.
		msgs = fitRequest(msgs, messagesTokens(t.steps)+set.tokens, budget)
		req.Messages = append(msgs[:len(msgs):len(msgs)], t.steps...)
		resp, err := k.chat(ctx, t, req, onDelta)
		if err != nil && !retried && isContextError(err) && ctx.Err() == nil {
			// The estimate was short for this model: once, without history.
			retried = true
			k.log.Warn("context window exceeded; retrying without history", "session", s.key, "model", model, "err", err)
			msgs = withoutHistory(msgs)
			req.Messages = append(msgs[:len(msgs):len(msgs)], t.steps...)
			resp, err = k.chat(ctx, t, req, onDelta)
		}
		if err != nil {
			if isContextError(err) {
				err = contextError(model, window, err)
			}
			return k.fail(ctx, t, err)
		}
		k.marksGiven(ctx, t) // recall_marks.go: the model has them now
		addUsage(&t.usage, resp.Usage)
		sc.LLMText, sc.ReasoningContent = resp.Content, resp.Reasoning
		sc.TokenUsage = resp.Usage.Map()
		k.callNames(resp.ToolCalls)
		t.modelCalls(resp.ToolCalls, k.tools)
		k.runStage(t, sdk.StagePostAction, "")
		if sc.Response != nil {
			return k.respond(ctx, t, *sc.Response, true)
		}
		if len(sc.ToolCalls) == 0 {
			return k.respond(ctx, t, sc.LLMText, false)
		}
		text, reasoning := sc.LLMText, sc.ReasoningContent
		assistant, results := k.runToolCalls(ctx, t, sc.ToolCalls, text, reasoning)
		if reasoning == resp.Reasoning {
			// The provider's own record of that reasoning (Anthropic's
			// signed thinking), which its next call of the turn needs.
			assistant.ThinkingBlocks = resp.ThinkingBlocks
		}
		if ctx.Err() != nil {
			return k.fail(ctx, t, context.Cause(ctx))
		}
		t.steps = append(t.steps, assistant)
		t.steps = append(t.steps, results...)
		if m, ok := k.imageMessage(t); ok {
			t.steps = append(t.steps, m)
		}
		if err := t.saveError(); err != nil {
			return k.fail(ctx, t, err)
		}
		if sc.Response != nil {
			return k.respond(ctx, t, *sc.Response, true)
		}
		if last {
			// The model called tools although none were offered: the calls
			// were answered as unknown, and the turn ends here.
			return k.stopAtLimit(ctx, t, text)
		}
	}
}

// stopAtLimit ends a turn whose model kept calling tools past the limits,
// telling the user so.
func (k *Kernel) stopAtLimit(ctx context.Context, t *turnState, text string) Outcome {
	why := fmt.Sprintf("the limit of %d model calls per turn (max_steps)", k.cfg.MaxSteps)
	if t.toolCalls >= k.cfg.MaxToolCalls {
		why = fmt.Sprintf("the limit of %d tool calls per turn (max_tool_calls)", k.cfg.MaxToolCalls)
	}
	k.log.Warn("turn stopped at a limit", "session", t.s.key, "limit", why, "tool_calls", t.toolCalls)
	note := "[Hearth stopped this turn: it reached " + why + ". / 本轮已达到上限，Hearth 已停止。]"
	if strings.TrimSpace(text) != "" {
		note = text + "\n\n" + note
	}
	return k.respond(ctx, t, note, false)
}

// systemPrompt is the configured prompt, the plugins' instructions, and
// what the session should know about tools it can load.
func (k *Kernel) systemPrompt(s *session) string {
	p := k.cfg.SystemPrompt + k.instructions()
	if more := k.onDemandPlugins(s); len(more) > 0 {
		p += "\n\nMore tools are available from these plugins; load them with " + useToolName + " when needed: " +
			strings.Join(more, ", ") + "."
	}
	return p
}

// respond finishes a turn with text. shortCircuit skips before_output, as a
// Response set by a stage does. An answer that cannot be stored is still
// given, and the outcome carries the error.
func (k *Kernel) respond(ctx context.Context, t *turnState, text string, shortCircuit bool) Outcome {
	sc := t.sc
	sc.FinalText = text
	if !shortCircuit {
		k.runStage(t, sdk.StageBeforeOutput, "")
		if sc.Response != nil {
			sc.FinalText = *sc.Response
		}
	}
	t.emit(Event{Kind: EventFinal, Text: sc.FinalText, Usage: t.usage, Cost: t.cost.total()})
	k.runStage(t, sdk.StageAfterOutput, "")
	final := llm.Message{Role: "assistant", Content: sc.FinalText, Reasoning: sc.ReasoningContent}
	msgs := []llm.Message{final}
	if !t.userSaved {
		msgs = []llm.Message{t.user, final} // on_input answered before the message was stored
	}
	if err := k.save(ctx, t, msgs...); err != nil {
		t.emit(Event{Kind: EventError, Err: err, Text: err.Error()})
		return Outcome{Text: sc.FinalText, Err: err}
	}
	return Outcome{Text: sc.FinalText}
}

// fail ends a turn that could not finish. What the user said and the
// complete tool exchanges are already stored; the turn is closed with a
// note saying it did not finish, so the next turn's model knows.
func (k *Kernel) fail(ctx context.Context, t *turnState, err error) Outcome {
	interrupted := ctx.Err() != nil
	if interrupted {
		t.emit(Event{Kind: EventInterrupted, Err: context.Cause(ctx)})
	} else {
		t.emit(Event{Kind: EventError, Err: err, Text: err.Error()})
	}
	if t.userSaved {
		note := llm.Message{Role: "assistant", Content: interruptedNote}
		switch {
		case errors.Is(err, ErrContextTooLong):
			note.Content = tooLongNote // the message is not sent again
		case !interrupted:
			note.Content = failedNote
		}
		if rerr := k.save(context.WithoutCancel(ctx), t, note); rerr != nil {
			k.log.Error("saving the conversation failed", "session", t.s.key, "err", rerr)
		}
		if note.Content == tooLongNote {
			t.s.history, _ = closeTurns(t.s.history)
		}
	}
	if interrupted {
		return Outcome{Interrupted: true, Err: context.Cause(ctx)}
	}
	return Outcome{Err: err}
}

// trimHistory keeps at most limit messages, starting at a user message.
func trimHistory(h []llm.Message, limit int) []llm.Message {
	if len(h) <= limit {
		return h
	}
	h = h[len(h)-limit:]
	for len(h) > 0 && h[0].Role != "user" {
		h = h[1:]
	}
	return append([]llm.Message(nil), h...)
}

func addUsage(total *llm.Usage, u llm.Usage) {
	total.PromptTokens += u.PromptTokens
	total.CompletionTokens += u.CompletionTokens
	total.TotalTokens += u.TotalTokens
	total.CachedTokens += u.CachedTokens
	total.CacheWriteTokens += u.CacheWriteTokens
}

// toMaps converts messages to the map form StageContext.ContextMsgs uses.
func toMaps(msgs []llm.Message) []map[string]any {
	out := make([]map[string]any, len(msgs))
	for i, m := range msgs {
		mm := map[string]any{"role": m.Role, "content": m.Content}
		if len(m.ToolCalls) > 0 {
			calls := make([]any, len(m.ToolCalls))
			for j, c := range m.ToolCalls {
				calls[j] = map[string]any{"id": c.ID, "type": "function",
					"function": map[string]any{"name": c.Function.Name, "arguments": c.Function.Arguments}}
			}
			mm["tool_calls"] = calls
		}
		if m.ToolCallID != "" {
			mm["tool_call_id"] = m.ToolCallID
		}
		if m.Name != "" {
			mm["name"] = m.Name
		}
		out[i] = mm
	}
	return out
}

// fromMaps converts ContextMsgs back. A message a plugin built wrongly (no
// role, content not text) is dropped and logged rather than sent.
func fromMaps(maps []map[string]any, log interface{ Warn(string, ...any) }) []llm.Message {
	out := make([]llm.Message, 0, len(maps))
	for i, mm := range maps {
		m, err := fromMap(mm)
		if err != nil {
			log.Warn("dropping a malformed context message", "index", i, "err", err)
			continue
		}
		out = append(out, m)
	}
	return out
}

func fromMap(mm map[string]any) (llm.Message, error) {
	var m llm.Message
	role, _ := mm["role"].(string)
	switch role {
	case "system", "user", "assistant", "tool":
	default:
		return m, fmt.Errorf("unknown role %v", mm["role"])
	}
	m.Role = role
	switch c := mm["content"].(type) {
	case string:
		m.Content = c
	case nil:
	default:
		return m, errors.New("content is not a string")
	}
	m.ToolCallID, _ = mm["tool_call_id"].(string)
	m.Name, _ = mm["name"].(string)
	if calls, ok := mm["tool_calls"].([]any); ok {
		for _, c := range calls {
			cm, _ := c.(map[string]any)
			fn, _ := cm["function"].(map[string]any)
			id, _ := cm["id"].(string)
			name, _ := fn["name"].(string)
			args, _ := fn["arguments"].(string)
			m.ToolCalls = append(m.ToolCalls, llm.ToolCall{ID: id, Type: "function",
				Function: llm.FunctionCall{Name: name, Arguments: args}})
		}
	}
	return m, nil
}
