package pluginrpc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// pair connects two Conns with pipes and runs them until the test ends.
func pair(t *testing.T) (a, b *Conn) {
	t.Helper()
	ar, bw := io.Pipe()
	br, aw := io.Pipe()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	a, b = NewConn(ar, aw, quiet), NewConn(br, bw, quiet)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); a.Run() }()
	go func() { defer wg.Done(); b.Run() }()
	t.Cleanup(func() {
		aw.Close()
		bw.Close()
		ar.Close()
		br.Close()
		wg.Wait()
	})
	return a, b
}

func TestCallsBothWaysConcurrently(t *testing.T) {
	a, b := pair(t)
	b.Handle("double", func(_ context.Context, p json.RawMessage) (any, error) {
		var n int
		json.Unmarshal(p, &n)
		return n * 2, nil
	})
	a.Handle("hello", func(context.Context, json.RawMessage) (any, error) { return "你好", nil })
	release := make(chan struct{})
	b.Handle("slow", func(ctx context.Context, _ json.RawMessage) (any, error) {
		<-release
		return "late", nil
	})
	slow := make(chan string, 1)
	go func() {
		var s string
		a.Call(context.Background(), "slow", nil, &s)
		slow <- s
	}()
	var wg sync.WaitGroup
	for i := 0; i < 50; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var out int
			if err := a.Call(context.Background(), "double", i, &out); err != nil || out != 2*i {
				t.Errorf("double(%d) = %d, %v", i, out, err)
			}
		}()
	}
	wg.Wait()
	var s string
	if err := b.Call(context.Background(), "hello", nil, &s); err != nil || s != "你好" {
		t.Fatalf("%q %v", s, err)
	}
	close(release)
	if got := <-slow; got != "late" {
		t.Fatalf("slow: %q", got)
	}
}

// A handler that calls the peer back (as a tool calling input.inject
// does) runs on the goroutine that read its request: the reading role must
// pass on for the answer to be read.
func TestHandlerCallsThePeerBack(t *testing.T) {
	a, b := pair(t)
	a.Handle("hello", func(context.Context, json.RawMessage) (any, error) { return "你好", nil })
	b.Handle("nested", func(context.Context, json.RawMessage) (any, error) {
		var s string
		err := b.Call(context.Background(), "hello", nil, &s)
		return s + "!", err
	})
	for i := 0; i < 20; i++ {
		var s string
		if err := a.Call(context.Background(), "nested", nil, &s); err != nil || s != "你好!" {
			t.Fatalf("call %d: %q %v", i, s, err)
		}
	}
}

func TestCancelReachesTheHandler(t *testing.T) {
	a, b := pair(t)
	seen := make(chan error, 1)
	started := make(chan struct{})
	b.Handle("wait", func(ctx context.Context, _ json.RawMessage) (any, error) {
		close(started)
		<-ctx.Done()
		seen <- ctx.Err()
		return nil, ctx.Err()
	})
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-started; cancel() }()
	if err := a.Call(ctx, "wait", nil, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("caller: %v", err)
	}
	select {
	case err := <-seen:
		if !errors.Is(err, context.Canceled) {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the handler never saw the cancellation")
	}
}

func TestErrorsAndPanics(t *testing.T) {
	a, b := pair(t)
	b.Handle("boom", func(context.Context, json.RawMessage) (any, error) { panic("kaboom") })
	b.Handle("fail", func(context.Context, json.RawMessage) (any, error) {
		return nil, &Error{Code: CodeToolFailed, Message: "城市不存在"}
	})
	var rerr *Error
	if err := a.Call(context.Background(), "nope", nil, nil); !errors.As(err, &rerr) || rerr.Code != CodeMethodNotFound {
		t.Fatalf("unknown method: %v", err)
	}
	if err := a.Call(context.Background(), "boom", nil, nil); !errors.As(err, &rerr) || rerr.Code != CodeInternal || strings.Contains(rerr.Message, "kaboom") {
		t.Fatalf("panic: %v", err)
	}
	if err := a.Call(context.Background(), "fail", nil, nil); !errors.As(err, &rerr) || rerr.Message != "城市不存在" {
		t.Fatalf("fail: %v", err)
	}
}

