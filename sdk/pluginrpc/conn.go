package pluginrpc

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"runtime/debug"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hearth-agent/hearth/internal/jsonwire"
)

// MaxMessage is the largest message either side accepts, in bytes. A longer
// line is discarded whole and logged.
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
		// Calls that were pending see ErrClosed, with the cause.
		reason = fmt.Errorf("%w: %v", ErrClosed, reason)
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

// lead reads messages while this goroutine holds the reading role. A
// request is run by the goroutine that read it, right away, so a quick
// request never pays for waking another goroutine (nor for a timer: on a
// small machine arming one per request wakes an idle thread each time).
// The reading role passes to an idle goroutine (or a new one), so that
// other requests, cancellations and responses are read meanwhile, when the
// request is seen still running by the watchdog, or when anything makes a
// Call on the connection while it runs (a handler calling the peer needs
// its response read). Having run a request whose role was passed on, the
// goroutine waits to read again.
func (c *Conn) lead() {
	for {
		req, err := c.nextRequest()
		if err != nil {
			c.readErr <- err
			return
		}
		tok := c.jobSeq.Add(1)
		c.busy.Store(tok)
		if !c.watching.Load() && c.watching.CompareAndSwap(false, true) {
			go c.watchdog()
		}
		c.run(req)
		if c.busy.CompareAndSwap(tok, 0) {
			continue // still the reader
		}
		if !c.follow() {
			return
		}
	}
}

// passIfBusy passes the reading role on if its holder is running a
// request.
func (c *Conn) passIfBusy() {
	if tok := c.busy.Load(); tok != 0 && c.busy.CompareAndSwap(tok, 0) {
		c.passLead()
	}
}

// leadCheck is how often the watchdog looks for a request that holds up
// reading: one running at two looks in a row has run for at least this
// long.
const leadCheck = time.Millisecond

// watchIdle is how many looks without a request the watchdog waits before
// it ends; the next request starts it again.
const watchIdle = 100

// watchdog passes the reading role on from a request that runs long. One
// runs while requests keep coming.
func (c *Conn) watchdog() {
	t := time.NewTicker(leadCheck)
	defer t.Stop()
	var lastBusy, lastSeq uint64
	idle := 0
	for {
		select {
		case <-t.C:
		case <-c.done:
			return
		}
		busy := c.busy.Load()
		if busy != 0 && busy == lastBusy && c.busy.CompareAndSwap(busy, 0) {
			c.passLead()
		}
		lastBusy = busy
		seq := c.jobSeq.Load()
		if seq != lastSeq || busy != 0 {
			idle, lastSeq = 0, seq
			continue
		}
		if idle++; idle < watchIdle {
			continue
		}
		// Stop, unless a request started meanwhile and its reader saw
		// this watchdog still running.
		c.watching.Store(false)
		if c.jobSeq.Load() == seq || !c.watching.CompareAndSwap(false, true) {
			return
		}
		idle = 0
	}
}

// passLead gives the reading role to an idle goroutine, or a new one.
func (c *Conn) passLead() {
	select {
	case c.leadCh <- struct{}{}:
	default:
		go c.lead()
	}
}

// idleReader is how long a goroutine waits to read again before it ends.
const idleReader = 30 * time.Second

// follow waits for the reading role; false means this goroutine should end.
func (c *Conn) follow() bool {
	t := time.NewTimer(idleReader)
	defer t.Stop()
	select {
	case <-c.leadCh:
		return true
	case <-t.C:
		return false
	case <-c.done:
		return false
	}
}

// nextRequest reads until a request arrives, delivering responses and
// cancellations on the way, and returns the request, ready to run. Lines
// that are too long, not JSON, or not JSON-RPC are logged and skipped: a
// plugin that prints stray text to stdout is noisy, not dead.
func (c *Conn) nextRequest() (*inbound, error) {
	for {
		line, err := c.readLine()
		if err != nil {
			return nil, err
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		r := new(inbound)
		if err := decodeMessage(line, &r.m); err != nil || r.m.JSONRPC != "2.0" {
			c.log.Warn("ignoring a line that is not a JSON-RPC 2.0 message", "line", preview(line))
			continue
		}
		if c.dispatch(r) {
			return r, nil
		}
	}
}

// readLine returns the next line, skipping any longer than MaxMessage.
func (c *Conn) readLine() ([]byte, error) {
	var buf []byte
	tooLong := false
	for {
		chunk, err := c.r.ReadSlice('\n')
		if !tooLong {
			if len(buf)+len(chunk) > MaxMessage {
				tooLong, buf = true, nil
			} else {
				buf = append(buf, chunk...)
			}
		}
		switch {
		case err == nil:
			if tooLong {
				c.log.Warn("discarded a message longer than the limit", "limit", MaxMessage)
				tooLong = false
				continue
			}
			return buf, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		default:
			if len(buf) > 0 && !tooLong && errors.Is(err, io.EOF) {
				return buf, nil
			}
			return nil, err
		}
	}
}

func preview(b []byte) string {
	if len(b) > 200 {
		return string(b[:200]) + "…"
	}
	return string(b)
}

// inbound is a message read, and for a request the state of its run.
type inbound struct {
	m      message
	h      Handler
	key    string // the id, as the key of running, unless
	keyN   int64  // it is an integer, the key of runningN
	ctx    context.Context
	cancel context.CancelFunc
}

// dispatch handles a response or a cancellation, or prepares r, a request,
// to run and reports true.
func (c *Conn) dispatch(r *inbound) bool {
	m := &r.m
	switch {
	case m.Method == "$/cancel":
		var p struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal(m.Params, &p) == nil {
			c.mu.Lock()
			cancel := c.running[string(p.ID)]
			if n, ok := parseID(p.ID); ok {
				cancel = c.runningN[n]
			}
			c.mu.Unlock()
			if cancel != nil {
				cancel()
			}
		}
	case m.Method != "":
		return c.serve(r)
	case m.ID != nil:
		id, ok := parseID(m.ID)
		if !ok {
			return false // not an id this side sent
		}
		c.mu.Lock()
		ch := c.pending[id]
		delete(c.pending, id)
		c.mu.Unlock()
		if ch != nil {
			ch <- m
			if c.r.Buffered() == 0 {
				// Let the caller run now, on this thread, while its cache
				// is warm: this goroutine's next step is a read that will
				// find nothing and park, which another thread can do.
				runtime.Gosched()
			}
		}
	}
	return false
}

// serve prepares a request to run; false if the connection is closed.
func (c *Conn) serve(r *inbound) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return false
	}
	r.h = c.handlers[r.m.Method]
	r.ctx, r.cancel = context.WithCancel(context.Background())
	if r.m.ID != nil {
		if n, ok := parseID(r.m.ID); ok {
			r.keyN = n
			c.runningN[n] = r.cancel
		} else {
			r.key = string(r.m.ID)
			c.running[r.key] = r.cancel
		}
	}
	return true
}

