package kernel

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/hearth-agent/hearth/internal/llm"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// cacheAccount is a scripted provider's prompt accounting, the way
// providers' prefix caches count: a request is rendered as they read it
// (the tool specs, then each message), its prompt tokens are its bytes/4,
// and its cached tokens the longest common prefix with any earlier
// request, in bytes/4.
type cacheAccount struct {
	mu       sync.Mutex
	seen     [][]byte
	requests int
	prompt   int
	cached   int
	// cachedPrev counts the prefix shared with the previous request only
	// (a cache that keeps one prefix).
	cachedPrev int
}

// render is a request as a provider's prefix cache sees it.
func render(tools, msgs []map[string]any) []byte {
	var b bytes.Buffer
	for _, t := range tools {
		j, _ := json.Marshal(t)
		b.Write(j)
	}
	for _, m := range msgs {
		j, _ := json.Marshal(m)
		b.Write(j)
	}
	return b.Bytes()
}

func (c *cacheAccount) add(body []byte) (prompt, cached int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	common := 0
	for _, p := range c.seen {
		n := 0
		for n < len(p) && n < len(body) && p[n] == body[n] {
			n++
		}
		common = max(common, n)
	}
	if len(c.seen) > 0 {
		p, n := c.seen[len(c.seen)-1], 0
		for n < len(p) && n < len(body) && p[n] == body[n] {
			n++
		}
		c.cachedPrev += n / 4
	}
	c.seen = append(c.seen, body)
	prompt, cached = (len(body)+3)/4, common/4
	c.requests++
	c.prompt += prompt
	c.cached += cached
	return prompt, cached
}

func (c *cacheAccount) row(name string, extra int) string {
	return fmt.Sprintf("| %s | %d | %d | %d | %d | %.0f %% | %.0f %% |", name, c.requests, extra, c.prompt, c.prompt-c.cached,
		100*float64(c.cached)/float64(c.prompt), 100*float64(c.cachedPrev)/float64(c.prompt))
}

// The scripted conversation: 20 turns, each a ~1,200-byte message and a
// ~1,600-byte answer; turn 7 calls a tool first.
const (
	convTurns    = 20
	convWindow   = 8192
	toolTurn     = 7
	summaryBytes = 900
)

var turnRE = regexp.MustCompile(`^Turn (\d+)\.`)

func convUser(i int) string {
	return fmt.Sprintf("Turn %d. ", i) + strings.Repeat(fmt.Sprintf("The user explains part %d of the plan in some detail. ", i), 22)
}

func convAnswer(i int) string {
	return fmt.Sprintf("Answer %d. ", i) + strings.Repeat(fmt.Sprintf("The assistant works through point %d of the plan carefully. ", i), 27)
}

func convSummary(n int) string {
	return fmt.Sprintf("Summary %d. ", n) + strings.Repeat("The user is planning a project; decisions so far are listed. ", summaryBytes/60)
}

// lastTurn is the number of the latest user message of msgs, and whether
// a tool result follows it.
func lastTurn(msgs []map[string]any) (int, bool) {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i]["role"] == "user" {
			if m := turnRE.FindStringSubmatch(fmt.Sprint(msgs[i]["content"])); m != nil {
				n, _ := strconv.Atoi(m[1])
				return n, i < len(msgs)-1 && msgs[len(msgs)-1]["role"] == "tool"
			}
		}
	}
	return 0, false
}

// isSummaryRequest reports whether r asks for a summary: as the last
// message after the conversation, or as the system message of a
// transcript.
func isSummaryRequest(r llmtest.Request) bool {
	if len(r.Messages) == 0 {
		return false
	}
	first, last := fmt.Sprint(r.Messages[0]["content"]), fmt.Sprint(r.Messages[len(r.Messages)-1]["content"])
	return strings.HasPrefix(first, "You summarise a conversation") || strings.HasPrefix(last, "You summarise a conversation")
}

