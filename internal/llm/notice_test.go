package llm

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hearth-agent/hearth/sdk/llmtest"
)

func TestRetryNoticeBeforeTheWait(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Reply{Status: http.StatusTooManyRequests, ErrorMessage: "slow down", RetryAfter: "0.01"},
		llmtest.Reply{Status: http.StatusServiceUnavailable, ErrorMessage: "busy"},
		llmtest.Reply{Text: "ok"},
	)
	var retries []Retry
	var text strings.Builder
	resp, err := client(srv).Chat(context.Background(), &Request{}, func(d Delta) {
		if d.Retry != nil {
			if d.Content != "" || d.Reasoning != "" {
				t.Errorf("a retry delta carries text: %+v", d)
			}
			retries = append(retries, *d.Retry)
			return
		}
		text.WriteString(d.Content)
	})
	if err != nil || resp.Content != "ok" || text.String() != "ok" {
		t.Fatalf("resp %+v, text %q, err %v", resp, text.String(), err)
	}
	if len(retries) != 2 {
		t.Fatalf("retries = %+v, want two", retries)
	}
	if r := retries[0]; r.Attempt != 1 || r.Reason != "429 rate limited" || r.After != 10*time.Millisecond {
		t.Errorf("first retry = %+v", r)
	}
	if r := retries[1]; r.Attempt != 2 || r.Reason != "503 service unavailable" || r.After <= 0 {
		t.Errorf("second retry = %+v", r)
	}
}

func TestRetryString(t *testing.T) {
	for _, tc := range []struct {
		r    Retry
		want string
	}{
		{Retry{Reason: "429 rate limited", After: 2 * time.Second}, "429 rate limited, retrying in 2 s"},
		{Retry{Reason: "timed out", After: 1600 * time.Millisecond}, "timed out, retrying in 2 s"},
		{Retry{Reason: "answer cut off", After: 250 * time.Millisecond}, "answer cut off, retrying in 250 ms"},
	} {
		if got := tc.r.String(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.r, got, tc.want)
		}
	}
}

func TestNoRetryNoticeWhenNotRetried(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Reply{Status: http.StatusUnauthorized, ErrorMessage: "bad key"})
	_, err := client(srv).Chat(context.Background(), &Request{}, func(d Delta) {
		if d.Retry != nil {
			t.Errorf("retry notice for a failure that is not retried: %+v", d.Retry)
		}
	})
	if err == nil {
		t.Fatal("no error")
	}
}

func TestRequestLogAtDebug(t *testing.T) {
	const key = "sk-secret-key-0123456789abcdef"
	srv := llmtest.NewServer(t,
		llmtest.Reply{Status: http.StatusTooManyRequests, ErrorMessage: "slow down, " + key, RetryAfter: "0.01"},
		llmtest.Reply{Text: "ok"},
	)
	var buf bytes.Buffer
	c := client(srv)
	c.APIKey = key
	c.Logger = slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	req := &Request{Model: "m1", Messages: []Message{{Role: "user", Content: "hi"}},
		Tools: []ToolSpec{{Type: "function", Function: FunctionSpec{Name: "t"}}}}
	if _, err := c.Chat(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	log := buf.String()
	lines := strings.Split(strings.TrimSpace(log), "\n")
	if len(lines) != 2 {
		t.Fatalf("want a line per request, got:\n%s", log)
	}
	for i, want := range []string{"status=429", "status=200"} {
		for _, part := range []string{"level=DEBUG", `msg="provider request"`, "method=POST",
			"url=" + srv.URL + "/chat/completions", "model=m1", "messages=1", "tools=1", want, "duration="} {
			if !strings.Contains(lines[i], part) {
				t.Errorf("line %d lacks %s: %s", i, part, lines[i])
			}
		}
	}
	if strings.Contains(log, key) {
		t.Fatalf("the key is in the log:\n%s", log)
	}
}

func TestRequestLogQuietAboveDebug(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Reply{Text: "ok"})
	var buf bytes.Buffer
	c := client(srv)
	c.Logger = slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelInfo}))
	if _, err := c.Chat(context.Background(), &Request{}, nil); err != nil {
		t.Fatal(err)
	}
	if buf.Len() != 0 {
		t.Fatalf("logged above debug: %s", buf.String())
	}
}

func TestSafeURL(t *testing.T) {
	got := safeURL("https://user:pw@example.com/v1/chat/completions?key=abc#x")
	if got != "https://example.com/v1/chat/completions" {
		t.Fatalf("safeURL = %q", got)
	}
}
