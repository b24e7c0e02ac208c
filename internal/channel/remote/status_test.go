package remote_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/internal/channel/terminal"
	"github.com/hearth-agent/hearth/internal/llm"
	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// TestAskThroughTheDaemonShowsRetryAndUsage checks that a retry in the
// daemon and the turn's usage and cost reach `hearth ask --usage` on
// stderr.
func TestAskThroughTheDaemonShowsRetryAndUsage(t *testing.T) {
	d := newDaemon(t, []llmtest.Reply{
		{Status: http.StatusTooManyRequests, ErrorMessage: "slow down", RetryAfter: "0.01"},
		{Text: "你好！", Usage: &llmtest.Usage{Prompt: 1200, Completion: 300}},
	})
	src, _ := d.app.Sources.Current()
	src.Price = &llm.Price{Input: 0.28, Output: 0.42}
	d.app.Sources.Put(src)
	var out, errOut strings.Builder
	err := terminal.Ask(context.Background(), d.agent(), "hi", &terminal.Options{
		In: strings.NewReader(""), Out: &out, Err: &errOut, Usage: true})
	if err != nil {
		t.Fatalf("%v: %s", err, errOut.String())
	}
	if out.String() != "你好！\n" {
		t.Fatalf("out %q", out.String())
	}
	for _, want := range []string{"… 429 rate limited, retrying in 10 ms\n", "1,200 in · 300 out · $0.0005\n"} {
		if !strings.Contains(errOut.String(), want) {
			t.Errorf("%q not in stderr %q", want, errOut.String())
		}
	}
}
