package pluginrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/hearth-agent/hearth/internal/jsonwire"
	"github.com/hearth-agent/hearth/sdk"
)

// The messages of every tool call (the envelope, ToolCallParams,
// ToolCallResult) are encoded and decoded here without reflection: a call
// crosses the protocol twice, and encoding/json's validate-then-decode
// passes were most of the protocol's CPU time. Decoding falls back to
// encoding/json for anything unusual (escaped or case-folded member
// names), so the result is the same; codec_test.go checks that on fuzzed
// input.

// wireEncoder is implemented by the wire types that append their own JSON.
type wireEncoder interface {
	appendJSON(b []byte) ([]byte, error)
}

// wireDecoder is implemented by the wire types that decode themselves.
// valid says b was checked already (it is a value inside a message the
// connection scanned whole), so only ends need finding.
type wireDecoder interface {
	decodeJSON(b []byte, valid bool) error
}

func newObject(b []byte, valid bool) (jsonwire.Object, error) {
	if valid {
		return jsonwire.NewValidObject(b)
	}
	return jsonwire.NewObject(b)
}

// appendValue appends v's JSON: a wireEncoder appends itself, raw JSON is
// checked and spliced, anything else goes through encoding/json.
func appendValue(b []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case wireEncoder:
		return x.appendJSON(b)
	case json.RawMessage:
		return appendRaw(b, x)
	}
	enc, err := json.Marshal(v)
	if err != nil {
		return b, err
	}
	return append(b, enc...), nil
}

// appendRaw splices raw JSON (null when empty) after checking it, compacted
// if it spans lines: a message is one line.
func appendRaw(b []byte, raw json.RawMessage) ([]byte, error) {
	if len(raw) == 0 {
		return append(b, "null"...), nil
	}
	if !jsonwire.Valid(raw) {
		return b, fmt.Errorf("invalid JSON: %.40s", raw)
	}
	if bytes.IndexByte(raw, '\n') < 0 {
		return append(b, bytes.TrimSpace(raw)...), nil
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return b, err
	}
	return append(b, buf.Bytes()...), nil
}

// folds reports whether key matches one of names only as encoding/json's
// case-insensitive matching would, which the fast decoders leave to it.
func folds(key []byte, names ...string) bool {
	for _, n := range names {
		if bytes.EqualFold(key, []byte(n)) {
			return true
		}
	}
	return false
}

// decodeMessage decodes one line. The values it keeps (id, params, result)
// are slices of line, which the caller does not reuse.
func decodeMessage(line []byte, m *message) error {
	err := members(line, false, messageNames, func(key, v []byte) (bool, error) {
		var err error
		switch string(key) {
		case "jsonrpc":
			err = setString(&m.JSONRPC, v)
		case "id":
			m.ID = v
		case "method":
			err = setString(&m.Method, v)
		case "params":
			m.Params = v
		case "result":
			m.Result = v
		case "error":
			if jsonwire.Null(v) {
				m.Error = nil
				break
			}
			if m.Error == nil {
				m.Error = new(Error)
			}
			err = json.Unmarshal(v, m.Error)
		default:
			return false, nil
		}
		return true, err
	})
	if err == errSlow {
		*m = message{}
		return json.Unmarshal(line, m)
	}
	return err
}

func isNull(b []byte) bool { return jsonwire.Null(jsonwire.TrimSpace(b)) }

// The member names of the decoded types, for members.
var (
	messageNames = []string{"jsonrpc", "id", "method", "params", "result", "error"}
	paramsNames  = []string{"tool", "args", "context"}
	contextNames = []string{"pluginId", "tool", "callId", "actor", "effect", "channel", "chatId", "userId", "groupId", "grant", "turn"}
	resultNames  = []string{"value", "text", "isError", "metadata"}
	errSlow      = errors.New("left to encoding/json")
)

