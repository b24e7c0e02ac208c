package llm

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// The Anthropic wire against @copilotkit/aimock, a third-party mock of
// providers' APIs (pinned in testdata/aimock, installed by .ci/run):
// streamed tool calls and usage, thinking that must come back signed,
// streams dropped mid-answer, and its chaos faults (429 with
// Retry-After, a malformed body, a dropped connection).

const aimockInstall = "npm ci --prefix testdata/aimock"

// startAimock runs aimock with testdata/aimock/anthropic.json on a free
// loopback port and returns its base URL. --strict makes it refuse what
// Anthropic refuses (thinking in a tool loop without the signed thinking
// block) and any request no fixture matches. Without Node.js or the package
// it skips, naming the command that installs it, except in CI, where its
// absence is a failure.
func startAimock(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("../../testdata/aimock")
	if err != nil {
		t.Fatal(err)
	}
	cli := filepath.Join(dir, "node_modules", "@copilotkit", "aimock", "dist", "cli.js")
	node, nodeErr := exec.LookPath("node")
	_, modErr := os.Stat(cli)
	if nodeErr != nil || modErr != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("node or testdata/aimock/node_modules is missing: .ci/run should have run `%s` (node: %v, package: %v)", aimockInstall, nodeErr, modErr)
		}
		t.Skipf("@copilotkit/aimock is not installed: run `%s` (with Node.js)", aimockInstall)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, node, cli, "-p", "0", "-h", "127.0.0.1", "--strict", "-f", filepath.Join(dir, "anthropic.json"), "--log-level", "info")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		cmd.Wait()
	})
	listening := regexp.MustCompile(`listening on (http://127\.0\.0\.1:\d+)`)
	sc := bufio.NewScanner(out)
	var log []string
	for sc.Scan() {
		log = append(log, sc.Text())
		if m := listening.FindStringSubmatch(sc.Text()); m != nil {
			go func() { // keep draining, so the server never blocks on its log
				for sc.Scan() {
				}
			}()
			return m[1]
		}
	}
	t.Fatalf("aimock did not start:\n%s", strings.Join(log, "\n"))
	return ""
}

// chaosTransport asks aimock for a chaos fault on the first faulty
// requests, through its per-request headers.
type chaosTransport struct {
	header string // e.g. x-aimock-chaos-ratelimit
	faulty int64
	sent   atomic.Int64
}

func (c *chaosTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if c.sent.Add(1) <= c.faulty {
		r = r.Clone(r.Context())
		r.Header.Set(c.header, "1")
	}
	return http.DefaultTransport.RoundTrip(r)
}

func aimockClient(url string) *Client {
	c := anthClient(url)
	c.HTTP = &http.Client{Transport: http.DefaultTransport}
	return c
}

