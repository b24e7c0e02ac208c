package terminal

import (
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/internal/kernel"
	"github.com/hearth-agent/hearth/internal/llm"
)

func TestUsageLine(t *testing.T) {
	deepseek, _ := llm.KnownPrice("deepseek-chat")
	qwen, _ := llm.KnownPrice("qwen-plus")
	for _, tc := range []struct {
		name  string
		u     llm.Usage
		price *llm.Price
		want  string
	}{
		{"no price", llm.Usage{PromptTokens: 1234, CompletionTokens: 56}, nil, "1,234 in · 56 out"},
		{"cached, USD", llm.Usage{PromptTokens: 1_000_000, CachedTokens: 500_000, CompletionTokens: 100_000}, &deepseek,
			// 500k fresh at 0.28 (0.14), 500k cached at 0.028 (0.014), 100k out at 0.42 (0.042)
			"1,000,000 in · 500,000 cached · 100,000 out · $0.1960"},
		{"small, USD", llm.Usage{PromptTokens: 1200, CompletionTokens: 300}, &deepseek, "1,200 in · 300 out · $0.0005"},
		{"CNY", llm.Usage{PromptTokens: 10_000, CompletionTokens: 1_000}, &qwen, "10,000 in · 1,000 out · 0.0100 CNY"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := UsageLine(tc.u, tc.price); got != tc.want {
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
