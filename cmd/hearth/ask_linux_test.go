package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// hearth ask --reasoning on a terminal: a step whose reasoning ends in a
// tool call keeps its reasoning line; the status line drawn for the tool
// comes on the next line, not over it.
func TestAskReasoningLineSurvivesATool(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Reply{Reasoning: "I should look at the clock", ToolCalls: []llmtest.Call{{ID: "c1", Name: "time__now", Arguments: `{"zone":"Asia/Shanghai"}`}}},
		llmtest.Reply{Text: "现在是下午三点。"})
	home := t.TempDir()
	cmd, _, scr, copied := startPTY(t, []string{"HOME=" + home, "HEARTH_HOME=" + home, "OPENAI_BASE_URL=" + srv.URL, "HEARTH_MODEL=test-model"},
		"ask", "--reasoning", "what time is it?")
	waitExit(t, cmd, scr, copied)
	shown := scr.String()
	i := strings.Index(shown, "I should look at the clock")
	if i < 0 || !strings.Contains(shown, "现在是下午三点。") {
		t.Fatalf("screen:\n%q", shown)
	}
	after := regexp.MustCompile(`\x1b\[[0-9;]*m`).ReplaceAllString(shown[i+len("I should look at the clock"):], "")
	if !strings.HasPrefix(after, "\r\n") && !strings.HasPrefix(after, "\n") {
		t.Fatalf("the reasoning line is not ended before what follows: %q", after[:min(len(after), 40)])
	}
}
