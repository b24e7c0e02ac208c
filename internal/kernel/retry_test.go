package kernel

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hearth-agent/hearth/internal/llm"
	"github.com/hearth-agent/hearth/internal/redact"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// TestRetryEvent checks that a model call tried again is told as an
// EventRetry, before the answer's text, and that tool calls are logged
// at debug level with their outcome and duration.
func TestRetryEvent(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Reply{Status: http.StatusTooManyRequests, ErrorMessage: "slow down", RetryAfter: "0.01"},
		llmtest.Reply{ToolCalls: []llmtest.Call{{ID: "c1", Name: "w__echo", Arguments: `{}`}}},
		llmtest.Reply{Text: "done"},
	)
	logs := &logBuffer{}
	k := New(&llm.Client{BaseURL: srv.URL, Model: "test", Backoff: time.Millisecond}, nil,
		&Options{Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	t.Cleanup(func() { k.Close() })
	load(t, k, "w", func(s *sdk.PluginSDK) error {
		return sdk.AddTool(s, sdk.ToolDef{Name: "echo", Description: "echo", Effect: sdk.EffectRead},
			func(context.Context, *sdk.ToolContext, struct{}) (string, error) { return "ok", nil })
	})
	var kinds []EventKind
	var retry Event
	out := k.Ask(context.Background(), Input{
		Injection: sdk.Injection{Channel: "test", Text: "hi"},
		OnEvent: func(ev Event) {
			kinds = append(kinds, ev.Kind)
			if ev.Kind == EventRetry {
				retry = ev
			}
		},
	})
	if out.Err != nil || out.Text != "done" {
		t.Fatalf("outcome %+v", out)
	}
	if len(kinds) == 0 || kinds[0] != EventRetry {
		t.Fatalf("events %v: want EventRetry first", kinds)
	}
	if retry.Retry == nil || retry.Retry.Reason != "429 rate limited" || retry.Retry.After != 10*time.Millisecond ||
		retry.Text != "429 rate limited, retrying in 10 ms" {
		t.Errorf("retry event %+v (%+v)", retry, retry.Retry)
	}
	var line string
	for _, l := range strings.Split(logs.String(), "\n") {
		if strings.Contains(l, `msg="tool call"`) {
			line = l
		}
	}
	for _, want := range []string{"level=DEBUG", "tool=w__echo", "call=c1", "outcome=ok", "duration="} {
		if !strings.Contains(line, want) {
			t.Errorf("tool call log %q lacks %s", line, want)
		}
	}
}

// TestRetryEventMasked checks that a retry's text goes through the
// kernel's masking like every other event's.
func TestRetryEventMasked(t *testing.T) {
	const key = "sk-proj-Zq3xW9vB7nM2kL5pR8tYabcdef"
	var secrets redact.Secrets
	secrets.Add(key)
	var got Event
	emit := maskEvents(&secrets, func(ev Event) { got = ev })
	r := &llm.Retry{Attempt: 1, After: time.Second, Reason: "failed " + key}
	emit(Event{Kind: EventRetry, Text: r.String(), Retry: r})
	if strings.Contains(got.Text, key) || got.Retry == nil || strings.Contains(got.Retry.Reason, key) {
		t.Fatalf("retry event shows the key: %q (%+v)", got.Text, got.Retry)
	}
	if r.Reason != "failed "+key {
		t.Fatal("masking changed the provider's own Retry")
	}
}
