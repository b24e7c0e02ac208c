package kernel

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/hearth-agent/hearth/internal/llm"
)

// Context-window compaction (docs/context.md). When a request would take
// more than compactAtPercent of the request budget (the window less the
// answer's reserve), the oldest turns of the session's history are
// summarised by the model in one call, and the request carries the summary
// (a system message right after the system prompt) and the recent turns
// verbatim. A big block is compacted at once, leaving the request at about
// compactKeepPercent of the budget, so the request prefix then stays
// byte-identical for many turns and providers' prefix caches keep hitting.
//
// The originals stay in the store: compaction changes what is sent, never
// what is kept. A summary call that fails leaves the oldest turns out with
// a notice in their place, as fitRequest would have.
const (
	compactAtPercent   = 80 // of the budget: a request above it compacts
	compactKeepPercent = 30 // of the budget: the recent turns kept verbatim take at most this
	// compactSummaryPercent of the budget is the length asked of a
	// summary, in words, up to compactSummaryWords.
	compactSummaryPercent = 8
	compactSummaryWords   = 2000
	// compactItemBytes cuts one message's text in the summary call's
	// transcript when the whole does not fit (a long tool result, mostly).
	compactItemBytes = 2000
)

// summaryHeader starts the summary message: the model, and anyone reading
// a request, knows it is a summary and not what was said.
const summaryHeader = "[Summary of the earlier part of this conversation, written by the model when it grew too long for the context window. The original messages are kept in the session's history. / 以下是本次对话较早部分的摘要（对话超出上下文窗口时由模型生成，原始消息仍保存在会话记录中）。]\n\n"

// summaryPrompt asks for the summary; it is written in both languages so a
// Chinese conversation is summarised in Chinese.
const summaryPrompt = "You summarise a conversation between a user and an AI assistant so the assistant can continue it without the original messages. " +
	"Write the summary in the language the user writes in. Keep: what the user asked for and still wants, facts and decisions they gave, " +
	"names, numbers, file paths, identifiers, the results of tool calls that still matter, what was done and what is still open. " +
	"Leave out greetings and chatter. Write plain text, no preamble, at most about %d words.\n" +
	"你负责总结用户与 AI 助手之间的对话，使助手无需原始消息也能继续对话。用用户所用的语言写摘要；保留用户的要求、给出的事实与决定、" +
	"名称、数字、文件路径、标识符、仍然重要的工具调用结果、已完成和未完成的事项；省略寒暄。直接输出纯文本摘要，不要开场白，长度不超过约 %d 字。"

// summaryAsk follows summaryPrompt when the summary call repeats the
// conversation itself; summaryAskPrev is added when it holds a summary.
const (
	summaryAsk = "Summarise the conversation above now, as the text of your answer; do not call any tool. " +
		"现在请把上面的对话总结为你的回答文本，不要调用任何工具。"
	summaryAskPrev = " Fold the earlier summary at its start into yours. 请把开头已有的摘要并入你的总结。"
)

// compactFailedNote replaces turns left out because their summary failed.
const compactFailedNote = "[%d earlier messages of this conversation were left out of the context: summarising them failed. They are kept in the session's history. / 较早的 %d 条消息未能总结，已从上下文中省去（仍保存在会话记录中）。]"

// summaryMessage is the message that carries a session's summary.
func summaryMessage(summary string) llm.Message {
	return llm.Message{Role: "system", Content: summaryHeader + summary}
}

// CompactPhase says which side of a compaction a compact hook is told
// about.
const (
	CompactPre  = "pre"  // before the summary call
	CompactPost = "post" // after it (or after its fallback)
)

// compactHooks are the handlers plugins registered with
// RegisterCompactHook, by plugin.
type compactHooks struct {
	mu sync.Mutex
	m  map[string][]func(phase, channel, chatID string, messages, tokens int)
}

// RegisterCompactHook registers h to be told, synchronously, before
// (phase CompactPre: the number of messages and estimated tokens about to
// be compacted) and after (CompactPost: the messages now sent in their
// place, and the request's estimated tokens) each compaction of a
// session's history. xbot plugins' PreCompact and PostCompact hooks are
// registered here. A hook that panics is logged and skipped.
func (k *Kernel) RegisterCompactHook(plugin string, h func(phase, channel, chatID string, messages, tokens int)) {
	k.compact.mu.Lock()
	defer k.compact.mu.Unlock()
	if k.compact.m == nil {
		k.compact.m = map[string][]func(string, string, string, int, int){}
	}
	k.compact.m[plugin] = append(k.compact.m[plugin], h)
}

