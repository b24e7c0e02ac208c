package pluginrpc

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/hearth-agent/hearth/sdk/internal/codec"
)

// MaxMessage is the largest message either side accepts, in bytes. A longer
// line is discarded whole and logged; the call it answers fails with a
// *TooLargeError.
const MaxMessage = 32 << 20

// JSON-RPC error codes used by the protocol (beyond the standard ones).
const (
	CodeParseError      = -32700
	CodeInvalidRequest  = -32600
	CodeMethodNotFound  = -32601
	CodeInvalidParams   = -32602
	CodeInternal        = -32603
	CodeCancelled       = -32800 // the request was cancelled
	CodeVersion         = -32001 // no protocol version in common
	CodeCapability      = -32002 // the method's capability group is not declared
	CodeToolFailed      = -32003 // a tool handler failed (the message is for the model)
	CodeUnavailable     = -32004 // the host does not provide the service
	CodeNotRegistered   = -32005 // unknown tool, stage handler or hook id
	CodeRegisterRefused = -32006 // the host refused a registration
)

// Error is a JSON-RPC error.
type Error struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *Error) Error() string { return e.Message }

// ErrClosed is returned for calls on a closed connection, and to calls
// pending when it closed.
var ErrClosed = errors.New("plugin connection closed")

// message is any JSON-RPC 2.0 message.
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *Error          `json:"error,omitempty"`

	tooLarge bool // the answer was discarded as longer than MaxMessage
}

// Handler answers one request. Its context is cancelled when the peer
// sends $/cancel for it or the connection closes.
type Handler func(ctx context.Context, params json.RawMessage) (any, error)

// Conn is one end of a plugin connection: newline-delimited JSON-RPC 2.0,
// requests in both directions, each answered in its own goroutine so a slow
// one does not hold up the others.
type Conn struct {
	r   *bufio.Reader
	w   io.Writer
	log *slog.Logger

	wmu      sync.Mutex // guards the write buffers
	wbuf     []byte     // lines waiting for the writer in progress
	wspare   []byte     // the last written buffer, reused
	flushing bool       // a goroutine is writing

	mu       sync.Mutex
	handlers map[string]Handler
	pending  map[int64]chan *message
	running  map[string]context.CancelFunc // requests in progress, by id
	runningN map[int64]context.CancelFunc  // the same, for integer ids (no string to make)
	closed   bool
	closeErr error
	done     chan struct{}
	leadCh   chan struct{} // unbuffered: passes the reading role to an idle goroutine
	readErr  chan error    // the reader's final error

	nextID atomic.Int64

	jobSeq   atomic.Uint64 // requests run by a reading goroutine so far
	busy     atomic.Uint64 // the one running now, 0 if none
	watching atomic.Bool   // a watchdog is running
}

// NewConn returns a connection reading r and writing w. Register handlers,
// then call Run.
func NewConn(r io.Reader, w io.Writer, log *slog.Logger) *Conn {
	if log == nil {
		log = slog.Default()
	}
	return &Conn{
		r: bufio.NewReaderSize(r, 64<<10), w: w, log: log,
		handlers: map[string]Handler{}, pending: map[int64]chan *message{},
		running: map[string]context.CancelFunc{}, runningN: map[int64]context.CancelFunc{}, done: make(chan struct{}),
		leadCh: make(chan struct{}), readErr: make(chan error, 1),
	}
}

// Handle sets the handler of method.
func (c *Conn) Handle(method string, h Handler) {
	c.mu.Lock()
	c.handlers[method] = h
	c.mu.Unlock()
}

// Done is closed when the connection has closed.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Err returns why the connection closed.
func (c *Conn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closeErr
}

// Run reads messages until the input ends or Close is called, then closes
// the connection: pending calls fail and running handlers are cancelled.
func (c *Conn) Run() error {
	go c.lead()
	var err error
	select {
	case err = <-c.readErr:
	case <-c.done:
		err = c.Err()
	}
	c.shutdown(err)
	return err
}

// Close closes the connection; Run returns.
func (c *Conn) Close(reason error) {
	if reason == nil {
		reason = ErrClosed
	}
	c.shutdown(reason)
}

func (c *Conn) shutdown(reason error) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	c.closed = true
	switch {
	case reason == nil || errors.Is(reason, io.EOF) || errors.Is(reason, ErrClosed):
		reason = ErrClosed
	default:
		// Calls that were pending see ErrClosed, with the cause (which
		// they can tell when it is a message too large).
		if tl := (*TooLargeError)(nil); errors.As(reason, &tl) {
			reason = fmt.Errorf("%w: %w", ErrClosed, tl)
		} else {
			reason = fmt.Errorf("%w: %v", ErrClosed, reason)
		}
	}
	c.closeErr = reason
	pending := c.pending
	c.pending = map[int64]chan *message{}
	for _, cancel := range c.runningN {
		cancel()
	}
	for _, cancel := range c.running {
		cancel()
	}
	c.mu.Unlock()
	for _, ch := range pending {
		close(ch)
	}
	close(c.done)
}

// Call sends a request and decodes the result into result (which may be
// nil). Cancelling ctx sends $/cancel and returns ctx's error at once.
func (c *Conn) Call(ctx context.Context, method string, params, result any) error {
	id := c.nextID.Add(1)
	line, err := request(id, method, params)
	if err != nil {
		return err
	}
	ch := make(chan *message, 1)
	c.mu.Lock()
	if c.closed {
		err := c.closeErr
		c.mu.Unlock()
		return err
	}
	c.pending[id] = ch
	c.mu.Unlock()
	c.passIfBusy() // the caller may be the reader: its answer must be read
	if err := c.send(line); err != nil {
		c.forget(id)
		return fmt.Errorf("%w: %v", ErrClosed, err)
	}
	select {
	case m, ok := <-ch:
		if !ok {
			return c.Err()
		}
		if m.tooLarge {
			return &TooLargeError{What: "the answer"}
		}
		if m.Error != nil {
			return m.Error
		}
		if result == nil || len(m.Result) == 0 {
			return nil
		}
		if err := codec.Unmarshal(m.Result, result); err != nil {
			return fmt.Errorf("decoding %s result: %w", method, err)
		}
		return nil
	case <-ctx.Done():
		c.forget(id)
		_ = c.Notify("$/cancel", cancelParams{ID: id})
		return ctx.Err()
	}
}

type cancelParams struct {
	ID int64 `json:"id"`
}

func (c *Conn) forget(id int64) {
	c.mu.Lock()
	delete(c.pending, id)
	c.mu.Unlock()
}

// Notify sends a notification (a request without an id, never answered).
func (c *Conn) Notify(method string, params any) error {
	line, err := request(0, method, params)
	if err != nil {
		return err
	}
	c.mu.Lock()
	closed := c.closed
	c.mu.Unlock()
	if closed {
		return ErrClosed
	}
	return c.send(line)
}
