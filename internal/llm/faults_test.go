package llm

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hearth-agent/hearth/sdk/llmtest"
)

const (
	roleChunk   = `{"choices":[{"delta":{"role":"assistant","content":""}}]}`
	helloChunk  = `{"choices":[{"delta":{"content":"Hello, "}}]}`
	finishChunk = `{"choices":[{"delta":{},"finish_reason":"stop"}]}`
)

func okStream(w http.ResponseWriter, _ *http.Request) {
	llmtest.SSE(w, helloChunk, `{"choices":[{"delta":{"content":"world."}}]}`, finishChunk, "[DONE]")
}

// stall waits until the client goes away.
func stall(_ http.ResponseWriter, r *http.Request) { <-r.Context().Done() }

func rawClient(url string) *Client {
	return &Client{BaseURL: url, APIKey: "sk-test", Model: "m", Backoff: time.Millisecond}
}

func TestHTMLPageIsNotAnAnswer(t *testing.T) {
	srv := llmtest.NewRawServer(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, "<!doctype html><html><head><title>Welcome</title></head><body>Hi</body></html>")
	})
	_, err := rawClient(srv.URL).Chat(context.Background(), &Request{}, nil)
	if !errors.Is(err, ErrNotAPI) || !strings.Contains(err.Error(), "HTML page") || !strings.Contains(err.Error(), "base URL") {
		t.Fatalf("err = %v", err)
	}
	if srv.Requests() != 1 {
		t.Fatalf("a wrong base URL was retried: %d requests", srv.Requests())
	}
}

func TestHTMLPageWithoutContentType(t *testing.T) {
	srv := llmtest.NewRawServer(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		io.WriteString(w, "\n  <html><body>Router login</body></html>")
	})
	_, err := rawClient(srv.URL).Chat(context.Background(), &Request{}, nil)
	if !errors.Is(err, ErrNotAPI) {
		t.Fatalf("err = %v", err)
	}
}

func TestHTMLErrorPageShowsTitle(t *testing.T) {
	srv := llmtest.NewRawServer(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, "<html><head><title>404 Not Found</title></head><body>"+strings.Repeat("x", 5000)+"</body></html>")
	})
	_, err := rawClient(srv.URL).Chat(context.Background(), &Request{}, nil)
	if err == nil || !strings.Contains(err.Error(), `"404 Not Found"`) || strings.Contains(err.Error(), "xxxx") {
		t.Fatalf("err = %v", err)
	}
}

func TestStreamCutAfterOutputIsIncomplete(t *testing.T) {
	srv := llmtest.NewRawServer(t, func(w http.ResponseWriter, _ *http.Request) {
		llmtest.SSE(w, roleChunk, helloChunk) // and the connection closes
	})
	var streamed strings.Builder
	resp, err := rawClient(srv.URL).Chat(context.Background(), &Request{}, func(d Delta) { streamed.WriteString(d.Content) })
	if !errors.Is(err, ErrIncomplete) || !strings.Contains(err.Error(), "cut off") {
		t.Fatalf("err = %v", err)
	}
	if resp == nil || resp.Content != "Hello, " || streamed.String() != "Hello, " {
		t.Fatalf("partial answer %+v, streamed %q", resp, streamed.String())
	}
	if srv.Requests() != 1 {
		t.Fatalf("retried after output: %d requests", srv.Requests())
	}
}

func TestStreamCutBeforeOutputIsRetried(t *testing.T) {
	srv := llmtest.NewRawServer(t,
		func(w http.ResponseWriter, _ *http.Request) { llmtest.SSE(w, roleChunk) },
		okStream)
	resp, err := rawClient(srv.URL).Chat(context.Background(), &Request{}, nil)
	if err != nil || resp.Content != "Hello, world." || srv.Requests() != 2 {
		t.Fatalf("resp %+v, err %v after %d requests", resp, err, srv.Requests())
	}
}

func TestStreamCutMidLine(t *testing.T) {
	srv := llmtest.NewRawServer(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: "+helloChunk+"\n\ndata: {\"choices\":[{\"delta\":{\"content\":\"wor")
	})
	_, err := rawClient(srv.URL).Chat(context.Background(), &Request{}, nil)
	if !errors.Is(err, ErrIncomplete) {
		t.Fatalf("err = %v", err)
	}
}

