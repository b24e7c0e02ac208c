package pluginrpc

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/hearth-agent/hearth/sdk/internal/codec"
)

// Every message is encoded and decoded by sdk/internal/codec, the SDK's
// one JSON codec, with the wire types' struct tags; docs/protocol.md says
// what it accepts.

// decodeMessage decodes one line.
func decodeMessage(line []byte, m *message) error { return codec.Unmarshal(line, m) }

// refuse answers a line that is a JSON-RPC 2.0 message but breaks the
// codec's rules (a name given twice, invalid UTF-8), and reports whether
// it was one: the call it answers fails with err, a request gets an error
// reply, so neither waits for its timeout.
func (c *Conn) refuse(line []byte, err error) bool {
	var m message
	if codec.UnmarshalLoose(line, &m) != nil || m.JSONRPC != "2.0" {
		return false
	}
	c.log.Warn("refused a message that is not strictly valid JSON", "err", err, "id", string(m.ID), "method", m.Method)
	e := &Error{Code: CodeParseError, Message: "invalid JSON: " + err.Error()}
	switch {
	case m.ID == nil: // a notification
	case m.Method != "":
		c.reply(m.ID, nil, e)
	default:
		if ch := c.takePending(m.ID); ch != nil {
			ch <- &message{ID: m.ID, Error: e}
		}
	}
	return true
}

// outRequest is a request or, without an id, a notification, as written.
type outRequest struct {
	JSONRPC string `json:"jsonrpc"`
	ID      int64  `json:"id,omitzero"`
	Method  string `json:"method"`
	Params  any    `json:"params"`
}

// outResult and outError are the two shapes of a reply, as written.
type (
	outResult struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Result  any             `json:"result"`
	}
	outError struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   *Error          `json:"error"`
	}
)

// encodeReply encodes the reply to the request with this id as one line
// into buf: its result, or err as an *Error (a result that cannot be
// encoded becomes a CodeInternal error).
func encodeReply(buf *bytes.Buffer, id json.RawMessage, result any, err error) {
	if err == nil {
		if err = codec.MarshalWrite(buf, outResult{JSONRPC: "2.0", ID: id, Result: result}); err != nil {
			buf.Reset()
			err = &Error{Code: CodeInternal, Message: "encoding the result: " + err.Error()}
		}
	}
	if err != nil {
		var re *Error
		if !errors.As(err, &re) {
			re = &Error{Code: CodeInternal, Message: err.Error()}
		}
		if codec.MarshalWrite(buf, outError{JSONRPC: "2.0", ID: id, Error: re}) != nil {
			buf.Reset() // an *Error always encodes, unless its Data is not JSON
			_ = codec.MarshalWrite(buf, outError{JSONRPC: "2.0", ID: id, Error: &Error{Code: re.Code, Message: re.Message}})
		}
	}
	buf.WriteByte('\n')
}
