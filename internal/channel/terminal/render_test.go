package terminal

import (
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/internal/kernel"
	"github.com/hearth-agent/hearth/internal/llm"
	"github.com/hearth-agent/hearth/sdk"
)

func render(r *renderer, evs ...kernel.Event) string {
	var b strings.Builder
	r.out = &b
	for _, ev := range evs {
		r.event(ev)
	}
	return b.String()
}

func TestRenderChat(t *testing.T) {
	tests := []struct {
		name string
		evs  []kernel.Event
		want string
	}{
		{"streamed answer", []kernel.Event{
			{Kind: kernel.EventReasoning, Text: "想一想\n"},
			{Kind: kernel.EventText, Text: "你好"}, {Kind: kernel.EventText, Text: "！"},
			{Kind: kernel.EventFinal, Text: "你好！"},
		}, "💭 想一想\n你好！\n"},
		{"tool step", []kernel.Event{
			{Kind: kernel.EventText, Text: "我查一下。"},
			{Kind: kernel.EventToolStart, Tool: "time__now", Args: `{"zone":"UTC"}`},
			{Kind: kernel.EventToolEnd, Tool: "time__now", Text: `{"time":"12:00"}`},
			{Kind: kernel.EventText, Text: "中午。"},
			{Kind: kernel.EventFinal, Text: "中午。"},
		}, "我查一下。\n→ time__now {\"zone\":\"UTC\"}\n  ✓ time__now {\"time\":\"12:00\"}\n中午。\n"},
		{"answer rewritten by a stage", []kernel.Event{
			{Kind: kernel.EventText, Text: "draft"},
			{Kind: kernel.EventFinal, Text: "final"},
		}, "draft\nfinal\n"},
		{"control sequences neutralised, across chunks", []kernel.Event{
			{Kind: kernel.EventReasoning, Text: "r\x1b"}, {Kind: kernel.EventReasoning, Text: "[2J\n"},
			{Kind: kernel.EventText, Text: "a\r"}, {Kind: kernel.EventText, Text: "\nb\x1b]52;c;eA==\x07\xe4\xb8"},
			{Kind: kernel.EventText, Text: "\xad\r"},
			{Kind: kernel.EventFinal, Text: "a\r\nb\x1b]52;c;eA==\x07中\r"},
		}, "💭 r^[[2J\na\nb^[]52;c;eA==^G中^M\n"},
		{"interrupted", []kernel.Event{
			{Kind: kernel.EventText, Text: "partial"},
			{Kind: kernel.EventInterrupted},
			{Kind: kernel.EventReasoning, Text: "next"},
		}, "partial\n(interrupted / 已中断)\n💭 next"},
		{"answer cut off", []kernel.Event{
			{Kind: kernel.EventText, Text: "The capital of France is"},
			{Kind: kernel.EventError, Err: llm.ErrIncomplete},
		}, "The capital of France is " + CutMarker + "\n"},
		{"error before any text", []kernel.Event{
			{Kind: kernel.EventError, Err: llm.ErrEmptyAnswer},
		}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := render(&renderer{showReasoning: true, streamText: true}, tt.evs...)
			if got != tt.want {
				t.Fatalf("got %q\nwant %q", got, tt.want)
			}
			colored := render(&renderer{showReasoning: true, streamText: true, color: true}, tt.evs...)
			if plain := ansiRE(colored); plain != tt.want {
				t.Fatalf("with color, got %q", plain)
			}
		})
	}
}

func ansiRE(s string) string {
	for _, code := range []string{dim, red, reset} {
		s = strings.ReplaceAll(s, code, "")
	}
	// The status lines a terminal shows (the model thinking, a tool
	// running) and clears again.
	return strings.ReplaceAll(statusRE.ReplaceAllString(s, ""), clearLine, "")
}

// statusRE matches a status line: after a cleared line, "… " and what
// follows up to the end of the line (which the next clearLine erases).
var statusRE = regexp.MustCompile(`\r\x1b\[K… [^\r\n]*`)

