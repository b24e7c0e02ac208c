package main

import (
	"net/http"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// TestChatStatusOnATerminal checks chat's status lines on a terminal:
// that the model is thinking, that a 429 is retried and why, then the
// answer and its usage line with the price.
func TestChatStatusOnATerminal(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Reply{Status: http.StatusTooManyRequests, ErrorMessage: "slow down", RetryAfter: "0.01"},
		llmtest.Reply{Text: "答案。", Usage: &llmtest.Usage{Prompt: 1200, Completion: 300}},
	)
	home := t.TempDir()
	writeConfig(t, home, srv.URL, `, "price": {"input": 0.28, "output": 0.42}`)
	cmd, ptmx, scr, copied := startChat(t, "HOME="+home, "HEARTH_HOME="+home)
	send := typer(t, ptmx)
	scr.waitFor(t, "› ")
	send("hi\r")
	scr.waitFor(t, "1,200 in · 300 out · $0.0005")
	send("\x04")
	waitExit(t, cmd, scr, copied)
	shown := ansi.ReplaceAllString(scr.String(), "")
	for _, want := range []string{"… thinking / 思考中", "… 429 rate limited, retrying in 10 ms", "答案。"} {
		if !strings.Contains(shown, want) {
			t.Errorf("%q not shown:\n%s", want, shown)
		}
	}
	if i, j := strings.Index(shown, "429 rate limited"), strings.Index(shown, "答案。"); i < 0 || j < i {
		t.Errorf("the retry line is not before the answer:\n%s", shown)
	}
}

// TestAskStatusOnATerminal checks that `hearth ask` on a terminal says
// the model is thinking (on stderr) and that the line is gone before the
// answer.
func TestAskStatusOnATerminal(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Reply{Text: "答案。"})
	home := t.TempDir()
	cmd, _, scr, copied := startPTY(t, []string{"HOME=" + home, "HEARTH_HOME=" + home, "OPENAI_BASE_URL=" + srv.URL, "HEARTH_MODEL=test-model"}, "ask", "hi")
	waitExit(t, cmd, scr, copied)
	shown := scr.String()
	i, j := strings.Index(shown, "thinking / 思考中"), strings.Index(shown, "答案。")
	if i < 0 || j < i {
		t.Fatalf("no thinking line before the answer:\n%q", shown)
	}
	if !strings.Contains(shown[i:j], clearLineSeq) {
		t.Fatalf("the thinking line was not cleared before the answer:\n%q", shown)
	}
}

// clearLineSeq returns the cursor to the start of the line and erases it.
const clearLineSeq = "\r\x1b[K"
