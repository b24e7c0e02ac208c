package wire

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
	CodeCallEnded       = -32007 // a memory or knowledge write carried the token of an ended call, or one never given to this plugin
)

// Error is a JSON-RPC error.
type Error struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// Error returns the message.
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
// requests in both directions, answered concurrently: a slow request
// holds up neither the others nor the answers its own calls to the peer
// wait for.
//
// One goroutine at a time reads (see lead.go): it hands each answer to
// the call waiting for it, cancels the request a $/cancel names, and runs
// each request, handing the reading on to a new goroutine if the request
// runs long or calls the peer. Writers share one write path (see send).
type Conn struct {
	r      *bufio.Reader
	closer io.Closer // the input, when Close can close it to stop Run's read
	w      io.Writer
	log    *slog.Logger

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
	readErr  chan error // why reading stopped, sent once

	nextID atomic.Int64

	// The reading role, see lead.go.
	busy     atomic.Uint64 // the token of the request the reader runs; 0 if none
	lmu      sync.Mutex
	lent     uint64 // requests run by the reader so far; the last token
	watching bool   // a watchdog runs
}

// NewConn returns a connection reading r and writing w. Register handlers,
// then call Run. If r is an io.Closer, Close closes it (see Close).
func NewConn(r io.Reader, w io.Writer, log *slog.Logger) *Conn {
	if log == nil {
		log = slog.Default()
	}
	closer, _ := r.(io.Closer)
	return &Conn{
		r: bufio.NewReaderSize(r, 64<<10), closer: closer, w: w, log: log,
		handlers: map[string]Handler{}, pending: map[int64]chan *message{},
		running: map[string]context.CancelFunc{}, runningN: map[int64]context.CancelFunc{}, done: make(chan struct{}), readErr: make(chan error, 1),
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
// It returns why reading stopped: the input's error (io.EOF when it
// ended), or, after Close, Close's reason as Err reports it. It returns
// once nothing reads the input any more; handlers still running have
// been cancelled but are not waited for. Run must be called once.
func (c *Conn) Run() error {
	go c.lead()
	err := <-c.readErr
	if !c.shutdown(err) {
		err = c.Err() // Close stopped the read
	}
	return err
}

// Close closes the connection: pending calls fail with an error that
// matches ErrClosed and says reason, handlers are cancelled, and Run
// returns. To stop Run's read, Close closes the input when it is an
// io.Closer (an io.PipeReader, the pipe from exec.Cmd.StdoutPipe, a
// network connection). When it is not, or when closing it does not
// interrupt a read in progress (an *os.File in blocking mode, such as a
// child's os.Stdin), Run returns only when that read returns, because the
// peer writes or closes its end; nothing it reads is handled any more.
func (c *Conn) Close(reason error) {
	if reason == nil {
		reason = ErrClosed
	}
	c.shutdown(reason)
	if c.closer != nil {
		_ = c.closer.Close() // the read in progress fails, and Run returns
	}
}

// shutdown closes the connection for reason, unless it is closed already;
// it reports whether it closed it.
func (c *Conn) shutdown(reason error) bool {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return false
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
	return true
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
		putLine(line)
		return err
	}
	c.pending[id] = ch
	c.mu.Unlock()
	c.pass(0) // the caller may be a request running on the reader: its answer must be read
	err = c.send(line)
	putLine(line)
	if err != nil {
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
	defer putLine(line)
	c.mu.Lock()
	closed := c.closed
	c.mu.Unlock()
	if closed {
		return ErrClosed
	}
	return c.send(line)
}