func TestPendingCallsFailWhenThePeerGoes(t *testing.T) {
	r, w := io.Pipe()
	var out bytes.Buffer
	c := NewConn(r, &syncWriter{w: &out}, nil)
	done := make(chan error, 1)
	go func() { done <- c.Run() }()
	called := make(chan error, 1)
	go func() { called <- c.Call(context.Background(), "x", nil, nil) }()
	time.Sleep(10 * time.Millisecond)
	w.Close() // the peer's output ends
	if err := <-called; !errors.Is(err, ErrClosed) {
		t.Fatalf("pending call: %v", err)
	}
	<-done
	if err := c.Call(context.Background(), "x", nil, nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("call after close: %v", err)
	}
}

type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

func FuzzDecoder(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"echo","params":{"a":"b"}}` + "\n"))
	f.Add([]byte(`{"jsonrpc":"2.0","id":"x","result":1}` + "\n" + `{"jsonrpc":"2.0","method":"$/cancel","params":{"id":1}}` + "\n"))
	f.Add([]byte("garbage\n\n{\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var out syncWriter
		out.w = io.Discard
		c := NewConn(bytes.NewReader(data), &out, slog.New(slog.NewTextHandler(io.Discard, nil)))
		c.Handle("echo", func(_ context.Context, p json.RawMessage) (any, error) { return p, nil })
		c.Run() // must return at the end of input without panicking
	})
}

// A message over MaxMessage is not silently dropped: a call whose params
// are too large gets an error reply at once, and the answer too large to
// one fails it at once.
func TestMessageTooLarge(t *testing.T) {
	a, b := pair(t)
	big := strings.Repeat("z", MaxMessage)
	b.Handle("echo", func(_ context.Context, p json.RawMessage) (any, error) { return p, nil })
	b.Handle("big", func(context.Context, json.RawMessage) (any, error) { return big, nil })
	err := a.Call(context.Background(), "echo", big, nil)
	var rerr *Error
	if !errors.As(err, &rerr) || rerr.Code != CodeInvalidRequest || !strings.Contains(err.Error(), "the request was larger than 32 MiB") {
		t.Fatalf("too large a request: %v", err)
	}
	err = a.Call(context.Background(), "big", nil, nil)
	var tl *TooLargeError
	if !errors.As(err, &tl) || err.Error() != "the answer was larger than 32 MiB, the most one message may hold" {
		t.Fatalf("too large an answer: %v", err)
	}
	var s string
	if err := a.Call(context.Background(), "echo", "ok", &s); err != nil || s != "ok" {
		t.Fatalf("after: %q, %v", s, err)
	}
}

func TestReadHead(t *testing.T) {
	for _, tt := range []struct {
		head, id, method string
		isMsg            bool
	}{
		{`{"jsonrpc":"2.0","id":7,"result":"zzz`, "7", "", true},
		{`{"jsonrpc":"2.0","id":"x","method":"tool/call","params":{"a`, `"x"`, "tool/call", true},
		{`{"jsonrpc":"2.0","method":"log","params":{"a`, "", "log", true},
		{`{"jsonrpc":"2.0","result":"zzz`, "", "", true},
		{`{"id":12`, "", "", true},
		{`{"id":12,`, "12", "", true},
		{`{"jsonrpc":"2.`, "", "", true},
		{`zzzz`, "", "", false},
		{`  {"id":3,"error":{`, "3", "", true},
	} {
		id, method, isMsg := readHead([]byte(tt.head))
		if string(id) != tt.id || method != tt.method || isMsg != tt.isMsg {
			t.Errorf("readHead(%q) = %q, %q, %v", tt.head, id, method, isMsg)
		}
	}
}