func TestFinishWithoutDoneIsComplete(t *testing.T) {
	srv := llmtest.NewRawServer(t, func(w http.ResponseWriter, _ *http.Request) { llmtest.SSE(w, helloChunk, finishChunk) })
	resp, err := rawClient(srv.URL).Chat(context.Background(), &Request{}, nil)
	if err != nil || resp.Content != "Hello, " {
		t.Fatalf("resp %+v, err %v", resp, err)
	}
}

func TestEmptyAnswerIsAnError(t *testing.T) {
	for _, tc := range []struct {
		name  string
		reply llmtest.Reply
	}{
		{"streamed", llmtest.Reply{}},
		{"reasoning only", llmtest.Reply{Reasoning: "hmm"}},
		{"not streamed", llmtest.Reply{NoStream: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, tc.reply)
			_, err := client(srv).Chat(context.Background(), &Request{}, nil)
			if !errors.Is(err, ErrEmptyAnswer) {
				t.Fatalf("err = %v", err)
			}
		})
	}
}

func TestMalformedAnswerRetriedOnce(t *testing.T) {
	bad := func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"choices": [oops`)
	}
	badEvent := func(w http.ResponseWriter, _ *http.Request) { llmtest.SSE(w, `{"choices": nope}`) }

	srv := llmtest.NewRawServer(t, bad, okStream)
	resp, err := rawClient(srv.URL).Chat(context.Background(), &Request{}, nil)
	if err != nil || resp.Content != "Hello, world." || srv.Requests() != 2 {
		t.Fatalf("resp %+v, err %v after %d requests", resp, err, srv.Requests())
	}

	srv = llmtest.NewRawServer(t, badEvent, bad, okStream)
	_, err = rawClient(srv.URL).Chat(context.Background(), &Request{}, nil)
	if !errors.Is(err, ErrMalformed) || srv.Requests() != 2 {
		t.Fatalf("err %v after %d requests, want ErrMalformed after 2", err, srv.Requests())
	}
}

func TestFirstByteTimeout(t *testing.T) {
	srv := llmtest.NewRawServer(t, stall, stall, okStream)
	c := rawClient(srv.URL)
	c.FirstByteTimeout = 20 * time.Millisecond
	resp, err := c.Chat(context.Background(), &Request{}, nil)
	if err != nil || resp.Content != "Hello, world." || srv.Requests() != 3 {
		t.Fatalf("resp %+v, err %v after %d requests: a stalled provider should be retried", resp, err, srv.Requests())
	}

	srv = llmtest.NewRawServer(t, stall)
	c = rawClient(srv.URL)
	c.FirstByteTimeout, c.MaxRetries = 20*time.Millisecond, 1
	_, err = c.Chat(context.Background(), &Request{}, nil)
	var te *TimeoutError
	if !errors.As(err, &te) || te.Wait != "first byte" || !errors.Is(err, ErrTimeout) || srv.Requests() != 2 {
		t.Fatalf("err %v after %d requests", err, srv.Requests())
	}
	if !strings.Contains(err.Error(), "first_byte_timeout") {
		t.Fatalf("message does not name the setting: %v", err)
	}
}

func TestFirstByteTimeoutAfterHeaders(t *testing.T) {
	srv := llmtest.NewRawServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	c := rawClient(srv.URL)
	c.FirstByteTimeout, c.MaxRetries = 20*time.Millisecond, -1
	_, err := c.Chat(context.Background(), &Request{}, nil)
	var te *TimeoutError
	if !errors.As(err, &te) || te.Wait != "first byte" {
		t.Fatalf("err = %v", err)
	}
}

func TestIdleTimeoutMidStream(t *testing.T) {
	srv := llmtest.NewRawServer(t, func(w http.ResponseWriter, r *http.Request) {
		llmtest.SSE(w, roleChunk, helloChunk)
		<-r.Context().Done()
	})
	c := rawClient(srv.URL)
	c.IdleTimeout = 20 * time.Millisecond
	resp, err := c.Chat(context.Background(), &Request{}, func(Delta) {})
	var te *TimeoutError
	if !errors.Is(err, ErrIncomplete) || !errors.As(err, &te) || te.Wait != "idle" {
		t.Fatalf("err = %v", err)
	}
	if resp == nil || resp.Content != "Hello, " || srv.Requests() != 1 {
		t.Fatalf("resp %+v after %d requests: output had started, so no retry", resp, srv.Requests())
	}
	if !strings.Contains(err.Error(), "idle_timeout") {
		t.Fatalf("message does not name the setting: %v", err)
	}
}

func TestIdleTimeoutBeforeOutputIsRetried(t *testing.T) {
	srv := llmtest.NewRawServer(t, func(w http.ResponseWriter, r *http.Request) {
		llmtest.SSE(w, roleChunk)
		<-r.Context().Done()
	}, okStream)
	c := rawClient(srv.URL)
	c.IdleTimeout = 20 * time.Millisecond
	resp, err := c.Chat(context.Background(), &Request{}, nil)
	if err != nil || resp.Content != "Hello, world." || srv.Requests() != 2 {
		t.Fatalf("resp %+v, err %v after %d requests", resp, err, srv.Requests())
	}
}

// countingTransport counts the bytes of answer bodies the client reads.
type countingTransport struct{ n atomic.Int64 }

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err == nil {
		resp.Body = &countingBody{ReadCloser: resp.Body, n: &c.n}
	}
	return resp, err
}

type countingBody struct {
	io.ReadCloser
	n *atomic.Int64
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n.Add(int64(n))
	return n, err
}

// hugeServer streams an endless answer in the given shape, until the
// client goes away; sent counts what it wrote.
func hugeServer(t testing.TB, shape string, sent *atomic.Int64) *llmtest.RawServer {
	piece := strings.Repeat("a", 1000)
	return llmtest.NewRawServer(t, func(w http.ResponseWriter, r *http.Request) {
		var write func() error
		switch shape {
		case "content", "reasoning":
			w.Header().Set("Content-Type", "text/event-stream")
			field := map[string]string{"content": "content", "reasoning": "reasoning_content"}[shape]
			ev := []byte(fmt.Sprintf(`data: {"choices":[{"delta":{%q:%q}}]}`+"\n\n", field, piece))
			write = func() error { _, err := w.Write(ev); return err }
		case "arguments":
			w.Header().Set("Content-Type", "text/event-stream")
			llmtest.SSE(w, `{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"c","function":{"name":"f","arguments":""}}]}}]}`)
			ev := []byte(fmt.Sprintf(`data: {"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":%q}}]}}]}`+"\n\n", piece))
			write = func() error { _, err := w.Write(ev); return err }
		case "one line":
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, `data: {"choices":[{"delta":{"content":"`)
			write = func() error { _, err := io.WriteString(w, piece); return err }
		case "json":
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"choices":[{"message":{"content":"`)
			write = func() error { _, err := io.WriteString(w, piece); return err }
		}
		for i := 0; i < 100_000 && r.Context().Err() == nil; i++ { // 100 MB at most
			if write() != nil {
				return
			}
			sent.Add(int64(len(piece)))
		}
	})
}

func TestHugeAnswerIsCutWithBoundedReads(t *testing.T) {
	const limit = 64 << 10
	for _, shape := range []string{"content", "reasoning", "arguments", "one line", "json"} {
		t.Run(shape, func(t *testing.T) {
			var sent atomic.Int64
			srv := hugeServer(t, shape, &sent)
			tr := &countingTransport{}
			c := rawClient(srv.URL)
			c.HTTP = &http.Client{Transport: tr}
			c.MaxResponseBytes = limit
			_, err := c.Chat(context.Background(), &Request{}, func(Delta) {})
			if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "64 KiB") {
				t.Fatalf("err = %v", err)
			}
			// What was read is the limit, twice over for a whole line,
			// plus one read-ahead buffer: never the 100 MB offered.
			if read := tr.n.Load(); read > 2*limit+64<<10+64<<10+4<<10 {
				t.Fatalf("read %d bytes for a limit of %d", read, limit)
			}
		})
	}
}

func TestAPIKeyMaskedInErrors(t *testing.T) {
	const key = "sk-live-9f8e7d6c5b4a39281706"
	for _, tc := range []struct {
		name string
		h    http.HandlerFunc
	}{
		{"401 json", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(401)
			fmt.Fprintf(w, `{"error":{"message":"Incorrect API key provided: %s. Other: sk-proj-abcdefghijklmnopqrstu"}}`, key)
		}},
		{"500 text", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(500)
			fmt.Fprintf(w, "upstream failed; request headers: %s", r.Header.Get("Authorization"))
		}},
		{"stream error", func(w http.ResponseWriter, _ *http.Request) {
			llmtest.SSE(w, fmt.Sprintf(`{"error":{"message":"bad key %s"}}`, key))
		}},
		{"malformed", func(w http.ResponseWriter, _ *http.Request) { llmtest.SSE(w, `{"key":"`+key+`",}`) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.NewRawServer(t, tc.h)
			s, err := NewSources([]Source{{Name: "a", BaseURL: srv.URL, APIKey: key}}, "a")
			if err != nil {
				t.Fatal(err)
			}
			s.sources["a"].Backoff, s.sources["a"].MaxRetries = time.Millisecond, -1
			_, err = s.Chat(context.Background(), &Request{}, nil)
			if err == nil || strings.Contains(err.Error(), "9f8e7d6c5b4a") || strings.Contains(err.Error(), "abcdefghijklmnop") ||
				!strings.Contains(err.Error(), "****") {
				t.Fatalf("err = %v", err)
			}
			var apiErr *APIError
			if errors.As(err, &apiErr) && strings.Contains(apiErr.Message, "9f8e7d6c5b4a") {
				t.Fatalf("APIError.Message = %q", apiErr.Message)
			}
		})
	}
}

