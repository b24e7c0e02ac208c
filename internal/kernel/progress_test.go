package kernel

import (
	"context"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// timerClock is a clock the test moves, with timers that fire when it
// passes them.
type timerClock struct {
	now    time.Time
	timers []*pendingTimer
}

type pendingTimer struct {
	at      time.Time
	f       func()
	stopped bool
}

func (c *timerClock) after(d time.Duration, f func()) func() bool {
	tm := &pendingTimer{at: c.now.Add(d), f: f}
	c.timers = append(c.timers, tm)
	return func() bool { was := !tm.stopped; tm.stopped = true; return was }
}

func (c *timerClock) advance(d time.Duration) {
	c.now = c.now.Add(d)
	timers := c.timers
	c.timers = nil
	for _, tm := range timers {
		switch {
		case tm.stopped:
		case !tm.at.After(c.now):
			tm.stopped = true
			tm.f()
		default:
			c.timers = append(c.timers, tm)
		}
	}
}

func TestProgressThrottle(t *testing.T) {
	clock := &timerClock{now: time.Unix(1000, 0)}
	var got []string
	r := &progressReporter{tool: "mcp-x__long", call: "c1", now: func() time.Time { return clock.now }, after: clock.after,
		emit: func(ev Event) {
			if ev.Kind != EventToolProgress || ev.Tool != "mcp-x__long" || ev.CallID != "c1" {
				t.Errorf("event %+v", ev)
			}
			got = append(got, ev.Text)
		}}
	r.report(1, 10, "a") // the first goes at once
	r.report(2, 10, "b") // too soon: waits
	r.report(3, 10, "c") // replaces b
	if strings.Join(got, ",") != "a" {
		t.Fatalf("before the interval: %v", got)
	}
	clock.advance(progressInterval)
	if strings.Join(got, ",") != "a,c" {
		t.Fatalf("after the interval: %v", got)
	}
	clock.advance(progressInterval) // nothing waiting
	r.report(4, 10, "d")            // the interval has passed: at once
	r.report(5, 10, "e")            // waits
	r.close()                       // the call ended: e goes now
	r.report(6, 10, "f")            // after the end: dropped
	clock.advance(time.Second)
	if strings.Join(got, ",") != "a,c,d,e" {
		t.Fatalf("events %v, want a,c,d,e", got)
	}
	if len(clock.timers) != 0 {
		t.Errorf("%d timers left", len(clock.timers))
	}
}

func TestProgressDropsInvalid(t *testing.T) {
	var got []Event
	r := &progressReporter{now: time.Now, after: (&timerClock{}).after, emit: func(ev Event) { got = append(got, ev) }}
	r.report(math.NaN(), 1, "")
	r.report(1, math.Inf(1), "")
	r.report(-1, 0, "")
	if len(got) != 0 {
		t.Fatalf("invalid reports emitted: %+v", got)
	}
	r.report(1, 0, strings.Repeat("进", 100)+"\xff")
	if len(got) != 1 || len(got[0].Text) > maxProgressMessage+len("…") || !strings.HasSuffix(got[0].Text, "…") {
		t.Fatalf("long message: %+v", got)
	}
	var nilReporter *progressReporter
	nilReporter.close() // a call that never ran
}

// TestToolProgressEvents runs a tool that reports progress through a turn:
// its reports reach the channel masked, throttled, in order, the latest
// before the call's end event and none after it.
func TestToolProgressEvents(t *testing.T) {
	e := newEnv(t, Options{},
		llmtest.Reply{ToolCalls: []llmtest.Call{{ID: "c1", Name: "work__long", Arguments: `{}`}, {ID: "c2", Name: "work__long", Arguments: `{}`}}},
		llmtest.Reply{Text: "done"},
	)
	late := make(chan func(done, total float64, message string), 2)
	load(t, e.k, "work", func(s *sdk.PluginSDK) error {
		return sdk.AddTool(s, sdk.ToolDef{Name: "long", Description: "long work", Effect: sdk.EffectRead},
			func(_ context.Context, tc *sdk.ToolContext, _ struct{}) (string, error) {
				if tc.Progress == nil {
					return "", nil
				}
				for i := 1; i <= 50; i++ {
					tc.Progress(float64(i), 50, "step")
				}
				late <- tc.Progress
				return "ok", nil
			})
	})
	var mu sync.Mutex
	var events []Event
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out := e.k.Ask(ctx, Input{Injection: sdk.Injection{Channel: "test", Text: "go"}, OnEvent: func(ev Event) {
		mu.Lock()
		events = append(events, ev)
		mu.Unlock()
	}})
	if out.Err != nil {
		t.Fatal(out.Err)
	}
	for range 2 {
		(<-late)(99, 100, "after the end") // dropped
	}
	mu.Lock()
	defer mu.Unlock()
	for _, id := range []string{"c1", "c2"} {
		var progress []float64
		ended := false
		for _, ev := range events {
			if ev.CallID != id {
				continue
			}
			switch ev.Kind {
			case EventToolProgress:
				if ended {
					t.Errorf("%s: progress %v after the end", id, ev.Done)
				}
				if ev.Total != 50 || ev.Text != "step" || ev.Tool != "work__long" {
					t.Errorf("%s: event %+v", id, ev)
				}
				progress = append(progress, ev.Done)
			case EventToolEnd:
				ended = true
			}
		}
		if !ended || len(progress) == 0 || progress[0] != 1 || progress[len(progress)-1] != 50 {
			t.Errorf("%s: progress %v (ended %v), want 1 first and 50 last, before the end", id, progress, ended)
		}
		for i := 1; i < len(progress); i++ {
			if progress[i] <= progress[i-1] {
				t.Errorf("%s: progress out of order: %v", id, progress)
			}
		}
	}
}

// BenchmarkProgressReport is a tool reporting progress in a loop: most
// reports are held back by the throttle, so the cost is one lock and a
// clock read.
func BenchmarkProgressReport(b *testing.B) {
	var emitted int
	r := &progressReporter{tool: "t", call: "c", now: time.Now,
		after: func(d time.Duration, f func()) func() bool { return time.AfterFunc(d, f).Stop },
		emit:  func(Event) { emitted++ }}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		r.report(float64(i), 0, "working")
	}
	r.close()
}
