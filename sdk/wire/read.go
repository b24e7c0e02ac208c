package wire

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/hearth-agent/hearth/sdk/internal/codec"
)

// nextRequest reads until a request arrives, delivering answers and
// cancellations on the way, and returns the request, ready to run. Only
// the goroutine holding the reading role calls it (see lead.go). Lines
// that are not JSON, or not JSON-RPC, are logged and skipped: a plugin
// that prints stray text to stdout is noisy, not dead. A message longer
// than MaxMessage is answered at once, see tooLarge. It fails with
// ErrClosed once the connection is closed.
func (c *Conn) nextRequest() (*inbound, error) {
	for {
		select {
		case <-c.done:
			return nil, ErrClosed
		default:
		}
		line, head, err := c.readLine()
		if err != nil {
			return nil, err
		}
		if head != nil {
			if err := c.tooLarge(head); err != nil {
				return nil, err
			}
			continue
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		r := new(inbound)
		if err := decodeMessage(line, &r.m); err != nil || r.m.JSONRPC != "2.0" {
			if err != nil && c.refuse(line, err) {
				continue
			}
			c.log.Warn("ignoring a line that is not a JSON-RPC 2.0 message", "line", preview(line))
			continue
		}
		if c.dispatch(r) {
			return r, nil
		}
	}
}

// headLen is how much of a message longer than MaxMessage is kept, to
// read its id.
const headLen = 4 << 10

// readLine returns the next line or, for a line longer than MaxMessage,
// which is discarded, its first headLen bytes as head.
func (c *Conn) readLine() (line, head []byte, err error) {
	var buf []byte
	tooLong := false
	for {
		chunk, err := c.r.ReadSlice('\n')
		if !tooLong && len(buf)+len(chunk) > MaxMessage {
			tooLong, buf = true, buf[:min(len(buf), headLen)]
		}
		if !tooLong {
			buf = append(buf, chunk...)
		}
		switch {
		case err == nil:
			if tooLong {
				return nil, buf, nil
			}
			return buf, nil, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		default:
			if len(buf) > 0 && !tooLong && errors.Is(err, io.EOF) {
				return buf, nil, nil
			}
			return nil, nil, err
		}
	}
}

// TooLargeError is a message longer than MaxMessage: a call whose answer
// was too large fails with it, and so do all pending calls when the
// connection closes because a too large message could be anyone's answer.
type TooLargeError struct {
	What string // "the answer", or "a message whose id could not be read"
}

// Error says what was too large and the limit.
func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s was larger than %d MiB, the most one message may hold", e.What, MaxMessage>>20)
}

// tooLarge answers a message longer than MaxMessage, of which head is the
// beginning: the call it answers fails with a *TooLargeError, a request
// gets an error reply, and anything else is logged and skipped. A
// message that may be an answer but whose id is not in head leaves no way
// to tell which call it answers: the connection fails, so no call waits
// for an answer that was dropped.
func (c *Conn) tooLarge(head []byte) error {
	id, method, isMsg := readHead(head)
	c.log.Warn("discarded a message longer than the limit", "limit", MaxMessage, "id", string(id), "method", method,
		"start", preview(head))
	switch {
	case !isMsg:
		return nil // stray output
	case method != "":
		if id != nil {
			c.reply(id, nil, &Error{Code: CodeInvalidRequest, Message: (&TooLargeError{What: "the request"}).Error()})
		}
		return nil
	case id == nil:
		return &TooLargeError{What: "a message whose id could not be read"}
	}
	if ch := c.takePending(id); ch != nil {
		ch <- &message{ID: id, tooLarge: true}
	}
	return nil
}

// takePending removes and returns the channel of the call that waits for
// the answer with this id; nil if none does, or the id is not one this
// side sent.
func (c *Conn) takePending(id json.RawMessage) chan *message {
	n, ok := parseID(id)
	if !ok {
		return nil
	}
	c.mu.Lock()
	ch := c.pending[n]
	delete(c.pending, n)
	c.mu.Unlock()
	return ch
}

// readHead reads the id and method of a message from its beginning, as
// far as they come before any other member (as both sides of this package
// and most JSON encoders write them). isMsg is false when head is not the
// start of a JSON object at all.
func readHead(head []byte) (id json.RawMessage, method string, isMsg bool) {
	dec := jsontext.NewDecoder(bytes.NewReader(head))
	if t, err := dec.ReadToken(); err != nil || t.Kind() != '{' {
		return nil, "", false
	}
	for {
		t, err := dec.ReadToken()
		if err != nil || t.Kind() != '"' {
			return id, method, true
		}
		switch t.String() {
		case "jsonrpc":
			if dec.SkipValue() != nil {
				return id, method, true
			}
		case "id":
			v, err := dec.ReadValue()
			if err != nil || dec.InputOffset() == int64(len(head)) {
				return id, method, true // a number at the end may go on
			}
			id = json.RawMessage(v.Clone())
		case "method":
			t, err := dec.ReadToken()
			if err != nil || t.Kind() != '"' {
				return id, "", true
			}
			method = t.String()
		default:
			return id, method, true
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

// dispatch delivers an answer or cancels a request, or prepares r, a
// request, to run and reports true. Messages are dispatched in the order
// they were read, so a request is in the table of running requests
// before a $/cancel sent after it is read.
func (c *Conn) dispatch(r *inbound) bool {
	m := &r.m
	switch {
	case m.Method == "$/cancel":
		var p struct {
			ID json.RawMessage `json:"id"`
		}
		if codec.Unmarshal(m.Params, &p) == nil {
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
		if ch := c.takePending(m.ID); ch != nil {
			ch <- m
			if c.r.Buffered() == 0 {
				// A scheduling hint, not needed for correctness: let the
				// caller run now, on this thread, while its cache is warm;
				// this goroutine's next step is a read that will find
				// nothing and wait, which another thread can do.
				runtime.Gosched()
			}
		}
	}
	return false
}

// serve prepares a request to run, registering it so a $/cancel finds it;
// false if the connection is closed.
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
