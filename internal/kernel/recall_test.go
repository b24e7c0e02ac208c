package kernel

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/hearth-agent/hearth/internal/scope"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// fakeRecall remembers facts by scope and answers with those whose words
// the input contains, recording the views it was asked with.
type fakeRecall struct {
	mu    sync.Mutex
	facts map[scope.Scope][]string
	views []scope.View
}

func (f *fakeRecall) Recall(_ context.Context, v scope.View, input string) ([]Recalled, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.views = append(f.views, v)
	var out []Recalled
	for s, facts := range f.facts {
		if !v.Sees("", s) {
			continue
		}
		for i, fact := range facts {
			for _, w := range strings.Fields(strings.ToLower(input)) {
				if len(w) > 3 && strings.Contains(strings.ToLower(fact), w) {
					out = append(out, Recalled{MemItem: sdk.MemItem{Content: fact, Score: 1 / float64(1+i)}, Scope: s})
					break
				}
			}
		}
	}
	return out, nil
}

// memoryMessage returns the recall message of a request, "" if none.
func memoryMessage(req llmtest.Request) string {
	for _, m := range req.Messages {
		if c, _ := m["content"].(string); m["role"] == "system" && (strings.HasPrefix(c, recallHeader) || strings.HasPrefix(c, marksHeader)) {
			return c
		}
	}
	return ""
}

func TestRecallGoesToTheModelAndTheStages(t *testing.T) {
	rec := &fakeRecall{facts: map[scope.Scope][]string{
		scope.Owner:                    {"Alice's birthday is May 3", "Alice likes green tea"},
		scope.Global:                   {"The office wifi is called Hearth"},
		scope.Chat("test", "group:g2"): {"Alice's birthday party is a secret of group g2"},
	}}
	e := newEnv(t, Options{Recall: rec}, llmtest.Reply{Text: "ok"}, llmtest.Reply{Text: "ok"}, llmtest.Reply{Text: "ok"})
	var seen []sdk.MemItem
	load(t, e.k, "watcher", func(s *sdk.PluginSDK) error {
		s.RegisterStage(sdk.StagePreAction, func(c *sdk.StageContext) error {
			seen = slices.Clone(c.Memory)
			return nil
		})
		return nil
	})
	ctx := context.Background()
	if out := e.k.Ask(ctx, Input{Injection: sdk.Injection{Channel: "test", UserID: "me", Text: "When is Alice's birthday?"}}); out.Err != nil {
		t.Fatal(out.Err)
	}
	req := e.srv.Requests()[0]
	msg := memoryMessage(req)
	want := recallHeader + "- Alice's birthday is May 3"
	if msg != want {
		t.Fatalf("memory message:\n%q\nwant\n%q", msg, want)
	}
	// After the user's message: the system prompt and history stay the
	// prefix of every request.
	if i := slices.IndexFunc(req.Messages, func(m map[string]any) bool { return m["content"] == msg }); i < 1 || req.Messages[i-1]["role"] != "user" {
		t.Fatalf("memory message at %d of %v", i, req.Messages)
	}
	if len(seen) != 1 || seen[0].Content != "Alice's birthday is May 3" || seen[0].Role != "system" {
		t.Fatalf("pre_action saw %+v", seen)
	}
	if v := rec.views[0]; v.Writer != RecallWriter || !v.AllWriters || v.AllScopes || !slices.Equal(v.Read, []scope.Scope{scope.Global, scope.Owner}) {
		t.Fatalf("view %+v", v)
	}

	// Another group does not see the owner's facts, and sees its own.
	in := Input{Injection: sdk.Injection{Channel: "test", ChatID: "g1", GroupID: "g1", UserID: "me", Text: "Alice birthday?"}}
	e.k.Ask(ctx, in)
	if msg := memoryMessage(e.srv.Requests()[1]); msg != "" {
		t.Fatalf("group g1 was shown %q", msg)
	}
	in.ChatID, in.GroupID = "g2", "g2"
	e.k.Ask(ctx, in)
	if msg := memoryMessage(e.srv.Requests()[2]); !strings.Contains(msg, "secret of group g2") || strings.Contains(msg, "May 3") {
		t.Fatalf("group g2 was shown %q", msg)
	}
}

