package llm

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// fallbackSources is deepseek (at first) falling back to qwen; deepseek
// retries once, a millisecond later.
func fallbackSources(t *testing.T, first, second Source) *Sources {
	t.Helper()
	s, err := NewSources([]Source{first, second}, first.Name)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetFallback([]string{second.Name}); err != nil {
		t.Fatal(err)
	}
	s.sources[first.Name].Backoff, s.sources[first.Name].MaxRetries = time.Millisecond, 1
	return s
}

// chatNotices runs one call and returns its answer and the fallback
// notices it gave.
func chatNotices(s *Sources, text string) (*Response, []Retry, error) {
	var notices []Retry
	resp, err := s.Chat(context.Background(), &Request{Messages: userMsg(text)}, func(d Delta) {
		if d.Retry != nil && d.Retry.Source != "" {
			notices = append(notices, *d.Retry)
		}
	})
	return resp, notices, err
}

func TestFallbackOnServerErrors(t *testing.T) {
	for _, c := range []struct {
		status int
		reason string
	}{
		{http.StatusInternalServerError, "deepseek: 500 internal server error"},
		{http.StatusTooManyRequests, "deepseek: 429 rate limited"},
	} {
		bad := failing(t, c.status)
		good := llmtest.NewServer(t, llmtest.Reply{Text: "answered by qwen", Usage: &llmtest.Usage{Prompt: 10, Completion: 3}})
		s := fallbackSources(t, Source{Name: "deepseek", BaseURL: bad.URL, Model: "deepseek-chat"},
			Source{Name: "qwen", BaseURL: good.URL, Model: "qwen-plus"})
		resp, notices, err := chatNotices(s, "hello")
		if err != nil || resp.Content != "answered by qwen" || resp.Source != "qwen" || resp.Fallback != c.reason {
			t.Fatalf("%d: resp %+v, err %v", c.status, resp, err)
		}
		if len(notices) != 1 || notices[0].String() != c.reason+"; answering with qwen" {
			t.Fatalf("%d: notices %+v", c.status, notices)
		}
		if n := bad.Requests(); n != 2 { // the first try and its one retry
			t.Fatalf("%d: deepseek got %d requests", c.status, n)
		}
		if s.CurrentSource() != "deepseek" {
			t.Fatalf("the fallback switched the current source to %q", s.CurrentSource())
		}
	}
}

func TestFallbackNotForBadRequests(t *testing.T) {
	bad := llmtest.NewServer(t, llmtest.Reply{Status: http.StatusBadRequest, ErrorMessage: "bad request"})
	good := llmtest.NewServer(t, llmtest.Reply{Text: "no"})
	s := fallbackSources(t, Source{Name: "deepseek", BaseURL: bad.URL}, Source{Name: "qwen", BaseURL: good.URL})
	if _, _, err := chatNotices(s, "hello"); err == nil || len(good.Requests()) != 0 {
		t.Fatalf("err %v; qwen got %d requests", err, len(good.Requests()))
	}
}

func TestRejectedKeyMarked(t *testing.T) {
	bad := failing(t, http.StatusUnauthorized)
	good := llmtest.NewServer(t)
	good.SetFallback(llmtest.Reply{Text: "from qwen"})
	s := fallbackSources(t, Source{Name: "deepseek", BaseURL: bad.URL, APIKey: "sk-old-0123456789abcdef"},
		Source{Name: "qwen", BaseURL: good.URL, APIKey: "sk-qwen-0123456789abcdef"})
	var marks []string
	s.OnReject = func(source, hash, reason string) { marks = append(marks, source+" "+hash+" "+reason) }
	for i := range 3 {
		resp, notices, err := chatNotices(s, "hello")
		if err != nil || resp.Source != "qwen" || len(notices) != 1 || notices[0].Reason != "deepseek: key rejected" {
			t.Fatalf("call %d: resp %+v, notices %+v, err %v", i, resp, notices, err)
		}
	}
	// Asked once, never retried, marked once.
	if n := bad.Requests(); n != 1 || len(marks) != 1 || marks[0] != "deepseek "+KeyHash("sk-old-0123456789abcdef")+" 401 unauthorized" {
		t.Fatalf("deepseek got %d requests; marks %q", n, marks)
	}
	// Without a fallback the user is told, and still no request is made.
	if err := s.SetFallback(nil); err != nil {
		t.Fatal(err)
	}
	_, _, err := chatNotices(s, "hello")
	var kr *KeyRejectedError
	if !errors.As(err, &kr) || !errors.Is(err, ErrAuth) || kr.Source != "deepseek" || bad.Requests() != 1 {
		t.Fatalf("err %v; %d requests", err, bad.Requests())
	}
	// A mark kept from before a restart holds for the same key only.
	s2, _ := NewSources([]Source{{Name: "deepseek", BaseURL: bad.URL, APIKey: "sk-old-0123456789abcdef"}}, "")
	s2.MarkRejected("deepseek", KeyHash("sk-old-0123456789abcdef"), "401 unauthorized")
	if _, err := s2.Chat(context.Background(), &Request{Messages: userMsg("hi")}, nil); !errors.As(err, &kr) || bad.Requests() != 1 {
		t.Fatalf("restored mark: err %v; %d requests", err, bad.Requests())
	}
	// A new key clears the mark: the source is asked again.
	s.Put(Source{Name: "deepseek", BaseURL: bad.URL, APIKey: "sk-new-0123456789abcdef"})
	s.sources["deepseek"].MaxRetries = -1
	if _, ok := s.Rejected("deepseek"); ok {
		t.Fatal("the new key is still marked rejected")
	}
	chatNotices(s, "hello")
	if n := bad.Requests(); n != 2 {
		t.Fatalf("after a new key deepseek got %d requests in all, want 2", n)
	}
}

