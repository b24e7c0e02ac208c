package pluginrpc

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
)

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