func TestRecallIsStableAndWithinBudget(t *testing.T) {
	var facts []string
	for i := range 50 {
		facts = append(facts, fmt.Sprintf("coffee fact number %02d is about beans from farm %d", i, i))
	}
	rec := &fakeRecall{facts: map[scope.Scope][]string{scope.Global: facts}}
	e := newEnv(t, Options{Recall: rec, RecallTokens: 100}, llmtest.Reply{Text: "a"}, llmtest.Reply{Text: "b"})
	e.ask(t, "tell me about coffee")
	e.ask(t, "tell me about coffee")
	reqs := e.srv.Requests()
	first, second := memoryMessage(reqs[0]), memoryMessage(reqs[1])
	if first == "" || first != second {
		t.Fatalf("the same input over the same memory gave\n%q\nthen\n%q", first, second)
	}
	if n := EstimateTokens(first); n > 100 {
		t.Fatalf("%d tokens over a budget of 100:\n%s", n, first)
	}
	if !strings.Contains(first, "number 00") || strings.Contains(first, "number 49") {
		t.Fatalf("not the best items first:\n%s", first)
	}
	// The second request starts with the first one's messages (system
	// prompt, then the first exchange), byte for byte.
	if reqs[1].Messages[0]["content"] != reqs[0].Messages[0]["content"] || reqs[1].Messages[1]["content"] != "tell me about coffee" {
		t.Fatalf("prefix changed: %v", reqs[1].Messages[:2])
	}
}

func TestRecallSkipsNoMemoryTurns(t *testing.T) {
	rec := &fakeRecall{facts: map[scope.Scope][]string{scope.Global: {"secret coffee recipe"}}}
	e := newEnv(t, Options{Recall: rec}, llmtest.Reply{Text: "a"})
	e.k.Ask(context.Background(), Input{Injection: sdk.Injection{Channel: "test", Text: "coffee recipe?", NoMemory: true}})
	if msg := memoryMessage(e.srv.Requests()[0]); msg != "" || len(rec.views) != 0 {
		t.Fatalf("a NoMemory turn recalled (%d calls): %q", len(rec.views), msg)
	}
}

func TestCorrectionMarkOnceWhereShown(t *testing.T) {
	rec := &fakeRecall{facts: map[scope.Scope][]string{scope.Global: {"Bob lives in Paris"}}}
	ok := llmtest.Reply{Text: "ok"}
	e := newEnv(t, Options{Recall: rec}, ok, ok, ok, ok, ok, ok)
	ctx := context.Background()
	a := Input{Injection: sdk.Injection{Channel: "a", Text: "where Bob lives now"}}
	b := Input{Injection: sdk.Injection{Channel: "b", Text: "hello there"}}
	e.k.Ask(ctx, a) // shown the fact
	e.k.Ask(ctx, b) // not shown it
	rec.mu.Lock()
	rec.facts[scope.Global] = []string{"Bob lives in Lyon"}
	rec.mu.Unlock()
	if n, err := e.k.MemoryChanged(ctx, "Bob lives in Paris", "Bob lives in Lyon", scope.Global, ""); n != 1 || err != nil {
		t.Fatalf("%d conversations to mark (%v), want 1", n, err)
	}
	a.Text, b.Text = "thanks", "thanks"
	e.k.Ask(ctx, a)
	e.k.Ask(ctx, b)
	e.k.Ask(ctx, a)
	reqs := e.srv.Requests()
	want := marksHeader + "- [更正] Bob lives in Paris → Bob lives in Lyon"
	if got := memoryMessage(reqs[2]); got != want {
		t.Fatalf("conversation a:\n%q\nwant\n%q", got, want)
	}
	for _, i := range []int{3, 4} {
		if got := memoryMessage(reqs[i]); got != "" {
			t.Fatalf("request %d: %q", i, got)
		}
	}
	// The mark showed the new fact: deleting it marks a again.
	if n, err := e.k.MemoryChanged(ctx, "Bob lives in Lyon", "", scope.Global, ""); n != 1 || err != nil {
		t.Fatalf("%d conversations to mark (%v), want 1", n, err)
	}
	e.k.Ask(ctx, a)
	if got := memoryMessage(e.srv.Requests()[5]); got != marksHeader+"- [已删除] Bob lives in Lyon" {
		t.Fatalf("after delete: %q", got)
	}
}

func TestRecallTerms(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"Where does Alice live?", []string{"alice", "live"}},
		{"小明喜欢什么", []string{"小明", "明喜", "喜欢", "欢什", "什么"}},
		{"Tell me about 东京 and iPhone15", []string{"东京", "iphone15"}},
		{"", nil},
	} {
		if got := recallTerms(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("recallTerms(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func FuzzRecallText(f *testing.F) {
	f.Add("Alice likes tea", 1.0, "x\ny", 400)
	f.Fuzz(func(t *testing.T, content string, score float64, mark string, budget int) {
		items := fitRecall([]Recalled{{MemItem: sdk.MemItem{Content: content, Score: score}}, {MemItem: sdk.MemItem{Content: content + " again", Score: score / 2}}}, budget%2000)
		mem := make([]sdk.MemItem, len(items))
		for i, it := range items {
			mem[i] = it.MemItem
		}
		text := recallText(mem, lines(mark))
		if len(items) > 0 && EstimateTokens(recallHeader+"- "+items[0].Content) > budget%2000 {
			t.Fatalf("over budget: %q", text)
		}
		for _, it := range items {
			if strings.Contains(it.Content, "\n") {
				t.Fatalf("item on two lines: %q", it.Content)
			}
		}
		_ = recallTerms(content)
	})
}