// members reads the object b (already checked if valid) and hands each
// member to set, which reports whether it knew the name. It returns
// errSlow for a name the fast decoders leave to encoding/json: an escaped
// one, or an unknown one that matches one of names case-insensitively.
func members(b []byte, valid bool, names []string, set func(key, v []byte) (bool, error)) error {
	o, err := newObject(b, valid)
	if err != nil {
		return err
	}
	for {
		f, ok, err := o.Next()
		if err != nil || !ok {
			return err
		}
		if f.Escaped {
			return errSlow
		}
		known, err := set(f.Key, f.Value)
		if err != nil {
			return err
		}
		if !known && folds(f.Key, names...) {
			return errSlow
		}
	}
}

// setString decodes a JSON string into dst; null leaves dst as it is, as
// encoding/json does.
func setString(dst *string, v []byte) error {
	if jsonwire.Null(v) {
		return nil
	}
	s, err := jsonwire.String(v)
	if err == nil {
		*dst = s
	}
	return err
}

// appendJSON implements wireEncoder.
func (p ToolCallParams) appendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"tool":`...)
	b = jsonwire.AppendString(b, p.Tool)
	b = append(b, `,"args":`...)
	b, err := appendRaw(b, p.Args)
	if err != nil {
		return b, fmt.Errorf("tool arguments: %w", err)
	}
	b = append(b, `,"context":`...)
	b = p.Context.appendJSON(b)
	return append(b, '}'), nil
}

// decodeJSON implements wireDecoder.
func (p *ToolCallParams) decodeJSON(b []byte, valid bool) error {
	if isNull(b) {
		return nil // as encoding/json: no effect
	}
	err := members(b, valid, paramsNames, func(key, v []byte) (bool, error) {
		switch string(key) {
		case "tool":
			if err := setString(&p.Tool, v); err != nil {
				return true, fmt.Errorf("tool: %w", err)
			}
		case "args":
			p.Args = v
		case "context":
			if !jsonwire.Null(v) {
				if err := p.Context.decodeJSON(v, valid); err != nil {
					return true, fmt.Errorf("context: %w", err)
				}
			}
		default:
			return false, nil
		}
		return true, nil
	})
	if err == errSlow {
		return p.decodeSlow(b)
	}
	return err
}

func appendField(b []byte, name, value string, omitEmpty bool) []byte {
	if value == "" && omitEmpty {
		return b
	}
	b = append(b, ',', '"')
	b = append(b, name...)
	b = append(b, '"', ':')
	return jsonwire.AppendString(b, value)
}

func (c CallContext) appendJSON(b []byte) []byte {
	b = append(b, `{"pluginId":`...)
	b = jsonwire.AppendString(b, c.PluginID)
	b = appendField(b, "tool", c.Tool, false)
	b = appendField(b, "callId", c.CallID, true)
	b = appendField(b, "actor", string(c.Actor), false)
	b = appendField(b, "effect", string(c.Effect), true)
	if c.Turn != nil {
		b = append(b, `,"turn":{`...)
		if c.Turn.SessionID != "" {
			b = append(b, `"sessionId":`...)
			b = jsonwire.AppendString(b, c.Turn.SessionID)
			b = append(b, ',')
		}
		b = append(b, `"tainted":`...)
		b = appendBool(b, c.Turn.Tainted)
		if c.Turn.UserAsked {
			b = append(b, `,"userAsked":true`...)
		}
		b = append(b, '}')
	}
	b = appendField(b, "channel", c.Channel, true)
	b = appendField(b, "chatId", c.ChatID, true)
	b = appendField(b, "userId", c.UserID, true)
	b = appendField(b, "groupId", c.GroupID, true)
	b = appendField(b, "grant", c.Grant, true)
	return append(b, '}')
}

func appendBool(b []byte, v bool) []byte {
	if v {
		return append(b, "true"...)
	}
	return append(b, "false"...)
}

func (c *CallContext) decodeJSON(b []byte, valid bool) error {
	if isNull(b) {
		return nil
	}
	err := members(b, valid, contextNames, func(key, v []byte) (bool, error) {
		var dst *string
		switch string(key) {
		case "pluginId":
			dst = &c.PluginID
		case "tool":
			dst = &c.Tool
		case "callId":
			dst = &c.CallID
		case "actor":
			dst = (*string)(&c.Actor)
		case "effect":
			dst = (*string)(&c.Effect)
		case "channel":
			dst = &c.Channel
		case "chatId":
			dst = &c.ChatID
		case "userId":
			dst = &c.UserID
		case "groupId":
			dst = &c.GroupID
		case "grant":
			dst = &c.Grant
		case "turn":
			if jsonwire.Null(v) {
				c.Turn = nil
				return true, nil
			}
			if c.Turn == nil {
				c.Turn = new(sdk.TurnInfo)
			}
			return true, json.Unmarshal(v, c.Turn)
		default:
			return false, nil
		}
		if s, ok := known(v); ok {
			*dst = s
			return true, nil
		}
		if err := setString(dst, v); err != nil {
			return true, fmt.Errorf("%s: %w", key, err)
		}
		return true, nil
	})
	if err == errSlow {
		return c.decodeSlow(b)
	}
	return err
}

// appendJSON implements wireEncoder.
func (r ToolCallResult) appendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"value":`...)
	b, err := appendRaw(b, r.Value)
	if err != nil {
		return b, fmt.Errorf("tool result: %w", err)
	}
	if r.Text != nil {
		b = append(b, `,"text":`...)
		b = jsonwire.AppendString(b, *r.Text)
	}
	if r.IsError {
		b = append(b, `,"isError":true`...)
	}
	if len(r.Metadata) > 0 {
		meta, err := json.Marshal(r.Metadata)
		if err != nil {
			return b, err
		}
		b = append(b, `,"metadata":`...)
		b = append(b, meta...)
	}
	return append(b, '}'), nil
}