func TestAimockAnthropic(t *testing.T) {
	url := startAimock(t)
	user := func(text string) []Message {
		return []Message{{Role: "system", Content: "You are Hearth."}, {Role: "user", Content: text}}
	}

	t.Run("text", func(t *testing.T) {
		var streamed strings.Builder
		deltas := 0
		resp, err := aimockClient(url).Chat(context.Background(), &Request{Messages: user("hello")}, func(d Delta) {
			deltas++
			streamed.WriteString(d.Content)
		})
		if err != nil {
			t.Fatal(err)
		}
		if resp.Content != "Hello from aimock, streamed in pieces." || streamed.String() != resp.Content || deltas < 2 || resp.FinishReason != "stop" {
			t.Fatalf("resp %+v, %d deltas", resp, deltas)
		}
	})

	t.Run("tool call round trip", func(t *testing.T) {
		c := aimockClient(url)
		msgs := user("weather in Paris?")
		resp, err := c.Chat(context.Background(), &Request{Messages: msgs, Tools: []ToolSpec{weatherTool}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(resp.ToolCalls) != 1 || resp.ToolCalls[0].Function.Name != "weather__now" || !strings.HasPrefix(resp.ToolCalls[0].ID, "toolu_") ||
			resp.ToolCalls[0].Function.Arguments != `{"city":"Paris","unit":"celsius"}` || resp.Content != "Checking the weather." ||
			resp.FinishReason != "tool_calls" {
			t.Fatalf("resp %+v", resp)
		}
		if resp.Usage != (Usage{PromptTokens: 42, CompletionTokens: 17, TotalTokens: 59}) {
			t.Fatalf("usage %+v", resp.Usage)
		}
		msgs = append(msgs, Message{Role: "assistant", Content: resp.Content, ToolCalls: resp.ToolCalls},
			Message{Role: "tool", ToolCallID: resp.ToolCalls[0].ID, Content: "sunny, 21C"})
		resp, err = c.Chat(context.Background(), &Request{Messages: msgs, Tools: []ToolSpec{weatherTool}}, nil)
		if err != nil || resp.Content != "It is sunny in Paris, 21 degrees." || resp.Usage.PromptTokens != 80 {
			t.Fatalf("resp %+v, err %v", resp, err)
		}
	})

	// aimock checks Anthropic's rule for thinking in tool loops: the
	// assistant message that called tools must come back beginning with
	// its signed thinking block.
	t.Run("thinking sent back signed", func(t *testing.T) {
		c := aimockClient(url)
		c.ThinkingBudget = 1024
		clock := NewToolSpec("clock__now", "The time.", json.RawMessage(`{"type":"object"}`))
		msgs := user("think, then call the clock")
		resp, err := c.Chat(context.Background(), &Request{Messages: msgs, Tools: []ToolSpec{clock}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if resp.Reasoning != "The user wants the time; the clock tool tells it." || len(resp.ToolCalls) != 1 ||
			resp.ToolCalls[0].Function.Arguments != "{}" || !strings.Contains(string(resp.ThinkingBlocks), `"signature":"`) {
			t.Fatalf("resp %+v, thinking blocks %s", resp, resp.ThinkingBlocks)
		}
		call := Message{Role: "assistant", ToolCalls: resp.ToolCalls, ThinkingBlocks: resp.ThinkingBlocks}
		msgs = append(msgs, call, Message{Role: "tool", ToolCallID: resp.ToolCalls[0].ID, Content: "12:00"})
		resp, err = c.Chat(context.Background(), &Request{Messages: msgs, Tools: []ToolSpec{clock}}, nil)
		if err != nil || resp.Content != "It is noon." {
			t.Fatalf("resp %+v, err %v", resp, err)
		}
		// Without the signed block, aimock refuses thinking, as Anthropic
		// does; Hearth then does not ask for thinking.
		msgs[len(msgs)-2].ThinkingBlocks = nil
		if resp, err = c.Chat(context.Background(), &Request{Messages: msgs, Tools: []ToolSpec{clock}}, nil); err != nil || resp.Content != "It is noon." {
			t.Fatalf("resp %+v, err %v", resp, err)
		}
	})

	t.Run("dropped mid tool call is retried", func(t *testing.T) {
		var retries []Retry
		resp, err := aimockClient(url).Chat(context.Background(), &Request{Messages: user("drop mid call"), Tools: []ToolSpec{weatherTool}}, func(d Delta) {
			if d.Retry != nil {
				retries = append(retries, *d.Retry)
			}
		})
		if err != nil || len(resp.ToolCalls) != 1 || resp.ToolCalls[0].Function.Arguments != `{"city":"Lima"}` ||
			len(retries) != 1 || retries[0].Reason != "answer cut off" {
			t.Fatalf("resp %+v, err %v, retries %+v", resp, err, retries)
		}
	})

	t.Run("dropped after text is incomplete", func(t *testing.T) {
		var streamed string
		resp, err := aimockClient(url).Chat(context.Background(), &Request{Messages: user("drop after text")}, func(d Delta) { streamed += d.Content })
		if !errors.Is(err, ErrIncomplete) || resp == nil || resp.Content == "" || resp.Content != streamed ||
			!strings.HasPrefix("A long answer that is cut off in the middle.", resp.Content) {
			t.Fatalf("resp %+v, err %v", resp, err)
		}
	})

	t.Run("chaos 429 Retry-After honoured", func(t *testing.T) {
		c := aimockClient(url)
		c.HTTP.Transport = &chaosTransport{header: "x-aimock-chaos-ratelimit", faulty: 1}
		var retries []Retry
		start := time.Now()
		resp, err := c.Chat(context.Background(), &Request{Messages: user("hello")}, func(d Delta) {
			if d.Retry != nil {
				retries = append(retries, *d.Retry)
			}
		})
		if err != nil || resp.Content != "Hello from aimock, streamed in pieces." {
			t.Fatalf("resp %+v, err %v", resp, err)
		}
		if len(retries) != 1 || retries[0].Reason != "429 rate limited" || retries[0].After != time.Second {
			t.Fatalf("retries %+v", retries)
		}
		if waited := time.Since(start); waited < time.Second {
			t.Fatalf("retried after %v, before aimock's Retry-After of 1s", waited)
		}
	})

	t.Run("chaos malformed retried once", func(t *testing.T) {
		c := aimockClient(url)
		c.HTTP.Transport = &chaosTransport{header: "x-aimock-chaos-malformed", faulty: 1}
		resp, err := c.Chat(context.Background(), &Request{Messages: user("hello")}, nil)
		if err != nil || resp.Content != "Hello from aimock, streamed in pieces." {
			t.Fatalf("resp %+v, err %v", resp, err)
		}
		c = aimockClient(url)
		c.HTTP.Transport = &chaosTransport{header: "x-aimock-chaos-malformed", faulty: 2}
		if _, err := c.Chat(context.Background(), &Request{Messages: user("hello")}, nil); !errors.Is(err, ErrMalformed) {
			t.Fatalf("err %v", err)
		}
	})

	t.Run("chaos disconnect retried", func(t *testing.T) {
		c := aimockClient(url)
		tr := &chaosTransport{header: "x-aimock-chaos-disconnect", faulty: 2}
		c.HTTP.Transport = tr
		resp, err := c.Chat(context.Background(), &Request{Messages: user("hello")}, nil)
		if err != nil || resp.Content != "Hello from aimock, streamed in pieces." || tr.sent.Load() != 3 {
			t.Fatalf("resp %+v, err %v, %d requests", resp, err, tr.sent.Load())
		}
	})

	t.Run("chaos drop 500 retried", func(t *testing.T) {
		c := aimockClient(url)
		tr := &chaosTransport{header: "x-aimock-chaos-drop", faulty: 4}
		c.HTTP.Transport = tr
		_, err := c.Chat(context.Background(), &Request{Messages: user("hello")}, nil)
		var apiErr *APIError
		if !errors.As(err, &apiErr) || apiErr.Status != 500 || !strings.Contains(err.Error(), "Chaos: request dropped") || tr.sent.Load() != 4 {
			t.Fatalf("err %v after %d requests", err, tr.sent.Load())
		}
	})
}