func TestOtherSourcesKeysMasked(t *testing.T) {
	const other = "other-source-secret-0000111122223333"
	srv := llmtest.NewRawServer(t, func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(400)
		io.WriteString(w, "you sent the wrong one, the right one is "+other)
	})
	s, _ := NewSources([]Source{{Name: "a", BaseURL: srv.URL, APIKey: "key-aaaaaaaaaaaaaaaa"}, {Name: "b", BaseURL: srv.URL, APIKey: other}}, "a")
	_, err := s.Chat(context.Background(), &Request{}, nil)
	if err == nil || strings.Contains(err.Error(), "0000111122223333") {
		t.Fatalf("err = %v", err)
	}
}

// BenchmarkHugeAnswer offers a 100 MB answer from a loopback server to a
// client with the default 4 MiB limit. With -benchmem, B/op is what one
// such answer costs in memory: about the limit, not the answer (before
// the limit, 100 MB took 1.5 GB).
func BenchmarkHugeAnswer(b *testing.B) {
	var sent atomic.Int64
	srv := hugeServer(b, "content", &sent)
	c := rawClient(srv.URL)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Chat(context.Background(), &Request{}, func(Delta) {}); !errors.Is(err, ErrTooLarge) {
			b.Fatal(err)
		}
	}
}

