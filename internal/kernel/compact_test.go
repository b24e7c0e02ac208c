package kernel

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

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
	c.seen = append(c.seen, body)
	prompt, cached = (len(body)+3)/4, common/4
	c.requests++
	c.prompt += prompt
	c.cached += cached
	return prompt, cached
}

func (c *cacheAccount) row(name string, extra int) string {
	return fmt.Sprintf("| %s | %d | %d | %d | %d | %.0f %% |", name, c.requests, extra, c.prompt, c.prompt-c.cached, 100*float64(c.cached)/float64(c.prompt))
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

func isSummaryRequest(r llmtest.Request) bool {
	return len(r.Messages) > 0 && strings.HasPrefix(fmt.Sprint(r.Messages[0]["content"]), "You summarise a conversation")
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

// The summary request renders the compacted turns (tool calls and their
// results included) and the earlier summary, and the next request
// carries the summary as a system message right after the system prompt.
func TestCompactSummaryRequest(t *testing.T) {
	_, reqs, _ := hearthRun(t)
	var first, second int = -1, -1
	for i, r := range reqs {
		if isSummaryRequest(r) {
			if first < 0 {
				first = i
			} else if second < 0 {
				second = i
			}
		}
	}
	if first < 0 || second < 0 {
		t.Fatalf("summary requests at %d and %d", first, second)
	}
	tr := fmt.Sprint(reqs[first].Messages[1]["content"])
	if !strings.Contains(tr, "User: Turn 1.") || !strings.Contains(tr, "Assistant: Answer 1.") || strings.Contains(tr, "Summary of what came before") {
		t.Errorf("first transcript: %.200q", tr)
	}
	if tr := fmt.Sprint(reqs[second].Messages[1]["content"]); !strings.HasPrefix(tr, "Summary of what came before / 之前的摘要:\nSummary 1.") {
		t.Errorf("second transcript does not start with the first summary: %.200q", tr)
	}
	next := reqs[first+1].Messages
	if next[1]["role"] != "system" || !strings.HasPrefix(fmt.Sprint(next[1]["content"]), summaryHeader+"Summary 1.") {
		t.Errorf("the request after the compaction: %v", next[1])
	}
	if len(reqs[first].Tools) != 0 {
		t.Error("the summary request offers tools")
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
