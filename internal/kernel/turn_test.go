package kernel

import (
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// countingClock is the clock plugin counting its calls.
func countingClock(n *atomic.Int32) func(*sdk.PluginSDK) error {
	return func(s *sdk.PluginSDK) error {
		return s.RegisterTool("now", sdk.ToolDef{Description: "current time", Effect: sdk.EffectRead},
			func(map[string]any) (any, error) {
				n.Add(1)
				return "12:00", nil
			})
	}
}

// A model that calls tools whatever it is offered gets no tool run on the
// last step, and the turn stops there, saying so.
func TestStepLimitIsALimit(t *testing.T) {
	e := newEnv(t, Options{MaxSteps: 4})
	e.srv.SetFallback(llmtest.Reply{ToolCalls: []llmtest.Call{{Name: "clock__now", Arguments: `{}`}}, Text: "again"})
	var ran atomic.Int32
	load(t, e.k, "clock", countingClock(&ran))
	out := e.ask(t, "loop forever")
	if out.Err != nil || !strings.Contains(out.Text, "limit of 4 model calls") {
		t.Fatalf("outcome %+v", out)
	}
	if ran.Load() != 3 {
		t.Fatalf("the tool ran %d times, want 3 (not on the last step, where none was offered)", ran.Load())
	}
	// The fallback does not record requests; the stored exchange shows
	// the last call answered as unknown.
	h := e.k.sessions[sessionKey{"test", ""}].history
	last := h[len(h)-2]
	if last.Role != "tool" || !strings.Contains(last.Content, "unknown tool") {
		t.Fatalf("last call answered %+v", last)
	}
}

// A tool the request did not offer never runs, even when it exists.
func TestCallOfToolNotOfferedIsUnknown(t *testing.T) {
	e := newEnv(t, Options{},
		llmtest.Reply{ToolCalls: []llmtest.Call{{ID: "u", Name: "plugins__use", Arguments: `{"plugin":"clock"}`},
			{ID: "c", Name: "clock__now", Arguments: `{}`}}},
		llmtest.Reply{Text: "ok"},
	)
	var ran atomic.Int32
	load(t, e.k, "clock", func(s *sdk.PluginSDK) error {
		return s.RegisterTool("now", sdk.ToolDef{OnDemand: true, Effect: sdk.EffectRead}, func(map[string]any) (any, error) {
			ran.Add(1)
			return "12:00", nil
		})
	})
	if out := e.ask(t, "x"); out.Text != "ok" {
		t.Fatalf("%+v", out)
	}
	if ran.Load() != 0 {
		t.Fatal("an on-demand tool ran before its plugin was loaded")
	}
	if got, _ := toolMessage(e.srv.Requests()[1].Messages, "c"); !strings.Contains(got["content"].(string), "unknown tool") {
		t.Fatalf("result %v", got)
	}
}

// The tool calls of a turn are bounded too: calls past the limit do not
// run, no tools are offered after it, and the turn says why it stopped.
func TestToolCallLimit(t *testing.T) {
	many := llmtest.Reply{ToolCalls: []llmtest.Call{
		{Name: "clock__now", Arguments: `{}`}, {Name: "clock__now", Arguments: `{}`}, {Name: "clock__now", Arguments: `{}`}}}
	e := newEnv(t, Options{MaxToolCalls: 5}, many, many, many)
	var ran atomic.Int32
	load(t, e.k, "clock", countingClock(&ran))
	out := e.ask(t, "loop")
	if out.Err != nil || !strings.Contains(out.Text, "limit of 5 tool calls") {
		t.Fatalf("outcome %+v", out)
	}
	if ran.Load() != 5 {
		t.Fatalf("ran %d calls, want 5", ran.Load())
	}
	reqs := e.srv.Requests()
	if len(reqs) != 3 || len(reqs[1].Tools) == 0 || len(reqs[2].Tools) != 0 {
		t.Fatalf("%d requests; tools %d, %d", len(reqs), len(reqs[1].Tools), len(reqs[len(reqs)-1].Tools))
	}
	msgs := reqs[2].Messages
	if m := msgs[len(msgs)-1]; m["role"] != "tool" || !strings.Contains(m["content"].(string), "limit of 5 tool calls") {
		t.Fatalf("sixth call answered %v", m)
	}
}