// removeCompactHooks drops plugin's compact hooks (Withdraw, Suspend).
func (k *Kernel) removeCompactHooks(plugin string) {
	k.compact.mu.Lock()
	delete(k.compact.m, plugin)
	k.compact.mu.Unlock()
}

func (k *Kernel) fireCompact(t *turnState, phase string, messages, tokens int) {
	k.compact.mu.Lock()
	var hs []func(string, string, string, int, int)
	var owners []string
	for p, list := range k.compact.m {
		for _, h := range list {
			hs, owners = append(hs, h), append(owners, p)
		}
	}
	k.compact.mu.Unlock()
	for i, h := range hs {
		func() {
			defer func() {
				if r := recover(); r != nil {
					k.log.Error("compact hook panicked", "plugin", owners[i], "phase", phase, "panic", fmt.Sprint(r))
				}
			}()
			h(phase, t.in.Channel, t.in.ChatID, messages, tokens)
		}()
	}
}

// compactCut returns where the history h is cut: h[:cut] is compacted,
// h[cut:] kept verbatim. It cuts only before a user message, so a tool
// call never loses its results, and keeps the newest turns whose tokens
// fit keep. 0 means nothing can be compacted.
func compactCut(h []llm.Message, keep int) int {
	cut, kept := len(h), 0
	for i := len(h) - 1; i >= 0; i-- {
		kept += messageTokens(h[i])
		if kept > keep {
			break
		}
		if h[i].Role == "user" {
			cut = i
		}
	}
	if cut == len(h) {
		// Not even the newest turn fits keep: compact all but it, if it
		// starts anywhere but the beginning.
		cut = 0
		for i := len(h) - 1; i > 0; i-- {
			if h[i].Role == "user" {
				cut = i
				break
			}
		}
	}
	return cut
}

// userFrom returns the index of the first user message of h at or after
// i, or 0 when there is none.
func userFrom(h []llm.Message, i int) int {
	for ; i < len(h); i++ {
		if i > 0 && h[i].Role == "user" {
			return i
		}
	}
	return 0
}

// maybeCompact compacts the session's history when the request, of need
// tokens (history included), is above the threshold of budget, or the
// history holds more than three quarters of Options.HistoryMessages. It reports
// whether the history changed (the request must be built again).
//
// head is the request's start before the history (the system prompt and
// any earlier summary) and tools its tool specs: the summary call sends
// them and the compacted turns unchanged, so the provider's prefix cache
// serves them, and asks for the summary after them.
func (k *Kernel) maybeCompact(ctx context.Context, t *turnState, head []llm.Message, tools []llm.ToolSpec, need, budget int) bool {
	s := t.s
	limit := k.cfg.HistoryMessages
	overTokens := need > budget*compactAtPercent/100
	overCount := limit > 0 && len(s.history) > limit*3/4
	if !overTokens && !overCount {
		return false
	}
	cut := 0
	if overTokens {
		keep := max(0, budget*compactKeepPercent/100-(need-messagesTokens(s.history)))
		cut = compactCut(s.history, keep)
	}
	if overCount {
		// Before HistoryMessages would drop a turn every turn from now on
		// (changing the request's start each time), a block goes at once.
		cut = max(cut, userFrom(s.history, len(s.history)-limit/3))
	}
	if cut == 0 {
		return false
	}
	old := s.history[:cut]
	oldTokens := messagesTokens(old)
	if s.summary != "" {
		oldTokens += messageTokens(summaryMessage(s.summary)) // replaced too
	}
	k.fireCompact(t, CompactPre, len(old), oldTokens)

	summary, err := k.summarise(ctx, t, head, tools, s.summary, old, budget)
	if err != nil && ctx.Err() != nil {
		// The turn was stopped: nothing changes, and the turn ends.
		k.fireCompact(t, CompactPost, len(s.history), need)
		return false
	}
	var text string
	if err != nil {
		k.log.Warn("compacting the history failed; its oldest turns are left out", "session", s.key, "messages", len(old), "err", err)
		note := fmt.Sprintf(compactFailedNote, len(old), len(old))
		if s.summary != "" {
			note = s.summary + "\n\n" + note
		}
		s.summary = note
		text = fmt.Sprintf("Compacting the conversation failed (%v): %d older messages are left out of the model's context; they stay in the history. / 对话压缩失败：%d 条较早消息已从上下文中省去，仍保存在会话记录中。", err, len(old), len(old))
	} else {
		s.summary = summary
		text = fmt.Sprintf("Compacted the conversation: %d older messages (about %d tokens) summarised in about %d tokens. / 对话已压缩：%d 条较早消息已总结。",
			len(old), oldTokens, EstimateTokens(summary), len(old))
	}
	s.history = append([]llm.Message(nil), s.history[cut:]...)
	after := need - oldTokens + messageTokens(summaryMessage(s.summary))
	t.emit(Event{Kind: EventCompacted, Text: text})
	k.fireCompact(t, CompactPost, 1, after)
	return true
}

