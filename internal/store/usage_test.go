package store

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

func TestUsageLedger(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "hearth.db")
	s, err := OpenFile(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	cost := func(v float64) *float64 { return &v }
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	calls := []Usage{
		{At: t0, Day: "2026-12-01", SessionID: 1, Source: "ds", Model: "deepseek-chat", InputTokens: 100, CachedTokens: 40, OutputTokens: 10, Cost: cost(0.5), Currency: "CNY"},
		{At: t0.Add(time.Minute), Day: "2026-12-01", SessionID: 2, Source: "ds", Model: "deepseek-chat", Plugin: "wechat", InputTokens: 200, OutputTokens: 20, Cost: cost(1), Currency: "CNY"},
		{At: t0.Add(2 * time.Minute), Day: "2026-12-01", SessionID: 2, Source: "local", Model: "llama3", InputTokens: 50, OutputTokens: 5},
		{At: t0.Add(24 * time.Hour), Day: "2026-12-02", SessionID: 1, Source: "oa", Model: "gpt-4o", InputTokens: 1000, OutputTokens: 100, Cost: cost(0.01), Currency: "USD"},
	}
	for i := range calls {
		if err := s.RecordUsage(ctx, &calls[i]); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	// What was recorded outlives a restart.
	if s, err = OpenFile(ctx, path); err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	tokens, money, err := s.UsageSpent(ctx, "2026-12-01", 0)
	if err != nil || tokens != 385 || !reflect.DeepEqual(money, map[string]float64{"CNY": 1.5}) {
		t.Errorf("day spent: %d %v %v", tokens, money, err)
	}
	tokens, money, err = s.UsageSpent(ctx, "", 1)
	if err != nil || tokens != 1210 || !reflect.DeepEqual(money, map[string]float64{"CNY": 0.5, "USD": 0.01}) {
		t.Errorf("session spent: %d %v %v", tokens, money, err)
	}

	days, err := s.UsageTotals(ctx, "day", time.Time{}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	want := []UsageTotal{
		{Key: "2026-12-02", Calls: 1, InputTokens: 1000, OutputTokens: 100, Cost: 0.01, Currency: "USD"},
		{Key: "2026-12-01", Calls: 1, InputTokens: 50, OutputTokens: 5, Unpriced: 1},
		{Key: "2026-12-01", Calls: 2, InputTokens: 300, CachedTokens: 40, OutputTokens: 30, Cost: 1.5, Currency: "CNY"},
	}
	if !reflect.DeepEqual(days, want) {
		t.Errorf("by day:\n got %+v\nwant %+v", days, want)
	}
	plugins, err := s.UsageTotals(ctx, "plugin", t0, t0.Add(time.Hour))
	if err != nil || len(plugins) != 3 || plugins[0].Key != "wechat" || plugins[0].Cost != 1 || plugins[1].Key != "" || plugins[2].Unpriced != 1 {
		t.Errorf("by plugin in the first hour: %+v %v", plugins, err)
	}
	// By session: labelled with the session's channel and chat; equal
	// spends in the order of the sessions' numbers (2 before 10).
	ids := map[string]int64{}
	for _, chat := range []string{"a", "工作笔记", "b", "c", "d", "e", "f", "g", "h", "i"} { // 工作笔记 is 2, i is 10
		sess, err := s.Session(ctx, "terminal", chat)
		if err != nil {
			t.Fatal(err)
		}
		ids[chat] = sess.ID
	}
	for _, chat := range []string{"i", "工作笔记"} {
		if err := s.RecordUsage(ctx, &Usage{At: t0.Add(48 * time.Hour), Day: "2026-12-03", SessionID: ids[chat], Source: "x", InputTokens: 7}); err != nil {
			t.Fatal(err)
		}
	}
	sessions, err := s.UsageTotals(ctx, "session", t0.Add(47*time.Hour), time.Time{})
	if err != nil || len(sessions) != 2 || sessions[0].Label != "terminal/工作笔记" || sessions[1].Label != "terminal/i" {
		t.Errorf("by session: %+v %v", sessions, err)
	}
	if _, err := s.UsageTotals(ctx, "weekday", time.Time{}, time.Time{}); err == nil {
		t.Error("grouping by an unknown key worked")
	}

	if err := s.MarkRejectedKey(ctx, RejectedKey{Source: "ds", KeyHash: "h1", Reason: "401", At: t0}); err != nil {
		t.Fatal(err)
	}
	if err := s.MarkRejectedKey(ctx, RejectedKey{Source: "ds", KeyHash: "h2", Reason: "403", At: t0}); err != nil {
		t.Fatal(err)
	}
	if r, err := s.RejectedKeys(ctx); err != nil || len(r) != 1 || r[0].KeyHash != "h2" || r[0].Reason != "403" {
		t.Errorf("rejected keys: %+v %v", r, err)
	}
}