func TestRenderAskPrintsOnlyTheFinalAnswer(t *testing.T) {
	got := render(&renderer{}, kernel.Event{Kind: kernel.EventText, Text: "draft"},
		kernel.Event{Kind: kernel.EventToolStart, Tool: "x"}, kernel.Event{Kind: kernel.EventFinal, Text: "answer"})
	if got != "answer\n" {
		t.Fatalf("%q", got)
	}
}

func TestRenderAskShowsCutAnswer(t *testing.T) {
	r := &renderer{}
	got := render(r, kernel.Event{Kind: kernel.EventText, Text: "The capital"}, kernel.Event{Kind: kernel.EventError, Err: llm.ErrIncomplete})
	if got != "The capital\n" || !r.cut {
		t.Fatalf("%q, cut %v", got, r.cut)
	}
	r = &renderer{}
	got = render(r, kernel.Event{Kind: kernel.EventText, Text: "draft"}, kernel.Event{Kind: kernel.EventToolStart, Tool: "x"},
		kernel.Event{Kind: kernel.EventError, Err: llm.ErrTimeout})
	if got != "" || r.cut {
		t.Fatalf("a failure after a finished step marked as a cut answer: %q", got)
	}
}

func TestExplain(t *testing.T) {
	src := llm.Source{Name: "ds", BaseURL: "https://api.deepseek.com/v1", Model: "deepseek-chat", APIKey: "sk-secret-1234567"}
	tests := []struct {
		err  error
		want []string
	}{
		{llm.ErrNoSource, []string{"OPENAI_BASE_URL", "OPENAI_API_KEY"}},
		{&llm.APIError{Status: 401, Message: "bad key"}, []string{"rejected the API key", `the key of source "ds" in /home/u/.hearth/config.json`}},
		{&llm.KeyRejectedError{Source: "ds", Reason: "401 unauthorized"}, []string{`The provider of source "ds" rejected the API key (401 unauthorized); it is not called again`, "hearth models test ds", "401 unauthorized"}},
		{&llm.APIError{Status: 400, Message: "Model Not Exist"}, []string{"--model", "HEARTH_MODEL", "deepseek-chat"}},
		{errors.New("x"), []string{"x"}},
		{&llm.BudgetError{Scope: "session", Tokens: true, Limit: 5000, Spent: 4990, Estimate: 30}, []string{"session budget of 5000 tokens", "/new", "本会话预算"}},
		{&llm.BudgetError{Scope: "day", Unpriced: true, Currency: "CNY", Source: "backup"}, []string{`source "backup" has no price in CNY`, "没有 CNY 价格"}},
	}
	if got := Explain(&llm.APIError{Status: 403, Message: "no"}, llm.Source{Name: "env"}, "c.json"); !strings.Contains(got, "Check OPENAI_API_KEY") ||
		strings.Contains(got, "c.json") || strings.Contains(got, "not called again") {
		t.Errorf("the env source's refused key: %q", got)
	}
	// A password written into the address is not shown (the message
	// reaches the web UI and API clients too).
	withPass := llm.Source{Name: "proxy", BaseURL: "https://me:hunter2-pass@proxy.example/v1"}
	if got := Explain(&llm.APIError{Status: 401, Message: "bad key"}, withPass, "c.json"); strings.Contains(got, "hunter2") ||
		!strings.Contains(got, "https://proxy.example/v1") {
		t.Errorf("the address's password: %q", got)
	}
	for _, tt := range tests {
		got := Explain(tt.err, src, "/home/u/.hearth/config.json")
		for _, w := range tt.want {
			if !strings.Contains(got, w) {
				t.Errorf("Explain(%v) = %q, missing %q", tt.err, got, w)
			}
		}
		if strings.Contains(got, "secret") {
			t.Errorf("key leaked: %q", got)
		}
	}
}

func TestNotificationNeutralised(t *testing.T) {
	var b strings.Builder
	scr := &screen{out: &b}
	scr.sink(sdk.Injection{Source: "evil\x1b]0;title\x07"}, kernel.Event{Kind: kernel.EventFinal, Text: "hi\x1b[2J\rthere"})
	if got, want := b.String(), "\n[evil^[]0;title^G] hi^[[2J^Mthere\n"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}