func TestSniff(t *testing.T) {
	for _, tc := range []struct{ mediaType, body, want string }{
		{"text/event-stream", "data: {}\n\n", "stream"},
		{"text/event-stream", ": keep-alive\n\n", "stream"},
		{"text/event-stream", `{"error":{"message":"quota"}}`, "json"},
		{"application/json", `{"choices":[]}`, "json"},
		{"application/json", "  <html></html>", "an HTML page"},
		{"application/json", "oops", "json"},
		{"text/html", "data: {}", "an HTML page"},
		{"", "\r\n<!DOCTYPE html>", "an HTML page"},
		{"text/plain", "data: {}\n\n", "stream"},
		{"", "", "stream"},
	} {
		t.Run(tc.mediaType+" "+strconv.Quote(tc.body), func(t *testing.T) {
			if got := sniff(tc.mediaType, bufio.NewReader(strings.NewReader(tc.body))); got != tc.want {
				t.Errorf("sniff(%q, %q) = %q, want %q", tc.mediaType, tc.body, got, tc.want)
			}
		})
	}
}

// keepalives streams SSE comments until the client goes away, after
// sending first (raw SSE text) if any.
func keepalives(first string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		io.WriteString(w, first)
		for {
			if _, err := io.WriteString(w, ": keepalive\n\n"); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}
}