// run runs a request's handler and sends the reply.
func (c *Conn) run(r *inbound) {
	m := &r.m
	defer r.cancel()
	var result any
	var err error
	if r.h == nil {
		err = &Error{Code: CodeMethodNotFound, Message: "method not found: " + m.Method}
	} else {
		result, err = c.call(r.ctx, r.h, m)
	}
	if m.ID == nil { // a notification
		if err != nil {
			c.log.Warn("notification failed", "method", m.Method, "err", err)
		}
		return
	}
	c.mu.Lock()
	if r.key != "" {
		delete(c.running, r.key)
	} else {
		delete(c.runningN, r.keyN)
	}
	c.mu.Unlock()
	if r.ctx.Err() != nil && err != nil {
		err = &Error{Code: CodeCancelled, Message: "request cancelled"}
	}
	c.reply(m.ID, result, err)
}

func (c *Conn) call(ctx context.Context, h Handler, m *message) (result any, err error) {
	defer func() {
		if p := recover(); p != nil {
			c.log.Error("request handler panicked", "method", m.Method, "panic", p, "stack", string(debug.Stack()))
			err = &Error{Code: CodeInternal, Message: fmt.Sprintf("internal error handling %s", m.Method)}
		}
	}()
	return h(ctx, m.Params)
}

func (c *Conn) reply(id json.RawMessage, result any, err error) {
	b := make([]byte, 0, 128)
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	if err == nil {
		mark := len(b)
		b = append(b, `,"result":`...)
		if b, err = appendValue(b, result); err != nil {
			b = b[:mark]
			err = &Error{Code: CodeInternal, Message: "encoding the result: " + err.Error()}
		}
	}
	if err != nil {
		var re *Error
		if !errors.As(err, &re) {
			re = &Error{Code: CodeInternal, Message: err.Error()}
		}
		e, _ := json.Marshal(re)
		b = append(b, `,"error":`...)
		b = append(b, e...)
	}
	if werr := c.send(append(b, "}\n"...)); werr != nil {
		c.log.Debug("could not send a reply", "err", werr)
	}
}

// request encodes a request or, with id 0, a notification.
func request(id int64, method string, params any) ([]byte, error) {
	b := make([]byte, 0, 256)
	b = append(b, `{"jsonrpc":"2.0"`...)
	if id != 0 {
		b = append(b, `,"id":`...)
		b = strconv.AppendInt(b, id, 10)
	}
	b = append(b, `,"method":`...)
	b = jsonwire.AppendString(b, method)
	b = append(b, `,"params":`...)
	b, err := appendValue(b, params)
	if err != nil {
		return nil, fmt.Errorf("encoding %s params: %w", method, err)
	}
	return append(b, "}\n"...), nil
}

// parseID reads an id this side sent: a positive integer.
func parseID(raw json.RawMessage) (int64, bool) {
	if len(raw) == 0 || len(raw) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range raw {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// send writes one encoded line. Writers that arrive while another is in
// the middle of a write append their lines to a buffer that the writing
// one sends next, so concurrent messages share write calls; a lone message
// is written at once.
func (c *Conn) send(line []byte) error {
	c.wmu.Lock()
	c.wbuf = append(c.wbuf, line...)
	if c.flushing {
		c.wmu.Unlock()
		return nil
	}
	c.flushing = true
	var err error
	for len(c.wbuf) > 0 && err == nil {
		buf := c.wbuf
		c.wbuf = c.wspare[:0]
		c.wmu.Unlock()
		_, err = c.w.Write(buf)
		c.wmu.Lock()
		c.wspare = buf
	}
	if err != nil {
		c.wbuf = c.wbuf[:0] // the peer is gone; the reader will close the connection
	}
	c.flushing = false
	c.wmu.Unlock()
	return err
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
		if m.Error != nil {
			return m.Error
		}
		if result == nil || len(m.Result) == 0 {
			return nil
		}
		// The connection checked the whole line before handing it here.
		if d, ok := result.(wireDecoder); ok {
			err = d.decodeJSON(m.Result, true)
		} else {
			err = json.Unmarshal(m.Result, result)
		}
		if err != nil {
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