// decodeJSON implements wireDecoder.
func (r *ToolCallResult) decodeJSON(b []byte, valid bool) error {
	if isNull(b) {
		return nil
	}
	err := members(b, valid, resultNames, func(key, v []byte) (bool, error) {
		switch string(key) {
		case "value":
			r.Value = v
		case "text":
			if jsonwire.Null(v) {
				r.Text = nil
				break
			}
			s, err := jsonwire.String(v)
			if err != nil {
				return true, fmt.Errorf("text: %w", err)
			}
			r.Text = &s
		case "isError":
			if !jsonwire.Null(v) {
				var err error
				if r.IsError, err = jsonwire.Bool(v); err != nil {
					return true, fmt.Errorf("isError: %w", err)
				}
			}
		case "metadata":
			if err := json.Unmarshal(v, &r.Metadata); err != nil {
				return true, fmt.Errorf("metadata: %w", err)
			}
		default:
			return false, nil
		}
		return true, nil
	})
	if err == errSlow {
		return r.decodeSlow(b)
	}
	return err
}

// known returns the actors and effects as the constants they are, so the
// values every call carries are not copied each time.
func known(v []byte) (string, bool) {
	switch string(v) {
	case `"agent"`:
		return string(sdk.ActorAgent), true
	case `"user"`:
		return string(sdk.ActorUser), true
	case `"scheduler"`:
		return string(sdk.ActorScheduler), true
	case `"read"`:
		return string(sdk.EffectRead), true
	case `"write"`:
		return string(sdk.EffectWrite), true
	case `"money"`:
		return string(sdk.EffectMoney), true
	case `"public"`:
		return string(sdk.EffectPublic), true
	}
	return "", false
}

// The decodeSlow methods decode through encoding/json into a value of
// their own, so the receiver of decodeJSON, when it is not needed, can
// stay on the caller's stack.

func (p *ToolCallParams) decodeSlow(b []byte) error {
	var v ToolCallParams
	err := json.Unmarshal(b, &v)
	*p = v
	return err
}

func (c *CallContext) decodeSlow(b []byte) error {
	v := *c // encoding/json merges into what is there
	err := json.Unmarshal(b, &v)
	*c = v
	return err
}

func (r *ToolCallResult) decodeSlow(b []byte) error {
	var v ToolCallResult
	err := json.Unmarshal(b, &v)
	*r = v
	return err
}
