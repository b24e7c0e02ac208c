package kernel

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/internal/llm"
	"github.com/hearth-agent/hearth/internal/llm/anthropictest"
	"github.com/hearth-agent/hearth/sdk"
)

// A turn through an Anthropic source, end to end: the model thinks and
// calls a tool, the tool runs, its result goes back paired with the call
// and after the signed thinking, and the answer streams to the channel;
// the turn's usage and cost count the cache reads and writes.
func TestAnthropicTurnWithToolCall(t *testing.T) {
	srv := anthropictest.NewServer(t,
		anthropictest.Reply{Thinking: "I should look.", ToolCalls: []anthropictest.Call{{ID: "toolu_7", Name: "w__echo", Input: `{"text":"hi"}`}},
			Usage: anthropictest.Usage{Input: 100, Output: 20, CacheWrite: 1000}},
		anthropictest.Reply{Text: "The tool said: hi.", Usage: anthropictest.Usage{Input: 50, Output: 10, CacheRead: 1000, CacheWrite: 130}},
	)
	price := &llm.Price{Input: 3, Output: 15, CachedInput: 0.3, CacheWrite: 3.75}
	src, err := llm.NewSources([]llm.Source{{Name: "claude", BaseURL: srv.URL, APIKey: "sk-ant-kernel-test-1234", Model: "claude-test",
		API: llm.APIAnthropic, ThinkingBudget: 1024, Price: price}}, "")
	if err != nil {
		t.Fatal(err)
	}
	k := New(src, nil, nil)
	defer k.Close()
	var ran string
	load(t, k, "w", func(s *sdk.PluginSDK) error {
		return sdk.AddTool(s, sdk.ToolDef{Name: "echo", Description: "echo", Effect: sdk.EffectRead},
			func(_ context.Context, _ *sdk.ToolContext, in struct {
				Text string `json:"text"`
			}) (string, error) {
				ran = in.Text
				return "echo: " + in.Text, nil
			})
	})
	var text, reasoning strings.Builder
	out := k.Ask(context.Background(), Input{Injection: sdk.Injection{Channel: "test", ChatID: "c", Text: "say hi through the tool"},
		OnEvent: func(ev Event) {
			switch ev.Kind {
			case EventText:
				text.WriteString(ev.Text)
			case EventReasoning:
				reasoning.WriteString(ev.Text)
			}
		}})
	if out.Err != nil {
		t.Fatal(out.Err)
	}
	if ran != "hi" || out.Text != "The tool said: hi." || text.String() != out.Text || reasoning.String() != "I should look." {
		t.Fatalf("tool ran with %q; outcome %q, streamed %q, reasoning %q", ran, out.Text, text.String(), reasoning.String())
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	if reqs[0].Tools()[0]["name"] != "w__echo" || reqs[0].Tools()[0]["input_schema"] == nil {
		t.Fatalf("tools %v", reqs[0].Tools())
	}
	msgs := reqs[1].Messages()
	n := len(msgs)
	assistant, _ := json.Marshal(msgs[n-2])
	results, _ := json.Marshal(msgs[n-1])
	if !strings.Contains(string(assistant), `"content":[{"signature":"sig-0","thinking":"I should look.","type":"thinking"},`+
		`{"id":"toolu_7","input":{"text":"hi"},"name":"w__echo","type":"tool_use"}]`) ||
		!strings.Contains(string(results), `"content":"echo: hi","tool_use_id":"toolu_7","type":"tool_result"}`) ||
		msgs[n-1]["role"] != "user" || reqs[1].Body["thinking"] == nil {
		t.Fatalf("second request:\n%s\n%s\nthinking %v", assistant, results, reqs[1].Body["thinking"])
	}
	want := llm.Usage{PromptTokens: 1100 + 1180, CompletionTokens: 30, TotalTokens: 2310, CachedTokens: 1000, CacheWriteTokens: 1130}
	if out.Usage != want {
		t.Fatalf("usage %+v, want %+v", out.Usage, want)
	}
	// 150 fresh at $3, 1000 read at $0.30, 1130 written at $3.75, 30 out at $15, per million.
	if wantCost := (150*3 + 1000*0.3 + 1130*3.75 + 30*15) / 1e6; out.Cost == nil || math.Abs(out.Cost.Amount-wantCost) > 1e-12 {
		t.Fatalf("cost %+v, want %v", out.Cost, wantCost)
	}
}

// Over a conversation of several turns with tool calls, each request to
// an Anthropic source carries the one before it, byte for byte, up to
// that one's last cache breakpoint (the markers themselves move on with
// the conversation: Anthropic caches content, not markers), and marks
// that same block as a breakpoint, so the cache the previous call wrote
// is read.
func TestAnthropicPrefixStableAcrossTurns(t *testing.T) {
	call := func(id string) anthropictest.Reply {
		return anthropictest.Reply{ToolCalls: []anthropictest.Call{{ID: id, Name: "w__echo", Input: `{"text":"` + id + `"}`}}}
	}
	srv := anthropictest.NewServer(t,
		call("t1"), anthropictest.Reply{Text: "one"},
		anthropictest.Reply{Text: "two"},
		call("t3"), call("t4"), anthropictest.Reply{Text: "three"},
	)
	src, err := llm.NewSources([]llm.Source{{Name: "claude", BaseURL: srv.URL, Model: "claude-test", API: llm.APIAnthropic}}, "")
	if err != nil {
		t.Fatal(err)
	}
	k := New(src, openStore(t), nil)
	defer k.Close()
	load(t, k, "w", func(s *sdk.PluginSDK) error {
		return sdk.AddTool(s, sdk.ToolDef{Name: "echo", Description: "echo", Effect: sdk.EffectRead},
			func(_ context.Context, _ *sdk.ToolContext, in struct {
				Text string `json:"text"`
			}) (string, error) {
				return "echo: " + in.Text, nil
			})
	})
	for _, q := range []string{"first", "second", "third"} {
		if out := k.Ask(context.Background(), Input{Injection: sdk.Injection{Channel: "test", ChatID: "c", Text: q}}); out.Err != nil {
			t.Fatal(out.Err)
		}
	}
	reqs := srv.Requests()
	if len(reqs) != 6 {
		t.Fatalf("%d requests", len(reqs))
	}
	const mark = `,"cache_control":{"type":"ephemeral"}`
	for i := 1; i < len(reqs); i++ {
		prev, cur := reqs[i-1].Raw, reqs[i].Raw
		if n := bytes.Count(cur, []byte(mark)); n > 4 {
			t.Fatalf("request %d has %d breakpoints, over Anthropic's 4", i, n)
		}
		end := bytes.LastIndex(prev, []byte(mark))
		block := prev[bytes.LastIndex(prev[:end], []byte(`{"type":`)) : end+len(mark)+1]
		if !bytes.Contains(cur, block) {
			t.Fatalf("request %d does not mark where request %d wrote the cache (%s):\n%s", i, i-1, block, cur)
		}
		p := bytes.ReplaceAll(prev[:end], []byte(mark), nil)
		c := bytes.ReplaceAll(cur, []byte(mark), nil)
		if !bytes.HasPrefix(c, p) {
			n := 0
			for n < len(c) && n < len(p) && c[n] == p[n] {
				n++
			}
			t.Fatalf("request %d differs from request %d's cached prefix at byte %d:\n%s\n%s", i, i-1, n, p[max(0, n-80):], c[max(0, n-80):min(len(c), n+80)])
		}
	}
}
