package wire

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"testing"

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
// does) runs on the goroutine that read its request: Call passes the
// reading on, for the answer to be read.
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
	if err := <-seen; !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
}

// The one reader sees a request before a $/cancel sent after it, however
// close together they come, so the cancellation always finds the request.
func TestCancelRightAfterTheRequest(t *testing.T) {
	in, peer := io.Pipe()
	out := newSignalWriter()
	c := NewConn(in, out, nil)
	seen := make(chan error, 1)
	c.Handle("wait", func(ctx context.Context, _ json.RawMessage) (any, error) {
		<-ctx.Done()
		seen <- ctx.Err()
		return nil, ctx.Err()
	})
	done := make(chan error, 1)
	go func() { done <- c.Run() }()
	io.WriteString(peer, `{"jsonrpc":"2.0","id":"a","method":"wait"}`+"\n"+`{"jsonrpc":"2.0","method":"$/cancel","params":{"id":"a"}}`+"\n")
	if err := <-seen; !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
	<-out.wrote // the reply
	if got, want := out.String(), `{"jsonrpc":"2.0","id":"a","error":{"code":-32800,"message":"request cancelled"}}`+"\n"; got != want {
		t.Fatalf("reply %q, want %q", got, want)
	}
	peer.Close()
	<-done
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
	out := newSignalWriter()
	c := NewConn(r, out, nil)
	done := make(chan error, 1)
	go func() { done <- c.Run() }()
	called := make(chan error, 1)
	go func() { called <- c.Call(context.Background(), "x", nil, nil) }()
	<-out.wrote // the call is pending before its request is written
	w.Close()   // the peer's output ends
	if err := <-called; !errors.Is(err, ErrClosed) || err.Error() != ErrClosed.Error() {
		t.Fatalf("pending call: %v", err)
	}
	if err := <-done; !errors.Is(err, io.EOF) {
		t.Fatalf("Run: %v", err)
	}
	if err := c.Call(context.Background(), "x", nil, nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("call after close: %v", err)
	}
}

// Close stops a reader blocked in a read that would never return (the
// peer is alive but silent): Run returns, pending calls fail with the
// reason, and running handlers are cancelled. goleak (TestMain) checks
// that no goroutine is left.
func TestCloseUnblocksTheReader(t *testing.T) {
	for _, tt := range []struct {
		name string
		pipe func(t *testing.T) (r io.ReadCloser, w io.Closer)
	}{
		{"io.Pipe", func(*testing.T) (io.ReadCloser, io.Closer) { return io.Pipe() }},
		{"os.Pipe", func(t *testing.T) (io.ReadCloser, io.Closer) {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			return r, w
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r, w := tt.pipe(t)
			defer w.Close()
			out := newSignalWriter()
			c := NewConn(r, out, nil)
			running := make(chan struct{})
			cancelled := make(chan error, 1)
			c.Handle("wait", func(ctx context.Context, _ json.RawMessage) (any, error) {
				close(running)
				<-ctx.Done()
				cancelled <- ctx.Err()
				return nil, ctx.Err()
			})
			done := make(chan error, 1)
			go func() { done <- c.Run() }()
			called := make(chan error, 1)
			go func() { called <- c.Call(context.Background(), "x", nil, nil) }()
			<-out.wrote // pending

			// A request already read runs until Close cancels it. The
			// pipe is written here and never again.
			ww := w.(io.Writer)
			io.WriteString(ww, `{"jsonrpc":"2.0","id":"h","method":"wait"}`+"\n")
			<-running

			reason := errors.New("plugin stopped")
			c.Close(reason)
			for name, err := range map[string]error{"Run": <-done, "pending call": <-called} {
				if !errors.Is(err, ErrClosed) || err.Error() != "plugin connection closed: plugin stopped" {
					t.Errorf("%s: %v", name, err)
				}
			}
			if err := <-cancelled; !errors.Is(err, context.Canceled) {
				t.Errorf("handler: %v", err)
			}
			if err := c.Call(context.Background(), "x", nil, nil); err == nil || err.Error() != "plugin connection closed: plugin stopped" {
				t.Errorf("call after Close: %v", err)
			}
		})
	}
}

// An input that Close cannot close keeps Run in its read until the peer
// writes or closes, but pending calls fail at Close all the same.
func TestCloseWithAnInputThatCannotBeClosed(t *testing.T) {
	r, w := io.Pipe()
	out := newSignalWriter()
	c := NewConn(struct{ io.Reader }{r}, out, nil)
	done := make(chan error, 1)
	go func() { done <- c.Run() }()
	called := make(chan error, 1)
	go func() { called <- c.Call(context.Background(), "x", nil, nil) }()
	<-out.wrote
	c.Close(nil)
	if err := <-called; err != ErrClosed {
		t.Fatalf("pending call: %v", err)
	}
	w.Close() // the read returns; Run sees the connection closed
	if err := <-done; err != ErrClosed {
		t.Fatalf("Run: %v", err)
	}
}

// Lines that are not JSON-RPC messages are skipped; what follows is served.
func TestStrayLines(t *testing.T) {
	in := strings.NewReader("hello from a library\n\n{not json\n[1,2]\n" +
		`{"id":1,"method":"echo"}` + "\n" + // not 2.0
		`{"jsonrpc":"2.0","id":7,"method":"echo","params":"ok"}` + "\n")
	out := newSignalWriter()
	c := NewConn(in, out, slog.New(slog.NewTextHandler(io.Discard, nil)))
	c.Handle("echo", func(_ context.Context, p json.RawMessage) (any, error) { return p, nil })
	if err := c.Run(); !errors.Is(err, io.EOF) {
		t.Fatalf("Run: %v", err)
	}
	<-out.wrote
	if got, want := out.String(), `{"jsonrpc":"2.0","id":7,"result":"ok"}`+"\n"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// signalWriter records what is written and closes wrote at the first
// write: a call is pending once its request is written.
type signalWriter struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	wrote chan struct{}
	once  sync.Once
}

func newSignalWriter() *signalWriter { return &signalWriter{wrote: make(chan struct{})} }

func (s *signalWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.once.Do(func() { close(s.wrote) })
	return s.buf.Write(p)
}

func (s *signalWriter) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

func FuzzDecoder(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"echo","params":{"a":"b"}}` + "\n"))
	f.Add([]byte(`{"jsonrpc":"2.0","id":"x","result":1}` + "\n" + `{"jsonrpc":"2.0","method":"$/cancel","params":{"id":1}}` + "\n"))
	f.Add([]byte("garbage\n\n{\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c := NewConn(bytes.NewReader(data), newSignalWriter(), slog.New(slog.NewTextHandler(io.Discard, nil)))
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