// Against @copilotkit/aimock: aimock answering 429 (with Retry-After)
// to every request falls back to the scripted server, and the scripted
// server answering 500 to every request falls back to aimock.
func TestFallbackAimock(t *testing.T) {
	url := startAimock(t)
	t.Run("aimock 429 forever", func(t *testing.T) {
		good := llmtest.NewServer(t, llmtest.Reply{Text: "answered by qwen"})
		s := fallbackSources(t, Source{Name: "claude", BaseURL: url, APIKey: "sk-ant-test-0123456789", Model: "claude-test", API: APIAnthropic},
			Source{Name: "qwen", BaseURL: good.URL})
		chaos := &chaosTransport{header: "x-aimock-chaos-ratelimit", faulty: 1 << 30}
		s.sources["claude"].HTTP = &http.Client{Transport: chaos}
		s.sources["claude"].MaxRetries = -1 // aimock asks for a second's wait
		resp, notices, err := chatNotices(s, "hello")
		if err != nil || resp.Content != "answered by qwen" || resp.Source != "qwen" || resp.Fallback != "claude: 429 rate limited" ||
			len(notices) != 1 || chaos.sent.Load() != 1 {
			t.Fatalf("resp %+v, notices %+v, err %v, aimock asked %d times", resp, notices, err, chaos.sent.Load())
		}
	})
	t.Run("scripted 500 forever", func(t *testing.T) {
		bad := failing(t, http.StatusInternalServerError)
		s := fallbackSources(t, Source{Name: "deepseek", BaseURL: bad.URL},
			Source{Name: "claude", BaseURL: url, APIKey: "sk-ant-test-0123456789", Model: "claude-test", API: APIAnthropic})
		resp, notices, err := chatNotices(s, "hello")
		if err != nil || resp.Content != "Hello from aimock, streamed in pieces." || resp.Source != "claude" ||
			len(notices) != 1 || notices[0].String() != "deepseek: 500 internal server error; answering with claude" {
			t.Fatalf("resp %+v, notices %+v, err %v", resp, notices, err)
		}
	})
}

func userMsg(text string) []Message { return []Message{{Role: "user", Content: text}} }

// failing is a provider answering status to every request.
func failing(t *testing.T, status int) *llmtest.RawServer {
	return llmtest.NewRawServer(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		w.Write([]byte(`{"error":{"message":"failing on purpose"}}`))
	})
}

