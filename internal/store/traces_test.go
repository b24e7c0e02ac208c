package store

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"
)

func testTrace(id string, started time.Time, channel, chat string) *Trace {
	return &Trace{ID: id, SessionID: 7, Channel: channel, ChatID: chat, Input: "北京天气怎么样？", Answer: "晴",
		Started: started, Ended: started.Add(1500 * time.Millisecond), DurationMS: 1500, Outcome: TraceAnswered,
		Usage:  TraceUsage{InputTokens: 100, OutputTokens: 20, CachedTokens: 64, ReasoningTokens: 5},
		Cost:   &TraceCost{Amount: 0.0001, Currency: "USD"},
		Stages: []TraceStage{{Stage: "on_input", Handlers: 1, DurationMS: 0.02, Changed: []string{"raw_message"}}},
		ModelCalls: []TraceModelCall{{Source: "deepseek", Model: "deepseek-chat", Started: started, DurationMS: 800,
			FirstTokenMS: 120, Usage: TraceUsage{InputTokens: 100, OutputTokens: 20}, ToolCalls: 1}},
		ToolCalls: []TraceToolCall{{CallID: "c1", Name: "weather__query", Plugin: "weather", Arguments: `{"city":"北京"}`,
			Result: `{"temp":25}`, Outcome: "ok", Decision: "allow", DecidedBy: "user",
			Approval: &TraceApproval{Answer: "once", AnsweredBy: "user", WaitMS: 300}, DurationMS: 3}},
	}
}

// A trace reads back as it was saved; saving it again replaces it.
func TestTraceRoundTrip(t *testing.T) {
	s, ctx := openTest(t), context.Background()
	at := time.UnixMilli(1767225600000).UTC()
	tr := testTrace("t1", at, "qq", "g1")
	tr.Outcome, tr.DurationMS = TraceError, 0
	if err := s.SaveTrace(ctx, tr); err != nil {
		t.Fatal(err)
	}
	got, err := s.Trace(ctx, "t1")
	if err != nil || got.Outcome != TraceError {
		t.Fatalf("first save: %+v, %v", got, err)
	}
	tr = testTrace("t1", at, "qq", "g1")
	if err := s.SaveTrace(ctx, tr); err != nil {
		t.Fatal(err)
	}
	got, err = s.Trace(ctx, "t1")
	if err != nil {
		t.Fatal(err)
	}
	got.Started, got.Ended = got.Started.UTC(), got.Ended.UTC()
	got.ModelCalls[0].Started = got.ModelCalls[0].Started.UTC()
	if !reflect.DeepEqual(&got, tr) {
		t.Errorf("read back:\n got %+v\nwant %+v", got, *tr)
	}
	if _, err := s.Trace(ctx, "nope"); !errors.Is(err, ErrNoTrace) {
		t.Errorf("missing trace: %v, want ErrNoTrace", err)
	}
	if err := s.SaveTrace(ctx, &Trace{}); err == nil {
		t.Error("a trace without an id was saved")
	}
}

// Traces lists newest first, filtered, paged by Before, and PruneTraces
// deletes by age.
func TestTracesListAndPrune(t *testing.T) {
	s, ctx := openTest(t), context.Background()
	base := time.UnixMilli(1767225600000)
	for i, c := range []struct{ id, channel, chat string }{
		{"a", "qq", "g1"}, {"b", "terminal", ""}, {"c", "qq", "g1"}, {"d", "qq", "g2"},
	} {
		tr := testTrace(c.id, base.Add(time.Duration(i)*time.Hour), c.channel, c.chat)
		if c.id == "b" {
			tr.SessionID = 8
		}
		if err := s.SaveTrace(ctx, tr); err != nil {
			t.Fatal(err)
		}
	}
	ids := func(f TraceFilter) []string {
		t.Helper()
		list, err := s.Traces(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, tr := range list {
			out = append(out, tr.ID)
		}
		return out
	}
	for _, c := range []struct {
		name string
		f    TraceFilter
		want []string
	}{
		{"all", TraceFilter{}, []string{"d", "c", "b", "a"}},
		{"limit", TraceFilter{Limit: 2}, []string{"d", "c"}},
		{"before", TraceFilter{Before: base.Add(2 * time.Hour)}, []string{"b", "a"}},
		{"session", TraceFilter{SessionID: 8}, []string{"b"}},
		{"chat", TraceFilter{Channel: "qq", ChatID: "g1"}, []string{"c", "a"}},
		{"terminal", TraceFilter{Channel: "terminal"}, []string{"b"}},
	} {
		if got := ids(c.f); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
	}
	n, err := s.PruneTraces(ctx, base.Add(90*time.Minute))
	if err != nil || n != 2 {
		t.Fatalf("pruned %d, %v; want 2", n, err)
	}
	if got := ids(TraceFilter{}); !reflect.DeepEqual(got, []string{"d", "c"}) {
		t.Errorf("after pruning: %v", got)
	}
}
