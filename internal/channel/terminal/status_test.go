package terminal

import (
	"strings"
	"testing"
	"time"

	"github.com/hearth-agent/hearth/internal/kernel"
	"github.com/hearth-agent/hearth/internal/llm"
)

func TestUsageLine(t *testing.T) {
	for _, tc := range []struct {
		name string
		u    llm.Usage
		cost *kernel.Cost
		want string
	}{
		{"no price", llm.Usage{PromptTokens: 1234, CompletionTokens: 56}, nil, "1,234 in · 56 out"},
		{"cached, USD", llm.Usage{PromptTokens: 1_000_000, CachedTokens: 500_000, CompletionTokens: 100_000},
			&kernel.Cost{Amount: 0.196, Currency: "USD"}, "1,000,000 in · 500,000 cached · 100,000 out · $0.1960"},
		{"small, USD", llm.Usage{PromptTokens: 1200, CompletionTokens: 300}, &kernel.Cost{Amount: 0.000462, Currency: "USD"},
			"1,200 in · 300 out · $0.0005"},
		{"CNY", llm.Usage{PromptTokens: 10_000, CompletionTokens: 1_000}, &kernel.Cost{Amount: 0.01, Currency: "CNY"},
			"10,000 in · 1,000 out · 0.0100 CNY"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := UsageLine(tc.u, tc.cost); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 123456: "123,456", 1234567: "1,234,567", -1500: "-1,500"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestRenderRetry(t *testing.T) {
	ev := kernel.Event{Kind: kernel.EventRetry, Text: "429 rate limited, retrying in 2 s\x1b[2J"}
	answer := []kernel.Event{{Kind: kernel.EventText, Text: "ok"}, {Kind: kernel.EventFinal, Text: "ok"}}
	plain := render(&renderer{streamText: true}, append([]kernel.Event{ev}, answer...)...)
	if want := "… 429 rate limited, retrying in 2 s^[[2J\nok\n"; plain != want {
		t.Errorf("plain: %q, want %q", plain, want)
	}
	r := &renderer{streamText: true, color: true}
	r.out = nil
	got := render(r, ev, answer[0], answer[1])
	want := clearLine + dim + "… 429 rate limited, retrying in 2 s^[[2J" + reset + clearLine + "ok\n"
	if got != want {
		t.Errorf("terminal: %q, want %q", got, want)
	}
	if got := render(&renderer{}, ev); got != "" {
		t.Errorf("ask's answer stream got %q", got)
	}
}

func TestThinkingOnlyOnATerminal(t *testing.T) {
	var b strings.Builder
	r := &renderer{out: &b, streamText: true}
	r.thinking()
	if b.String() != "" {
		t.Fatalf("plain stream got %q", b.String())
	}
	r = &renderer{out: &b, streamText: true, color: true}
	r.thinking()
	r.event(kernel.Event{Kind: kernel.EventText, Text: "hi"})
	if want := clearLine + dim + thinkingLine + reset + clearLine + "hi"; b.String() != want {
		t.Fatalf("terminal got %q, want %q", b.String(), want)
	}
}

func TestUsageShownOnlyWhenReported(t *testing.T) {
	var b strings.Builder
	r := &renderer{out: &b}
	r.usage(llm.Usage{}, nil)
	if b.String() != "" {
		t.Fatalf("no usage reported, got %q", b.String())
	}
	r.usage(llm.Usage{PromptTokens: 10, CompletionTokens: 2}, nil)
	if want := "10 in · 2 out\n"; b.String() != want {
		t.Fatalf("got %q, want %q", b.String(), want)
	}
}

// TestTickRedrawsStatus checks what chat's ticker draws: the spinner's
// next frame, the time the model has been thinking, a tool has been
// running, and the wait left before a retry.
func TestTickRedrawsStatus(t *testing.T) {
	start := time.Unix(1000, 0)
	now := start
	var b strings.Builder
	r := &renderer{out: &b, streamText: true, color: true, now: func() time.Time { return now }}
	line := func() string {
		s := b.String()
		b.Reset()
		return s
	}
	r.thinking()
	if got := line(); got != clearLine+dim+thinkingLine+reset {
		t.Fatalf("thinking: %q", got)
	}
	now = start.Add(3 * time.Second)
	r.tick()
	if got, want := line(), clearLine+dim+spinner[1]+" thinking / 思考中 3 s"+reset; got != want {
		t.Fatalf("tick: %q, want %q", got, want)
	}
	r.event(kernel.Event{Kind: kernel.EventToolStart, Tool: "shell__run", CallID: "c1", Args: "{}"})
	line()
	now = now.Add(5 * time.Second)
	r.tick()
	if got, want := line(), clearLine+dim+spinner[1]+" shell__run 5 s"+reset; got != want {
		t.Fatalf("tool tick: %q, want %q", got, want)
	}
	r.event(kernel.Event{Kind: kernel.EventToolEnd, Tool: "shell__run", CallID: "c1", Text: "done"})
	if got := line(); !strings.Contains(got, "✓ shell__run (5 s) done") {
		t.Fatalf("tool end: %q", got)
	}
	rt := &llm.Retry{Attempt: 1, After: 10 * time.Second, Reason: "429 rate limited"}
	r.event(kernel.Event{Kind: kernel.EventRetry, Text: rt.String(), Retry: rt})
	if got, want := line(), clearLine+clearLine+dim+"… 429 rate limited, retrying in 10 s"+reset; got != want {
		t.Fatalf("retry: %q, want %q", got, want)
	}
	now = now.Add(4 * time.Second)
	r.tick()
	if got, want := line(), clearLine+dim+spinner[1]+" 429 rate limited, retrying in 6 s"+reset; got != want {
		t.Fatalf("retry tick: %q, want %q", got, want)
	}
	r.event(kernel.Event{Kind: kernel.EventText, Text: "hi"})
	r.tick()
	if got := line(); got != clearLine+"hi" {
		t.Fatalf("a tick after the status line went: %q", got)
	}
}

// TestLiveRendererStops checks that the ticker ends with stop and leaves
// no status line behind.
func TestLiveRendererStops(t *testing.T) {
	var b strings.Builder
	r := &renderer{out: &b, streamText: true, color: true}
	lr := &liveRenderer{r: r}
	r.thinking()
	stop := lr.run()
	lr.event(kernel.Event{Kind: kernel.EventText, Text: "hi"})
	stop()
	if r.live != nil || r.progress.open || !strings.HasSuffix(b.String(), "hi") {
		t.Fatalf("after stop: live %v, open %v, out %q", r.live, r.progress.open, b.String())
	}
}
