package wire

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/go-json-experiment/json/jsontext"
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
	case m.ID == nil || !jsontext.Value(m.ID).IsValid(): // a notification, or no id to answer
	case m.Method != "":
		c.reply(m.ID, nil, e)
	default:
		if ch := c.takePending(m.ID); ch != nil {
			ch <- &message{ID: m.ID, Error: e}
		}
	}
	return true
}

// encodeReply encodes the reply to the request with this id (as it came,
// checked) as one line into buf: its result, or err as an *Error (a
// result that cannot be encoded becomes a CodeInternal error). The
// envelope is written here, the values by the codec.
func encodeReply(buf *bytes.Buffer, id json.RawMessage, result any, err error) {
	head := func() {
		buf.WriteString(`{"jsonrpc":"2.0","id":`)
		buf.Write(id)
	}
	head()
	if err == nil {
		buf.WriteString(`,"result":`)
		if err = codec.MarshalWrite(buf, result); err != nil {
			buf.Reset()
			head()
			err = &Error{Code: CodeInternal, Message: "encoding the result: " + err.Error()}
		}
	}
	if err != nil {
		var re *Error
		if !errors.As(err, &re) {
			re = &Error{Code: CodeInternal, Message: err.Error()}
		}
		mark := buf.Len()
		buf.WriteString(`,"error":`)
		if codec.MarshalWrite(buf, re) != nil { // its Data is not JSON
			buf.Truncate(mark)
			buf.WriteString(`,"error":`)
			_ = codec.MarshalWrite(buf, &Error{Code: re.Code, Message: re.Message})
		}
	}
	buf.WriteString("}\n")
}

// Unmarshal decodes data into v by the codec's rules (member names match
// exactly, a name given twice and invalid UTF-8 are refused: see
// docs/protocol.md), as the connection decodes every message. A host
// decodes what a plugin sends it with Unmarshal or DecodeParams, so both
// sides of the protocol read alike.
func Unmarshal(data []byte, v any) error { return codec.Unmarshal(data, v) }

// DecodeParams is Unmarshal for a request's params: its error is an
// *Error with CodeInvalidParams, ready for a Handler to return.
func DecodeParams(params json.RawMessage, v any) error {
	if err := codec.Unmarshal(params, v); err != nil {
		return &Error{Code: CodeInvalidParams, Message: err.Error()}
	}
	return nil
}
