package wire

import (
	"encoding/json"
	"fmt"
	"strconv"
	"sync"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/hearth-agent/hearth/sdk/internal/codec"
)

func (c *Conn) reply(id json.RawMessage, result any, err error) {
	buf := codec.Buffer()
	defer codec.PutBuffer(buf)
	encodeReply(buf, id, result, err)
	if werr := c.send(buf.Bytes()); werr != nil {
		c.log.Debug("could not send a reply", "err", werr)
	}
}

// request encodes a request or, with id 0, a notification, as one line
// from the pool: the caller puts it back (putLine) once it is sent.
func request(id int64, method string, params any) ([]byte, error) {
	buf := codec.Buffer()
	defer codec.PutBuffer(buf)
	b := append(buf.AvailableBuffer(), `{"jsonrpc":"2.0"`...)
	if id != 0 {
		b = append(b, `,"id":`...)
		b = strconv.AppendInt(b, id, 10)
	}
	b = append(b, `,"method":`...)
	b, err := jsontext.AppendQuote(b, method)
	if err != nil {
		return nil, fmt.Errorf("encoding the method name %q: %w", method, err)
	}
	buf.Write(append(b, `,"params":`...))
	if err := codec.MarshalWrite(buf, params); err != nil {
		return nil, fmt.Errorf("encoding %s params: %w", method, err)
	}
	buf.WriteString("}\n")
	return append(getLine(), buf.Bytes()...), nil
}

// linePool holds buffers for encoding outgoing lines; send copies a line
// before it returns, so its buffer can be reused at once.
var linePool = sync.Pool{New: func() any { return new([]byte) }}

// maxPooled is the largest buffer put back: a rare huge message should
// not stay in memory.
const maxPooled = 64 << 10

func getLine() []byte { return (*linePool.Get().(*[]byte))[:0] }

func putLine(b []byte) {
	if cap(b) <= maxPooled {
		linePool.Put(&b)
	}
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
