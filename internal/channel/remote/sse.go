package remote

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// maxEventBytes caps one server-sent event (its lines together): a turn's
// events are small, and a stream that never ends a line must not grow
// without bound.
const maxEventBytes = 4 << 20

// ErrEventTooLarge is returned by the SSE reader for an event past
// maxEventBytes.
var ErrEventTooLarge = errors.New("server-sent event too large")

// sseEvent is one dispatched server-sent event.
type sseEvent struct {
	ID string // the stream's last event id once this event is read
	// Own says the event had an id line of its own. The contract gives
	// every event of a turn one; an event without is the stream's own
	// notice (the daemon's "fell behind" error before it closes).
	Own   bool
	Event string // the event's name; "message" when the server gave none
	Data  string // the data lines, joined by \n
}

// sseReader reads server-sent events as the WHATWG HTML standard's
// "event stream interpretation" describes: lines end in \n, \r\n or \r;
// comments start with ':'; a field without ':' has an empty value; one
// space after the ':' is dropped; data lines accumulate; a blank line
// dispatches; an event with no data is not dispatched; an id containing
// NUL is ignored; retry and unknown fields are ignored. A lone \r ends a
// line only once the \n-terminated chunk holding it has arrived, which is
// enough for every server this client talks to.
type sseReader struct {
	br     *bufio.Reader
	lastID string
	// pending holds the lines of a chunk split at lone \r, not yet read.
	pending [][]byte
}

func newSSEReader(r io.Reader) *sseReader {
	return &sseReader{br: bufio.NewReaderSize(r, 64<<10)}
}

// line returns the next line without its terminator. A last line without
// terminator at EOF is returned, and io.EOF after it.
func (r *sseReader) line() ([]byte, error) {
	if len(r.pending) > 0 {
		l := r.pending[0]
		r.pending = r.pending[1:]
		return l, nil
	}
	var chunk []byte
	for {
		part, err := r.br.ReadSlice('\n')
		if len(chunk)+len(part) > maxEventBytes {
			return nil, ErrEventTooLarge
		}
		chunk = append(chunk, part...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil && (!errors.Is(err, io.EOF) || len(chunk) == 0) {
			return nil, err
		}
		break
	}
	chunk = bytes.TrimSuffix(chunk, []byte("\n"))
	chunk = bytes.TrimSuffix(chunk, []byte("\r"))
	if bytes.IndexByte(chunk, '\r') < 0 {
		return chunk, nil
	}
	lines := bytes.Split(chunk, []byte("\r"))
	r.pending = lines[1:]
	return lines[0], nil
}

// next returns the next event. At the end of the stream it returns io.EOF
// (an event not ended by a blank line is dropped, as the standard says);
// a broken connection returns its error.
func (r *sseReader) next() (sseEvent, error) {
	var (
		name    string
		own     bool
		data    bytes.Buffer
		hasData bool
		size    int
	)
	for {
		l, err := r.line()
		if err != nil {
			return sseEvent{}, err
		}
		size += len(l)
		if size > maxEventBytes {
			return sseEvent{}, ErrEventTooLarge
		}
		if len(l) == 0 {
			if !hasData {
				name, own = "", false
				continue
			}
			if name == "" {
				name = "message"
			}
			return sseEvent{ID: r.lastID, Own: own, Event: name, Data: string(bytes.TrimSuffix(data.Bytes(), []byte("\n")))}, nil
		}
		if l[0] == ':' {
			continue
		}
		field, value, _ := bytes.Cut(l, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch string(field) {
		case "event":
			name = string(value)
		case "data":
			data.Write(value)
			data.WriteByte('\n')
			hasData = true
		case "id":
			if bytes.IndexByte(value, 0) < 0 {
				r.lastID, own = string(value), true
			}
		}
	}
}

// String describes e for error messages and test failures.
func (e sseEvent) String() string { return fmt.Sprintf("%s#%s %s", e.Event, e.ID, e.Data) }
