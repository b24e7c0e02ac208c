package llm

import (
	"encoding/json"
	"unsafe"
)

// encodedSpec is a ToolSpec's JSON, computed once, with the fields it was
// computed from: the spec's own encoding is used only while they are
// unchanged (a dynamic description replaces Description in a copy).
type encodedSpec struct {
	json       []byte
	name, desc string
	params     json.RawMessage
	typ        string

	anthOnceFields // the Anthropic wire's encoding, made on first use
}

// NewToolSpec returns the spec of a function tool with its JSON encoded
// once: a request that offers it copies those bytes instead of checking
// and compacting its parameter schema again (encoding/json does both for
// every json.RawMessage on every request), and the bytes stay identical
// from request to request, as providers' prompt caches need.
func NewToolSpec(name, description string, params json.RawMessage) ToolSpec {
	s := ToolSpec{Type: "function", Function: FunctionSpec{Name: name, Description: description, Parameters: params}}
	if b, err := json.Marshal(s); err == nil {
		s.enc = &encodedSpec{json: b, name: name, desc: description, params: params, typ: s.Type}
	}
	return s
}

// appendJSON appends s's JSON to dst: the bytes NewToolSpec encoded while
// s still has the fields they were encoded from, else a fresh encoding.
func (s *ToolSpec) appendJSON(dst []byte) ([]byte, error) {
	if e := s.enc; e != nil && e.typ == s.Type && e.name == s.Function.Name &&
		e.desc == s.Function.Description && sameSlice(e.params, s.Function.Parameters) {
		return append(dst, e.json...), nil
	}
	b, err := json.Marshal(s)
	if err != nil {
		return dst, err
	}
	return append(dst, b...), nil
}

// sameSlice reports whether a and b are the same bytes in memory (the
// schema NewToolSpec encoded, not merely equal text).
func sameSlice(a, b []byte) bool {
	return len(a) == len(b) && (len(a) == 0 || unsafe.SliceData(a) == unsafe.SliceData(b))
}

// encodeRequest encodes wr as json.Marshal would, with each tool's JSON
// taken from its spec (appendJSON) rather than encoded again.
func encodeRequest(wr wireRequest) ([]byte, error) {
	tools := wr.Tools
	wr.Tools = nil
	head, err := json.Marshal(struct {
		Model    string    `json:"model"`
		Messages []Message `json:"messages"`
	}{wr.Model, wr.Messages})
	if err != nil {
		return nil, err
	}
	tail, err := json.Marshal(struct {
		Stream        bool `json:"stream"`
		StreamOptions any  `json:"stream_options,omitempty"`
	}{wr.Stream, wr.StreamOptions})
	if err != nil {
		return nil, err
	}
	size := len(head) + len(tail) + len(`,"tools":[]`) + len(tools)
	for i := range tools {
		if e := tools[i].enc; e != nil {
			size += len(e.json)
		}
	}
	body := append(make([]byte, 0, size), head[:len(head)-1]...)
	if len(tools) > 0 {
		body = append(body, `,"tools":[`...)
		for i := range tools {
			if i > 0 {
				body = append(body, ',')
			}
			if body, err = tools[i].appendJSON(body); err != nil {
				return nil, err
			}
		}
		body = append(body, ']')
	}
	body = append(body, ',')
	return append(body, tail[1:]...), nil
}
