package kernel

import (
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/hearth-agent/hearth/internal/llm"
	"github.com/hearth-agent/hearth/sdk/llmtest"
)

func TestEstimateTokensAndWindows(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want int
	}{{"", 0}, {"abcd", 1}, {"abcde", 2}, {"你好世界", 4}, {"你好 world", 4}} {
		t.Run(strconv.Quote(tc.s), func(t *testing.T) {
			if got := EstimateTokens(tc.s); got != tc.want {
				t.Errorf("EstimateTokens(%q) = %d, want %d", tc.s, got, tc.want)
			}
		})
	}
	for model, want := range map[string]int{"deepseek-chat": 128000, "deepseek-reasoner": 128000, "deepseek-v9": 128000, "gpt-4o-mini": 128000,
		"Qwen/Qwen2.5-7B-Instruct": 32768, "moonshot-v1-8k": 8192, "glm-4-flash": 128000, "glm-4-plus": 131072,
		"claude-sonnet-4-5-20250929": 200000, "llama3:8b": DefaultContextWindow} {
		t.Run(model, func(t *testing.T) {
			if got := WindowFor(model); got != want {
				t.Errorf("WindowFor(%q) = %d, want %d", model, got, want)
			}
		})
	}
}

// One oversized paste is refused, not stored, and the session goes on.
func TestOversizedInputIsRefusedAndTheSessionStaysUsable(t *testing.T) {
	e := newEnv(t, Options{ContextWindow: 2000}, llmtest.Reply{Text: "ok"})
	out := e.ask(t, strings.Repeat("日志行 ", 3000))
	if !errors.Is(out.Err, ErrInputTooLong) || strings.Contains(out.Err.Error(), "may not exist") {
		t.Fatalf("outcome %+v", out)
	}
	// No model is named: the message does not show an empty name.
	if !strings.Contains(out.Err.Error(), "and the model takes about 2000") {
		t.Fatalf("message: %v", out.Err)
	}
	if n := len(e.srv.Requests()); n != 0 {
		t.Fatalf("%d requests for a message that cannot fit", n)
	}
	if out := e.ask(t, "hi"); out.Err != nil || out.Text != "ok" {
		t.Fatalf("next turn: %+v", out)
	}
	for _, m := range e.srv.Requests()[0].Messages {
		if strings.Contains(m["content"].(string), "日志行") {
			t.Fatal("the refused message was sent later")
		}
	}
}

// Older turns are compacted (compact.go) when the history would not fit;
// what is sent starts at a user message after the system prompt and the
// summary.
func TestHistoryIsTrimmedToTheWindow(t *testing.T) {
	e := newEnv(t, Options{ContextWindow: 2000})
	var mu sync.Mutex
	var turns []llmtest.Request
	e.srv.SetFallback(llmtest.Reply{Func: func(r llmtest.Request) llmtest.Reply {
		if isSummaryRequest(r) {
			return llmtest.Reply{Text: "the user pasted x's"}
		}
		mu.Lock()
		turns = append(turns, r)
		mu.Unlock()
		return llmtest.Reply{Text: "ok"}
	}})
	long := strings.Repeat("x", 2400) // about 600 tokens
	for i := 0; i < 5; i++ {
		if out := e.ask(t, long); out.Err != nil || out.Text != "ok" {
			t.Fatalf("turn %d: %+v", i, out)
		}
	}
	last := turns[4]
	var users int
	for _, m := range last.Messages {
		if m["role"] == "user" {
			users++
		}
	}
	if users < 1 || users > 2 {
		t.Fatalf("%d user messages sent with a 2000-token window", users)
	}
	if last.Messages[0]["role"] != "system" || last.Messages[1]["role"] != "system" || last.Messages[2]["role"] != "user" {
		t.Fatalf("the request does not start with the prompt, the summary and a user message: %v %v", last.Messages[1]["role"], last.Messages[2]["role"])
	}
}

// A provider's "context length exceeded" is retried once without history;
// when that fails too, the error says so without blaming the model name,
// and the message is not sent again.
func TestProviderContextErrorRetriesWithoutHistory(t *testing.T) {
	tooLong := llmtest.Reply{Status: 400, ErrorMessage: "This model's maximum context length is 65536 tokens. However, you requested 70000 tokens. Please reduce the length of the messages."}
	e := newEnv(t, Options{ContextWindow: 100000},
		llmtest.Reply{Text: "first answer"},
		tooLong, llmtest.Reply{Text: "answered without history"},
		tooLong, tooLong,
		llmtest.Reply{Text: "still here"},
	)
	e.ask(t, "first question")
	if out := e.ask(t, "second"); out.Err != nil || out.Text != "answered without history" {
		t.Fatalf("retry: %+v", out)
	}
	reqs := e.srv.Requests()
	if len(reqs[1].Messages) <= len(reqs[2].Messages) || reqs[2].Messages[1]["content"] != "second" {
		t.Fatalf("retry kept the history: %v", reqs[2].Messages)
	}

	out := e.ask(t, "a huge paste")
	var apiErr *llm.APIError
	if !errors.Is(out.Err, ErrContextTooLong) || errors.As(out.Err, &apiErr) || !strings.Contains(out.Err.Error(), "maximum context length") ||
		!strings.Contains(out.Err.Error(), "(the model, about 100000 tokens") {
		t.Fatalf("outcome %+v", out)
	}
	if out := e.ask(t, "and now?"); out.Text != "still here" {
		t.Fatalf("next turn: %+v", out)
	}
	reqs = e.srv.Requests()
	for _, m := range reqs[len(reqs)-1].Messages {
		if m["content"] == "a huge paste" {
			t.Fatal("the message the model could not take was sent again")
		}
	}
}