// hearthRun drives the kernel through the scripted conversation on a
// loopback provider, and returns the accounting and the requests.
func hearthRun(t *testing.T) (*cacheAccount, []llmtest.Request, []Event) {
	acct := &cacheAccount{}
	var mu sync.Mutex
	var reqs []llmtest.Request
	summaries := 0
	e := newEnv(t, Options{ContextWindow: convWindow})
	e.srv.SetFallback(llmtest.Reply{Func: func(r llmtest.Request) llmtest.Reply {
		prompt, cached := acct.add(render(r.Tools, r.Messages))
		mu.Lock()
		reqs = append(reqs, r)
		mu.Unlock()
		if isSummaryRequest(r) {
			summaries++
			return llmtest.Reply{Text: convSummary(summaries), Usage: &llmtest.Usage{Prompt: prompt, Cached: cached, Completion: summaryBytes / 4}}
		}
		n, afterTool := lastTurn(r.Messages)
		if n == toolTurn && !afterTool {
			return llmtest.Reply{ToolCalls: []llmtest.Call{{ID: "call_lookup", Name: "notes__lookup", Arguments: `{"topic":"plan"}`}},
				Usage: &llmtest.Usage{Prompt: prompt, Cached: cached, Completion: 10}}
		}
		return llmtest.Reply{Text: convAnswer(n), Usage: &llmtest.Usage{Prompt: prompt, Cached: cached, Completion: 400}}
	}})
	for _, name := range []string{"lookup", "save", "search"} {
		def := sdk.ToolDef{Name: name, Description: "Notes: " + name + " a note about the user's plan.", Effect: sdk.EffectRead,
			Parameters: map[string]any{"type": "object", "properties": map[string]any{"topic": map[string]any{"type": "string"}}}}
		if err := e.k.RegisterTool("notes", def, func(context.Context, *sdk.ToolContext, map[string]any, json.RawMessage) (any, error) {
			return strings.Repeat("A note about the plan. ", 20), nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	var events []Event
	for i := 1; i <= convTurns; i++ {
		ctx := context.Background()
		out := e.k.Ask(ctx, Input{Injection: sdk.Injection{Channel: "test", Text: convUser(i)}, OnEvent: func(ev Event) {
			if ev.Kind == EventCompacted || ev.Kind == EventFinal {
				events = append(events, ev)
			}
		}})
		if out.Err != nil || out.Text != convAnswer(i) {
			t.Fatalf("turn %d: %v %.40q", i, out.Err, out.Text)
		}
	}
	return acct, reqs, events
}

// Over 20 turns in a window that holds about seven, the history is
// compacted a few times, each in one model call, and every other request
// starts with the previous request byte for byte: the provider's prefix
// cache hits. Tool calls keep their results, the stored history keeps
// every message, and the summary call's usage counts in its turn.
func TestCompactConversationKeepsPrefix(t *testing.T) {
	acct, reqs, events := hearthRun(t)
	var compactions, turnReqs int
	var prev []byte
	budget := convWindow - answerReserve(convWindow)
	for i, r := range reqs {
		body := render(r.Tools, r.Messages)
		if (len(body)+3)/4 > budget+budget/10 {
			t.Errorf("request %d: about %d tokens, over the budget %d", i, len(body)/4, budget)
		}
		// No tool result without its call.
		calls := map[string]bool{}
		for _, m := range r.Messages {
			if tc, ok := m["tool_calls"].([]any); ok {
				for _, c := range tc {
					calls[fmt.Sprint(c.(map[string]any)["id"])] = true
				}
			}
			if m["role"] == "tool" && !calls[fmt.Sprint(m["tool_call_id"])] {
				t.Errorf("request %d: tool result %v without its call", i, m["tool_call_id"])
			}
		}
		if isSummaryRequest(r) {
			compactions++
			prev = nil // the next request starts differently: the summary replaces turns
			continue
		}
		turnReqs++
		if prev != nil && !bytes.HasPrefix(body, prev) {
			n := 0
			for n < len(prev) && prev[n] == body[n] {
				n++
			}
			t.Errorf("request %d does not start with the previous request: they differ at byte %d of %d: %.80q", i, n, len(prev), body[n:])
		}
		prev = body
	}
	if compactions < 1 || compactions > 4 {
		t.Errorf("%d compactions in %d turns", compactions, convTurns)
	}
	if turnReqs != convTurns+1 { // the tool turn makes two
		t.Errorf("%d turn requests", turnReqs)
	}
	var noticed, summaryUsage int
	for i, ev := range events {
		if ev.Kind == EventCompacted {
			noticed++
			if !strings.Contains(ev.Text, "Compacted the conversation") || i+1 >= len(events) {
				t.Errorf("compaction event %q", ev.Text)
				continue
			}
			// The turn's usage counts the summary call's completion.
			if u := events[i+1].Usage; u.CompletionTokens >= summaryBytes/4+400 {
				summaryUsage++
			}
		}
	}
	if noticed != compactions || summaryUsage != compactions {
		t.Errorf("%d compaction events, %d with the summary call's usage, for %d compactions", noticed, summaryUsage, compactions)
	}
	share := float64(acct.cached) / float64(acct.prompt)
	t.Logf("%s (compactions %d)", acct.row("Hearth", compactions), compactions)
	if share < 0.5 {
		t.Errorf("cache-hit share %.2f", share)
	}
}

// The summary request is the previous request's start (tools, system
// prompt, earlier summary, the turns to compact) byte for byte with the
// question after it, so the provider's cache serves all but the question;
// the next request carries the summary as a system message right after
// the system prompt.
func TestCompactSummaryRequest(t *testing.T) {
	_, reqs, _ := hearthRun(t)
	var at []int
	for i, r := range reqs {
		if isSummaryRequest(r) {
			at = append(at, i)
		}
	}
	if len(at) < 2 {
		t.Fatalf("summary requests at %v", at)
	}
	for n, i := range at {
		r, before := reqs[i], reqs[i-1]
		ask := fmt.Sprint(r.Messages[len(r.Messages)-1]["content"])
		if !strings.Contains(ask, summaryAsk) || strings.Contains(ask, summaryAskPrev) != (n > 0) {
			t.Errorf("summary %d asks %q", n+1, ask)
		}
		if !bytes.HasPrefix(render(before.Tools, before.Messages), render(r.Tools, r.Messages[:len(r.Messages)-1])) {
			t.Errorf("summary request %d does not repeat the previous request's start", n+1)
		}
		if len(r.Tools) != len(before.Tools) || len(r.Tools) == 0 {
			t.Errorf("summary request %d: %d tools, the turn's %d", n+1, len(r.Tools), len(before.Tools))
		}
		next := reqs[i+1].Messages
		if next[1]["role"] != "system" || !strings.HasPrefix(fmt.Sprint(next[1]["content"]), summaryHeader+fmt.Sprintf("Summary %d.", n+1)) {
			t.Errorf("the request after compaction %d: %.100v", n+1, next[1])
		}
	}
	if c := fmt.Sprint(reqs[at[0]].Messages[1]["content"]); !strings.HasPrefix(c, "Turn 1.") {
		t.Errorf("the first summary request starts with %.40q", c)
	}
}

// A transcript (the summary call when the turns do not fit as they are)
// names who said what, keeps tool calls with their results, and cuts
// long texts only when asked to.
func TestRenderTranscript(t *testing.T) {
	msgs := []llm.Message{
		{Role: "user", Content: "查一下天气"},
		{Role: "assistant", ToolCalls: []llm.ToolCall{{ID: "1", Function: llm.FunctionCall{Name: "weather", Arguments: `{"city":"北京"}`}}}},
		{Role: "tool", ToolCallID: "1", Content: strings.Repeat("晴", 1000)},
		{Role: "assistant", Content: "北京今天晴。"},
	}
	full := renderTranscript("之前的摘要", msgs, 0)
	for _, want := range []string{"之前的摘要\n", "User: 查一下天气\n", `(calls weather {"city":"北京"})`, "Tool result: 晴晴", "Assistant: 北京今天晴。\n"} {
		if !strings.Contains(full, want) {
			t.Errorf("transcript lacks %q:\n%.300s", want, full)
		}
	}
	cut := renderTranscript("", msgs, 100)
	if len(cut) >= len(full)-2000 || !strings.Contains(cut, "bytes cut]") || !utf8.ValidString(cut) {
		t.Errorf("cut transcript: %d bytes of %d, valid %v", len(cut), len(full), utf8.ValidString(cut))
	}
}

// A summary call that fails leaves the oldest turns out with a notice in
// their place; the turn still answers, and the store keeps every message.
func TestCompactFailureDropsWithNotice(t *testing.T) {
	e := newEnv(t, Options{ContextWindow: convWindow})
	fail := true
	var reqs []llmtest.Request
	e.srv.SetFallback(llmtest.Reply{Func: func(r llmtest.Request) llmtest.Reply {
		reqs = append(reqs, r)
		if isSummaryRequest(r) {
			if fail {
				fail = false
				return llmtest.Reply{Status: 400, ErrorMessage: "bad summary request"}
			}
			return llmtest.Reply{Text: "summary"}
		}
		n, _ := lastTurn(r.Messages)
		return llmtest.Reply{Text: convAnswer(n)}
	}})
	var notices []string
	for i := 1; i <= 8; i++ {
		out := e.k.Ask(context.Background(), Input{Injection: sdk.Injection{Channel: "test", Text: convUser(i)}, OnEvent: func(ev Event) {
			if ev.Kind == EventCompacted {
				notices = append(notices, ev.Text)
			}
		}})
		if out.Err != nil || out.Text != convAnswer(i) {
			t.Fatalf("turn %d: %v", i, out.Err)
		}
	}
	if len(notices) != 1 || !strings.Contains(notices[0], "Compacting the conversation failed") {
		t.Fatalf("notices %q", notices)
	}
	sess, err := e.st.Session(context.Background(), "test", "")
	if err != nil {
		t.Fatal(err)
	}
	stored, err := e.st.RecentMessages(context.Background(), sess.ID, 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(stored) != 16 {
		t.Errorf("%d messages stored, want all 16", len(stored))
	}
	// The requests after the failure say turns were left out, and the
	// first turn is not in them.
	failed := -1
	for i, r := range reqs {
		if isSummaryRequest(r) {
			failed = i
			break
		}
	}
	if failed < 0 || failed+1 >= len(reqs) {
		t.Fatalf("no request after the failed summary call (%d requests)", len(reqs))
	}
	next := reqs[failed+1].Messages
	if c := fmt.Sprint(next[1]["content"]); next[1]["role"] != "system" || !strings.Contains(c, "summarising them failed") {
		t.Errorf("the request after the failure: %.200q", c)
	}
	if strings.Contains(fmt.Sprint(next), "Turn 1. ") {
		t.Error("the first turn is still sent")
	}
}

// compactCut never cuts between a tool call and its results, and keeps
// the newest turn even when it alone is over keep.
func TestCompactCut(t *testing.T) {
	long := strings.Repeat("x", 4000)
	h := []llm.Message{
		{Role: "user", Content: "a"}, {Role: "assistant", Content: "b"},
		{Role: "user", Content: "c"}, {Role: "assistant", ToolCalls: []llm.ToolCall{{ID: "1"}}}, {Role: "tool", ToolCallID: "1", Content: long},
		{Role: "assistant", Content: "d"},
		{Role: "user", Content: "e"}, {Role: "assistant", Content: "f"},
	}
	for keep, want := range map[int]int{0: 6, 20: 6, 1000: 6, 2000: 0} {
		if got := compactCut(h, keep); got != want {
			t.Errorf("keep %d: cut %d, want %d", keep, got, want)
		}
	}
	if got := compactCut(h[:6], 10); got != 2 {
		t.Errorf("the newest turn alone over keep: cut %d, want 2", got)
	}
}

// convTurnMessages returns the scripted conversation as Hearth sent it:
// per turn, its messages from the user's through the final answer, as
// they appear in the next turn's request; and the system message and
// tools of the first request.
func convTurnMessages(t *testing.T, reqs []llmtest.Request) (system map[string]any, tools []map[string]any, turns [][]map[string]any) {
	t.Helper()
	turns = make([][]map[string]any, convTurns+1)
	for _, r := range reqs {
		if isSummaryRequest(r) {
			continue
		}
		if system == nil {
			system, tools = r.Messages[0], r.Tools
		}
		var cur []map[string]any
		num := 0
		for _, m := range r.Messages {
			if m["role"] == "user" {
				if num > 0 && turns[num] == nil {
					turns[num] = cur
				}
				cur, num = nil, 0
				if g := turnRE.FindStringSubmatch(fmt.Sprint(m["content"])); g != nil {
					num, _ = strconv.Atoi(g[1])
				}
			}
			if num > 0 {
				cur = append(cur, m)
			}
		}
		if num == convTurns && turns[num] == nil {
			turns[num] = append(cur, map[string]any{"role": "assistant", "content": convAnswer(num)})
		}
	}
	for i := 1; i <= convTurns; i++ {
		if turns[i] == nil {
			t.Fatalf("turn %d was never sent whole", i)
		}
	}
	return system, tools, turns[1:]
}

func mapsTokens(msgs []map[string]any) int { return (len(render(nil, msgs)) + 3) / 4 }

func transcriptOf(msgs []map[string]any) string {
	var b strings.Builder
	for _, m := range msgs {
		fmt.Fprintf(&b, "%v: %v\n", m["role"], m["content"])
	}
	return b.String()
}

// modelRequests are the points of a turn where the model is asked: before
// each assistant message.
func modelRequests(turn []map[string]any) []int {
	var at []int
	for k, m := range turn {
		if m["role"] == "assistant" {
			at = append(at, k)
		}
	}
	return at
}

// simulatePicoclaw sends the conversation by picoclaw's rules (pkg/agent/
// context_legacy.go at sipeed/picoclaw HEAD, read for issue 16): every
// request carries the whole history, and the summary in the system
// prompt; after a turn, when the history has more than 20 messages
// (summarize_message_threshold) or over 75 % of the window
// (summarize_token_percent), all but the last 4 messages (to a turn
// boundary) are summarised: more than 10 user/assistant messages in two
// batches and a merge request (3 calls), else one call with the earlier
// summary. Tool messages are not sent to the summary.
//
// fixed, when not nil, replaces the trigger: summarise after those turns
// (the statement of picoclaw's behaviour: turns 10 and 18).
func simulatePicoclaw(system map[string]any, tools []map[string]any, turns [][]map[string]any, fixed []int) (acct *cacheAccount, extra, maxTokens int, after []int) {
	acct = &cacheAccount{}
	summary, n := "", 0
	var hist []map[string]any
	sys := func() map[string]any {
		if summary == "" {
			return system
		}
		return map[string]any{"role": "system", "content": fmt.Sprint(system["content"]) + "\n\n## Summary of Previous Conversation\n\n" + summary}
	}
	ask := func(prompt string) {
		acct.add(render(nil, []map[string]any{{"role": "user", "content": prompt}}))
		extra++
	}
	const batchPrompt = "Provide a concise summary of this conversation segment, preserving core context and key points.\n"
	for i, turn := range turns {
		for _, k := range modelRequests(turn) {
			msgs := append(append([]map[string]any{sys()}, hist...), turn[:k]...)
			body := render(tools, msgs)
			maxTokens = max(maxTokens, len(body)/4)
			acct.add(body)
		}
		hist = append(hist, turn...)
		if fixed != nil && !slices.Contains(fixed, i+1) || fixed == nil && len(hist) <= 20 && mapsTokens(hist) <= convWindow*75/100 {
			continue
		}
		cut := len(hist) - 4
		for cut > 0 && hist[cut]["role"] != "user" {
			cut--
		}
		var valid []map[string]any
		for _, m := range hist[:cut] {
			if m["role"] == "user" || m["role"] == "assistant" {
				valid = append(valid, m)
			}
		}
		n++
		after = append(after, i+1)
		if len(valid) > 10 {
			mid := len(valid) / 2
			for mid > 0 && valid[mid]["role"] != "user" {
				mid--
			}
			ask(batchPrompt + transcriptOf(valid[:mid]))
			ask(batchPrompt + transcriptOf(valid[mid:]))
			ask("Merge these two conversation summaries into one cohesive summary:\n\n1: " + convSummary(n) + "\n\n2: " + convSummary(n))
		} else {
			ask(batchPrompt + "Existing context: " + summary + "\n" + transcriptOf(valid))
		}
		summary = convSummary(n)
		hist = hist[cut:]
	}
	return acct, extra, maxTokens, after
}

// simulateXbot sends the conversation by xbot's rules (ai-pivot/xbot at
// 8c4aa37c: agent/agent.go auto-memorize, agent/compress.go): after every
// turn one memory request with the turn's messages (given here only the
// length of Hearth's summary instructions: a lower bound), and before a
// request over 90 % of the window (CompressionThreshold 0.9) everything
// before the current user message is summarised in one call and replaced
// by the summary.
func simulateXbot(system map[string]any, tools []map[string]any, turns [][]map[string]any) (acct *cacheAccount, extra, maxTokens int) {
	acct = &cacheAccount{}
	instructions := fmt.Sprintf(summaryPrompt, 500, 500)
	var hist []map[string]any
	n := 0
	for _, turn := range turns {
		for _, k := range modelRequests(turn) {
			msgs := append(append([]map[string]any{system}, hist...), turn[:k]...)
			if len(render(tools, msgs))/4 > convWindow*90/100 && len(hist) > 0 {
				n++
				acct.add(render(nil, []map[string]any{{"role": "system", "content": instructions}, {"role": "user", "content": transcriptOf(hist)}}))
				extra++
				hist = []map[string]any{{"role": "user", "content": "[compacted context]\n" + convSummary(n)}}
				msgs = append(append([]map[string]any{system}, hist...), turn[:k]...)
			}
			body := render(tools, msgs)
			maxTokens = max(maxTokens, len(body)/4)
			acct.add(body)
		}
		hist = append(hist, turn...)
		acct.add(render(nil, []map[string]any{{"role": "system", "content": instructions}, {"role": "user", "content": transcriptOf(turn)}}))
		extra++
	}
	return acct, extra, maxTokens
}

// For the same 20-turn conversation and window, Hearth sends fewer prompt
// tokens, and fewer not served from the cache, than picoclaw's and xbot's
// rules would (docs/benchmarks.md, "Context compaction").
func TestCompactVersusPeers(t *testing.T) {
	hearth, reqs, _ := hearthRun(t)
	compactions := 0
	var before []int
	for i, r := range reqs {
		if isSummaryRequest(r) {
			compactions++
			n, _ := lastTurn(reqs[i+1].Messages)
			before = append(before, n)
		}
	}
	system, tools, turns := convTurnMessages(t, reqs)
	pico, picoExtra, picoMax, picoAfter := simulatePicoclaw(system, tools, turns, nil)
	pico2, pico2Extra, pico2Max, _ := simulatePicoclaw(system, tools, turns, []int{10, 18})
	xbot, xbotExtra, xbotMax := simulateXbot(system, tools, turns)
	t.Logf("| rule | requests | extra requests | prompt tokens | not cached | cache hits | hits, previous request only |")
	t.Logf("%s (compacted before turns %v)", hearth.row("Hearth", compactions), before)
	t.Logf("%s (largest request %d tokens; summarised after turns %v)", pico.row("picoclaw", picoExtra), picoMax, picoAfter)
	t.Logf("%s (largest request %d tokens)", pico2.row("picoclaw, after turns 10 and 18", pico2Extra), pico2Max)
	t.Logf("%s (largest request %d tokens)", xbot.row("xbot", xbotExtra), xbotMax)
	for _, peer := range []struct {
		name string
		a    *cacheAccount
	}{{"picoclaw", pico}, {"picoclaw after turns 10 and 18", pico2}, {"xbot", xbot}} {
		if hearth.prompt-hearth.cached >= peer.a.prompt-peer.a.cached {
			t.Errorf("Hearth sends %d uncached prompt tokens, %s %d", hearth.prompt-hearth.cached, peer.name, peer.a.prompt-peer.a.cached)
		}
	}
}

// Before Options.HistoryMessages would start dropping a turn every turn,
// a block of the history is compacted at once, and the requests after it
// keep their start.
func TestCompactByMessageCount(t *testing.T) {
	e := newEnv(t, Options{HistoryMessages: 12})
	var mu sync.Mutex
	var reqs []llmtest.Request
	e.srv.SetFallback(llmtest.Reply{Func: func(r llmtest.Request) llmtest.Reply {
		mu.Lock()
		reqs = append(reqs, r)
		mu.Unlock()
		if isSummaryRequest(r) {
			return llmtest.Reply{Text: "short summary"}
		}
		n, _ := lastTurn(r.Messages)
		return llmtest.Reply{Text: fmt.Sprintf("answer %d", n)}
	}})
	for i := 1; i <= 12; i++ {
		if out := e.ask(t, fmt.Sprintf("Turn %d. hello", i)); out.Err != nil {
			t.Fatal(out.Err)
		}
	}
	var summaries []int
	for i, r := range reqs {
		if isSummaryRequest(r) {
			summaries = append(summaries, i)
		}
	}
	// Over 9 messages (three quarters of 12) compacts all but the newest
	// 4: every few turns, not every turn.
	if len(summaries) == 0 || len(summaries) > 4 {
		t.Fatalf("summary requests at %v of %d", summaries, len(reqs))
	}
	for i := summaries[0] + 2; i < len(reqs); i++ {
		if isSummaryRequest(reqs[i]) || isSummaryRequest(reqs[i-1]) {
			continue
		}
		if prev, cur := render(reqs[i-1].Tools, reqs[i-1].Messages), render(reqs[i].Tools, reqs[i].Messages); !bytes.HasPrefix(cur, prev) {
			t.Errorf("request %d does not start with request %d", i, i-1)
		}
	}
	for _, r := range reqs {
		if n := len(r.Messages); n > 12+3 {
			t.Errorf("a request of %d messages", n)
		}
	}
}

// The summary call is a model call of its turn's trace, and its tokens
// and cost count in the turn's.
func TestCompactTracedAndPriced(t *testing.T) {
	st := openStore(t)
	k, srv, _ := traceEnv(t, st, Options{ContextWindow: 2000})
	srv.SetFallback(llmtest.Reply{Func: func(r llmtest.Request) llmtest.Reply {
		if isSummaryRequest(r) {
			return llmtest.Reply{Text: "summary", Usage: &llmtest.Usage{Prompt: 1111, Completion: 222}}
		}
		return llmtest.Reply{Text: "ok", Usage: &llmtest.Usage{Prompt: 100, Completion: 10}}
	}})
	var compacted Outcome
	for i := 0; i < 4; i++ {
		var saw bool
		out := k.Ask(context.Background(), Input{Injection: sdk.Injection{Channel: "test", Text: fmt.Sprintf("Turn %d. ", i) + strings.Repeat("x", 2400)},
			OnEvent: func(ev Event) { saw = saw || ev.Kind == EventCompacted }})
		if out.Err != nil {
			t.Fatal(out.Err)
		}
		if saw && compacted.TraceID == "" {
			compacted = out
		}
	}
	if compacted.TraceID == "" {
		t.Fatal("no turn compacted")
	}
	if compacted.Usage.PromptTokens != 1211 || compacted.Usage.CompletionTokens != 232 {
		t.Errorf("the compacting turn's usage %+v", compacted.Usage)
	}
	if compacted.Cost == nil || math.Abs(compacted.Cost.Amount-(1211*1+232*2)/1e6) > 1e-12 {
		t.Errorf("the compacting turn's cost %+v", compacted.Cost)
	}
	tr, err := st.Trace(context.Background(), compacted.TraceID)
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.ModelCalls) != 2 || tr.ModelCalls[0].Usage.InputTokens != 1111 || tr.Usage.InputTokens != 1211 {
		t.Errorf("trace model calls %+v, usage %+v", tr.ModelCalls, tr.Usage)
	}
}

// A turn stopped during the summary call changes nothing: no turn is
// left out, and the next turn compacts them.
func TestCompactInterrupted(t *testing.T) {
	e := newEnv(t, Options{ContextWindow: 2000})
	arrived := make(chan struct{})
	var mu sync.Mutex
	hangs := 1
	var summaryReqs []llmtest.Request
	e.srv.SetFallback(llmtest.Reply{Func: func(r llmtest.Request) llmtest.Reply {
		if isSummaryRequest(r) {
			mu.Lock()
			defer mu.Unlock()
			summaryReqs = append(summaryReqs, r)
			if hangs > 0 {
				hangs--
				close(arrived)
				return llmtest.Reply{Hang: true}
			}
			return llmtest.Reply{Text: "summary"}
		}
		return llmtest.Reply{Text: "ok"}
	}})
	long := strings.Repeat("x", 2400)
	var stopped bool
	for i := 1; i <= 4 && !stopped; i++ {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan Outcome, 1)
		go func() {
			done <- e.k.Ask(ctx, Input{Injection: sdk.Injection{Channel: "test", Text: fmt.Sprintf("Turn %d. %s", i, long)}})
		}()
		var out Outcome
		select {
		case out = <-done:
		case <-arrived:
			cancel()
			out = <-done
			if !out.Interrupted {
				t.Fatalf("turn %d: %+v", i, out)
			}
			stopped = true
		}
		cancel()
		if !stopped && out.Err != nil {
			t.Fatalf("turn %d: %v", i, out.Err)
		}
	}
	if !stopped {
		t.Fatal("no summary call to stop")
	}
	if out := e.ask(t, "Turn 9. "+long); out.Err != nil || out.Text != "ok" {
		t.Fatalf("after the stop: %+v", out)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(summaryReqs) != 2 {
		t.Fatalf("%d summary requests", len(summaryReqs))
	}
	first := func(r llmtest.Request) string { return fmt.Sprint(r.Messages[1]["content"]) }
	// (The second may go as a transcript: the stopped turn made the
	// history longer.)
	for i, r := range summaryReqs {
		if c := first(r); !strings.HasPrefix(c, "Turn 1.") && !strings.HasPrefix(c, "User: Turn 1.") {
			t.Errorf("summary request %d does not start with the first turn: %.30q", i+1, c)
		}
	}
}