// summarise asks the model, in one call, for a summary of msgs following
// prev (the session's earlier summary, if any). When they fit, the call
// is the turn's request as it was (head, the tools, msgs) with the
// question after it, so all but the question is a cache hit; else the
// turns go as a transcript after the question. The model is not to call
// tools; its text is the summary. Its usage and cost count in the turn
// and its trace like any model call.
func (k *Kernel) summarise(ctx context.Context, t *turnState, head []llm.Message, tools []llm.ToolSpec, prev string, msgs []llm.Message, budget int) (string, error) {
	words := min(compactSummaryWords, max(100, budget*compactSummaryPercent/100))
	system := fmt.Sprintf(summaryPrompt, words, words)
	if messagesTokens(head)+messagesTokens(msgs)+toolsTokens(tools)+EstimateTokens(system) < budget-64 {
		ask := system + "\n\n" + summaryAsk
		if prev != "" {
			ask += summaryAskPrev
		}
		req := &llm.Request{Model: k.cfg.Model, Tools: tools,
			Messages: append(append(append([]llm.Message(nil), head...), msgs...), llm.Message{Role: "user", Content: ask})}
		return k.askSummary(ctx, t, req)
	}
	room := budget - EstimateTokens(system) - 64
	transcript := renderTranscript(prev, msgs, 0)
	if EstimateTokens(transcript) > room {
		transcript = renderTranscript(prev, msgs, compactItemBytes)
	}
	for EstimateTokens(transcript) > room && len(transcript) > 0 {
		// Still too long: the oldest part goes, a tenth at a time.
		cut := len(transcript) / 10
		for cut < len(transcript) && !utf8.RuneStart(transcript[cut]) {
			cut++
		}
		transcript = "…" + transcript[cut:]
	}
	req := &llm.Request{Model: k.cfg.Model, Messages: []llm.Message{
		{Role: "system", Content: system},
		{Role: "user", Content: transcript},
	}}
	return k.askSummary(ctx, t, req)
}

// askSummary makes the summary call.
func (k *Kernel) askSummary(ctx context.Context, t *turnState, req *llm.Request) (string, error) {
	resp, err := k.chat(ctx, t, req, func(llm.Delta) {})
	if resp != nil {
		addUsage(&t.usage, resp.Usage)
	}
	if err != nil {
		return "", err
	}
	summary := strings.TrimSpace(resp.Content)
	if summary == "" {
		return "", fmt.Errorf("the model answered the summary request with no text")
	}
	return summary, nil
}

// renderTranscript writes msgs as plain text for the summary call, each
// message's text cut to limit bytes when limit > 0.
func renderTranscript(prev string, msgs []llm.Message, limit int) string {
	var b strings.Builder
	if prev != "" {
		b.WriteString("Summary of what came before / 之前的摘要:\n")
		b.WriteString(prev)
		b.WriteString("\n\nThe conversation after it / 之后的对话:\n")
	}
	clip := func(s string) string {
		if limit <= 0 || len(s) <= limit {
			return s
		}
		i := limit
		for i > 0 && !utf8.RuneStart(s[i]) {
			i--
		}
		return s[:i] + fmt.Sprintf(" …[%d bytes cut]", len(s)-i)
	}
	for _, m := range msgs {
		switch m.Role {
		case "user":
			b.WriteString("User: ")
		case "assistant":
			b.WriteString("Assistant: ")
		case "tool":
			b.WriteString("Tool result: ")
		default:
			b.WriteString(m.Role + ": ")
		}
		b.WriteString(clip(m.Content))
		if len(m.Images) > 0 {
			fmt.Fprintf(&b, " [%d image(s)]", len(m.Images))
		}
		for _, c := range m.ToolCalls {
			fmt.Fprintf(&b, "\n  (calls %s %s)", c.Function.Name, clip(c.Function.Arguments))
		}
		b.WriteString("\n")
	}
	return b.String()
}
