package main

import (
	"bytes"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// TestAskUsage checks `hearth ask --usage`: the answer alone on stdout,
// the tokens and the cost at the source's price on stderr; without
// --usage, no usage line.
func TestAskUsage(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.SetFallback(llmtest.Reply{Text: "ok", Usage: &llmtest.Usage{Prompt: 1200, Completion: 300, Cached: 1000}})
	home := t.TempDir()
	writeConfig(t, home, srv.URL, `, "price": {"input": 0.28, "output": 0.42, "cached_input": 0.028}`)
	env := []string{"HEARTH_HOME=" + home}
	stdout, stderr, code := hearth(t, env, "", "ask", "--usage", "hi")
	// 200 fresh at 0.28, 1000 cached at 0.028, 300 out at 0.42 per million.
	if code != 0 || stdout != "ok\n" || !strings.Contains(stderr, "1,200 in · 1,000 cached · 300 out · $0.0002\n") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	stdout, stderr, code = hearth(t, env, "", "ask", "hi")
	if code != 0 || stdout != "ok\n" || strings.Contains(stderr, " in · ") {
		t.Fatalf("without --usage: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// With stdout and stderr one file (2>&1, a log), the answer comes whole
// before the usage line: the key masking holds back the answer's tail,
// and used to let the usage line in, in the middle of a character.
func TestAskUsageAfterTheAnswerInOneFile(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.SetFallback(llmtest.Reply{Text: "你好！我是测试模型的回答。", Usage: &llmtest.Usage{Prompt: 1000, Completion: 200, Cached: 600}})
	home := t.TempDir()
	writeConfig(t, home, srv.URL, `, "api_key": "sk-test-0123456789abcdef", "price": {"input": 2, "output": 8, "cached_input": 0.5, "currency": "CNY"}`)
	cmd := exec.Command(os.Args[0], "ask", "--usage", "你好")
	cmd.Env = []string{"HEARTH_TEST_MAIN=1", childRace, "PATH=" + os.Getenv("PATH"), "HOME=" + home, "HEARTH_HOME=" + home}
	var both bytes.Buffer
	cmd.Stdout, cmd.Stderr = &both, &both
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v\n%s", err, both.String())
	}
	out := both.String()
	i := strings.Index(out, "你好！我是测试模型的回答。\n")
	j := strings.Index(out, "1,000 in · 600 cached · 200 out · ")
	if i < 0 || j < i || !utf8.ValidString(out) {
		t.Fatalf("the answer is not whole before the usage line:\n%q", out)
	}
}

// TestChatShowsUsage checks the usage line after each answer in chat;
// an unknown model's price is left out, and a plain stream shows no
// thinking line.
func TestChatShowsUsage(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.SetFallback(llmtest.Reply{Text: "ok", Usage: &llmtest.Usage{Prompt: 10, Completion: 2}})
	env := []string{"OPENAI_BASE_URL=" + srv.URL, "HEARTH_MODEL=some-local-model", "HEARTH_HOME=" + t.TempDir()}
	stdout, stderr, _ := hearth(t, env, "hi\nagain\n", "chat")
	if got := strings.Count(stdout, "ok\n10 in · 2 out\n"); got != 2 {
		t.Fatalf("want two answers each with its usage line; stdout %q, stderr %q", stdout, stderr)
	}
	if strings.Contains(stdout, "thinking") || strings.Contains(stdout, "$") {
		t.Fatalf("stdout %q", stdout)
	}
}

// TestRetryShownAndLogged checks that a 429 answered by a retry is told
// on stderr in ask, and that -v logs each provider request (status,
// model, counts) and no key.
func TestRetryShownAndLogged(t *testing.T) {
	const key = "sk-live-Zq3xW9vB7nM2kL5pR8tYa1b2c3d4"
	srv := llmtest.NewServer(t,
		llmtest.Reply{Status: http.StatusTooManyRequests, ErrorMessage: "rate limit for " + key, RetryAfter: "0.01"},
		llmtest.Reply{Text: "ok"})
	env := []string{"OPENAI_BASE_URL=" + srv.URL, "OPENAI_API_KEY=" + key, "HEARTH_MODEL=m1", "HEARTH_HOME=" + t.TempDir()}
	stdout, stderr, code := hearth(t, env, "", "ask", "hi")
	if code != 0 || stdout != "ok\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "… 429 rate limited, retrying in 10 ms\n") {
		t.Errorf("no retry line in stderr %q", stderr)
	}
	if strings.Contains(stderr, "provider request") {
		t.Errorf("requests logged without -v: %q", stderr)
	}

	// The log and the messages reach stderr through writers of their own,
	// so with -v their lines may interleave: only the log is checked.
	srv.Push(llmtest.Reply{Status: http.StatusTooManyRequests, ErrorMessage: "rate limit for " + key, RetryAfter: "0.01"},
		llmtest.Reply{Text: "ok"})
	stdout, stderr, code = hearth(t, env, "", "ask", "-v", "hi")
	if code != 0 || stdout != "ok\n" {
		t.Fatalf("-v: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	var requests []string
	for _, l := range strings.Split(stderr, "\n") {
		if i := strings.Index(l, `level=DEBUG msg="provider request"`); i >= 0 {
			requests = append(requests, l[i:])
		}
	}
	if len(requests) != 2 || !strings.Contains(requests[0], "status=429") || !strings.Contains(requests[1], "status=200") ||
		!strings.Contains(requests[0], `error="provider answered 429: rate limit for `) {
		t.Fatalf("provider request lines %q", requests)
	}
	for _, part := range []string{"method=POST", "url=" + srv.URL + "/chat/completions", "model=m1", "messages=", "tools=", "duration="} {
		if !strings.Contains(requests[1], part) {
			t.Errorf("request line lacks %s: %s", part, requests[1])
		}
	}
	if strings.Contains(stderr, key) || strings.Contains(stdout, key) {
		t.Fatalf("the key was printed: %q", stderr)
	}
}

// TestVerboseLogsToolCalls checks that -v logs each tool call with its
// outcome and duration.
func TestVerboseLogsToolCalls(t *testing.T) {
	srv := llmtest.NewServer(t, timeToolScript()...)
	env := []string{"OPENAI_BASE_URL=" + srv.URL, "HEARTH_MODEL=test-model", "HEARTH_HOME=" + t.TempDir()}
	stdout, stderr, code := hearth(t, env, "", "ask", "-v", "现在几点？")
	if code != 0 || stdout != "现在是北京时间下午三点。\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	i := strings.Index(stderr, `level=DEBUG msg="tool call"`)
	if i < 0 {
		t.Fatalf("no tool call logged: %q", stderr)
	}
	line, _, _ := strings.Cut(stderr[i:], "\n")
	for _, want := range []string{"tool=time__now", "call=call_time_1", "outcome=ok", "duration="} {
		if !strings.Contains(line, want) {
			t.Errorf("tool call line lacks %s: %s", want, line)
		}
	}
}

// TestRetryNoticeOnItsOwnLine: a retry notice after a step that streamed
// text or reasoning (and called a tool) starts a line of its own, and
// the answer goes on on a fresh line: in chat on a plain stream, and on
// ask's stderr, where the reasoning line was still open.
func TestRetryNoticeOnItsOwnLine(t *testing.T) {
	const notice = "… 500 internal server error, retrying in 10 ms\n"
	toolCall := []llmtest.Call{{ID: "c1", Name: "time__now", Arguments: `{"zone":"Asia/Shanghai"}`}}
	srv := llmtest.NewServer(t,
		llmtest.Reply{Text: "Let me check the time", ToolCalls: toolCall},
		llmtest.Reply{Status: http.StatusInternalServerError, ErrorMessage: "boom", RetryAfter: "0.01"},
		llmtest.Reply{Text: "现在是下午三点。"})
	env := []string{"OPENAI_BASE_URL=" + srv.URL, "HEARTH_MODEL=test-model", "HEARTH_HOME=" + t.TempDir()}
	stdout, stderr, code := hearth(t, env, "what time is it?\n", "chat")
	if code != 0 {
		t.Fatalf("chat: %d %q %q", code, stdout, stderr)
	}
	i := strings.Index(stdout, "\n"+notice)
	if !strings.Contains(stdout, "Let me check the time\n→ time__now") || i < 0 || !strings.HasPrefix(stdout[i+1+len(notice):], "现在是下午三点。\n") {
		t.Errorf("chat:\n%s", stdout)
	}

	srv.Push(llmtest.Reply{Reasoning: "I should look", ToolCalls: toolCall},
		llmtest.Reply{Status: http.StatusInternalServerError, ErrorMessage: "boom", RetryAfter: "0.01"},
		llmtest.Reply{Reasoning: "ok then", Text: "现在是下午三点。"})
	stdout, stderr, code = hearth(t, env, "", "ask", "--reasoning", "what time is it?")
	if code != 0 || stdout != "现在是下午三点。\n" || !strings.HasSuffix(stderr, "💭 I should look\n"+notice+"💭 ok then\n") {
		t.Errorf("ask: %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}