// hangGuard bounds a test against a client that would wait forever.
func hangGuard(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// Review 2 of issue 8, item 13: keep-alive comments are not progress, so
// a provider that sends only them runs into first_byte_timeout.
func TestKeepaliveCommentsAreNotAnAnswer(t *testing.T) {
	srv := llmtest.NewRawServer(t, keepalives(""))
	c := rawClient(srv.URL)
	c.FirstByteTimeout, c.IdleTimeout, c.MaxRetries = 50*time.Millisecond, 50*time.Millisecond, -1
	ctx := hangGuard(t)
	_, err := c.Chat(ctx, &Request{}, nil)
	if ctx.Err() != nil {
		t.Fatalf("still waiting on a provider that sends only keep-alive comments; err %v", err)
	}
	var te *TimeoutError
	if !errors.As(err, &te) || te.Wait != "first byte" || !te.KeptAlive || errors.Is(err, ErrIncomplete) {
		t.Fatalf("err = %v, want a first byte timeout after keep-alives (not an answer cut off: none began)", err)
	}
	if !strings.Contains(err.Error(), "keep-alive") || !strings.Contains(err.Error(), "first_byte_timeout") {
		t.Fatalf("message does not say what happened: %v", err)
	}
}

// Keep-alive comments in the middle of an answer count as silence too.
func TestKeepaliveCommentsMidStreamAreIdle(t *testing.T) {
	srv := llmtest.NewRawServer(t, keepalives("data: "+helloChunk+"\n\n"))
	c := rawClient(srv.URL)
	c.IdleTimeout = 50 * time.Millisecond
	ctx := hangGuard(t)
	resp, err := c.Chat(ctx, &Request{}, func(Delta) {})
	if ctx.Err() != nil {
		t.Fatalf("still waiting on a provider that sends only keep-alive comments; err %v", err)
	}
	var te *TimeoutError
	if !errors.Is(err, ErrIncomplete) || !errors.As(err, &te) || te.Wait != "idle" || !te.KeptAlive {
		t.Fatalf("err = %v, want an idle timeout after keep-alives", err)
	}
	if resp == nil || resp.Content != "Hello, " {
		t.Fatalf("resp %+v: the answer so far is kept", resp)
	}
}

// A provider that keeps sending real pieces, forever, is stopped by
// answer_timeout; what was passed on is kept.
func TestAnswerTimeout(t *testing.T) {
	srv := llmtest.NewRawServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for {
			if _, err := io.WriteString(w, "data: "+helloChunk+"\n\n"); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	})
	c := rawClient(srv.URL)
	c.AnswerTimeout = 100 * time.Millisecond
	ctx := hangGuard(t)
	resp, err := c.Chat(ctx, &Request{}, func(Delta) {})
	if ctx.Err() != nil {
		t.Fatalf("still waiting on an endless answer; err %v", err)
	}
	var te *TimeoutError
	if !errors.Is(err, ErrIncomplete) || !errors.As(err, &te) || te.Wait != "answer" || !strings.Contains(err.Error(), "answer_timeout") {
		t.Fatalf("err = %v, want an answer timeout", err)
	}
	if resp == nil || !strings.HasPrefix(resp.Content, "Hello, ") || srv.Requests() != 1 {
		t.Fatalf("resp %+v after %d requests: output had started, so kept and not retried", resp, srv.Requests())
	}

	// Before any output, the answer timeout is not retried either.
	srv = llmtest.NewRawServer(t, stall)
	c = rawClient(srv.URL)
	c.AnswerTimeout = 100 * time.Millisecond
	_, err = c.Chat(ctx, &Request{}, nil)
	if ctx.Err() != nil || !errors.As(err, &te) || te.Wait != "answer" || errors.Is(err, ErrIncomplete) {
		t.Fatalf("err = %v, want an answer timeout", err)
	}
}

// An event longer than the pooled read buffer is read whole, and a buffer
// given back after one answer reads the next from its start: answers of
// every length in turn, each exactly as sent.
func TestEventsLongerThanTheReadBuffer(t *testing.T) {
	sizes := []int{readerSize * 3, 10, readerSize - 40, readerSize*2 + 7, 1}
	var n atomic.Int64
	srv := llmtest.NewRawServer(t, func(w http.ResponseWriter, _ *http.Request) {
		text := strings.Repeat(strconv.Itoa(int(n.Load())%10), sizes[n.Load()])
		llmtest.SSE(w, `{"choices":[{"delta":{"content":"`+text+`"}}]}`, finishChunk, "[DONE]")
	})
	c := rawClient(srv.URL)
	for i, size := range sizes {
		n.Store(int64(i))
		resp, err := c.Chat(context.Background(), &Request{}, nil)
		if err != nil {
			t.Fatalf("answer %d: %v", i, err)
		}
		if want := strings.Repeat(strconv.Itoa(i%10), size); resp.Content != want {
			t.Fatalf("answer %d: %d bytes, want %d of %q", i, len(resp.Content), size, want[:1])
		}
	}
}