// A source that keeps failing costs a turn one retry, not its full
// round, when a fallback follows; after failing it rests (turns go
// straight to the fallback, saying why) and is tried again when the rest
// is over, for twice as long if it fails again; once it answers it is
// used again at once. A Retry-After longer than the rest wins.
func TestFallbackRestsAFailingSource(t *testing.T) {
	var down atomic.Bool
	down.Store(true)
	var retryAfter atomic.Value
	retryAfter.Store("")
	bad := llmtest.NewRawServer(t, func(w http.ResponseWriter, r *http.Request) {
		if down.Load() {
			w.Header().Set("Content-Type", "application/json")
			if ra := retryAfter.Load().(string); ra != "" {
				w.Header().Set("Retry-After", ra)
				w.WriteHeader(http.StatusTooManyRequests)
			} else {
				w.WriteHeader(http.StatusInternalServerError)
			}
			w.Write([]byte(`{"error":{"message":"failing on purpose"}}`))
			return
		}
		llmtest.SSE(w, `{"choices":[{"index":0,"delta":{"content":"answered by deepseek"}}]}`,
			`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`, "[DONE]")
	})
	var replies []llmtest.Reply
	for range 10 {
		replies = append(replies, llmtest.Reply{Text: "answered by qwen"})
	}
	good := llmtest.NewServer(t, replies...)
	s := fallbackSources(t, Source{Name: "deepseek", BaseURL: bad.URL}, Source{Name: "qwen", BaseURL: good.URL})
	s.sources["deepseek"].MaxRetries = 0 // the default: three retries alone
	now := time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)
	s.now = func() time.Time { return now }
	turn := func(wantSource, wantReason string, wantRequests int) {
		t.Helper()
		before := bad.Requests()
		resp, notices, err := chatNotices(s, "hello")
		if err != nil || resp.Source != wantSource || resp.Fallback != wantReason {
			t.Fatalf("resp %+v, err %v; want %s after %q", resp, err, wantSource, wantReason)
		}
		if wantReason != "" && (len(notices) != 1 || notices[0].Reason != wantReason) {
			t.Fatalf("notices %+v", notices)
		}
		if n := bad.Requests() - before; n != wantRequests {
			t.Fatalf("deepseek got %d requests, want %d", n, wantRequests)
		}
	}
	turn("qwen", "deepseek: 500 internal server error", 2) // one try, one retry
	now = now.Add(10 * time.Second)
	turn("qwen", "deepseek: resting after 500 internal server error (tried again in 20s)", 0)
	now = now.Add(21 * time.Second)
	turn("qwen", "deepseek: 500 internal server error", 2) // tried again, fails: 60 s now
	now = now.Add(59 * time.Second)
	turn("qwen", "deepseek: resting after 500 internal server error (tried again in 1s)", 0)
	now = now.Add(2 * time.Second)
	retryAfter.Store("300")
	turn("qwen", "deepseek: 429 rate limited", 1) // a long Retry-After is not waited for
	now = now.Add(200 * time.Second)
	turn("qwen", "deepseek: resting after 429 rate limited (tried again in 1m40s)", 0)
	// A source given a new address is tried at once.
	s.Put(Source{Name: "deepseek", BaseURL: bad.URL + "/"})
	s.sources["deepseek"].Backoff = time.Millisecond
	turn("qwen", "deepseek: 429 rate limited", 1)
	now = now.Add(301 * time.Second)
	down.Store(false)
	turn("deepseek", "", 1)
	turn("deepseek", "", 1)

	// The last source of the chain is tried even while it rests.
	down.Store(true)
	retryAfter.Store("")
	turn("qwen", "deepseek: 500 internal server error", 2)
	only, err := NewSources([]Source{{Name: "deepseek", BaseURL: bad.URL}}, "deepseek")
	if err != nil {
		t.Fatal(err)
	}
	only.sources["deepseek"].Backoff, only.sources["deepseek"].MaxRetries = time.Millisecond, -1
	only.now = s.now
	only.rest("deepseek", &APIError{Status: 500})
	before := bad.Requests()
	if _, _, err := chatNotices(only, "hello"); err == nil || bad.Requests() != before+1 {
		t.Fatalf("a lone resting source: err %v, %d requests", err, bad.Requests()-before)
	}
}

// A provider cannot keep itself out of use: a Retry-After of years rests
// a source an hour at most, and Inf, NaN or 1e30 are no wait at all. A
// source resting before one whose key was rejected is still tried (it is
// the last that can be). With a fallback after it, a retry that would
// wait longer than a second is not made.
func TestFallbackRestBounds(t *testing.T) {
	for _, v := range []string{"Inf", "NaN", "-5", "1e30", "9000000000"} {
		if d := parseRetryAfter(v); d < 0 || d > maxRetryAfter {
			t.Errorf("Retry-After %q read as %v", v, d)
		}
	}
	now := time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)
	s := &Sources{now: func() time.Time { return now }}
	s.rest("a", &APIError{Status: 429, RetryAfter: parseRetryAfter("9000000000")})
	if c, ok := s.resting("a"); !ok || c.until.Sub(now) != maxRestAfter {
		t.Fatalf("rest %v, %v", c.until.Sub(now), ok)
	}

	var slow atomic.Int32
	bad := llmtest.NewRawServer(t, func(w http.ResponseWriter, _ *http.Request) {
		slow.Add(1)
		w.Header().Set("Retry-After", "5")
		w.WriteHeader(http.StatusTooManyRequests)
	})
	refused := llmtest.NewServer(t, llmtest.Reply{Status: http.StatusUnauthorized, ErrorMessage: "bad key"})
	s = fallbackSources(t, Source{Name: "a", BaseURL: bad.URL}, Source{Name: "b", BaseURL: refused.URL, APIKey: "sk-b"})
	s.sources["a"].MaxRetries = 0
	s.now = func() time.Time { return now }
	_, _, err := chatNotices(s, "hello") // a: 429, not waited for; b: key refused
	if err == nil || slow.Load() != 1 {
		t.Fatalf("first turn: err %v, a asked %d times", err, slow.Load())
	}
	if _, rejected := s.Rejected("b"); !rejected {
		t.Fatal("b's key not marked")
	}
	if _, resting := s.resting("a"); !resting {
		t.Fatal("a does not rest")
	}
	s.sources["a"].MaxRetries = -1             // as the last source it would wait out its Retry-After
	_, notices, err := chatNotices(s, "hello") // a rests, but b cannot be called: a is tried
	if err == nil || slow.Load() != 2 || len(notices) != 1 || !strings.Contains(notices[0].Reason, "a: 429") {
		t.Fatalf("second turn: err %v, notices %+v, a asked %d times", err, notices, slow.Load())
	}
}

func TestShortDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{0: "1s", 1400 * time.Millisecond: "1s", 20 * time.Second: "20s", time.Minute: "1m",
		90 * time.Second: "1m30s", time.Hour: "1h", time.Hour + 30*time.Second: "1h0m30s", 2 * time.Hour: "2h"} {
		if got := shortDuration(d); got != want {
			t.Errorf("shortDuration(%v) = %q, want %q", d, got, want)
		}
	}
}
