// Package codec is the one JSON codec of the plugin protocol and of the
// SDK's tool arguments: github.com/go-json-experiment/json (the code behind
// Go's encoding/json/v2) with plain struct tags, and its options chosen
// here, in one place.
//
// Reading is strict, as a wire protocol should be: member names match
// their struct tags exactly (case-sensitively), an object that names a
// member twice is refused, and so is invalid UTF-8. Unknown members are
// ignored, and null leaves a field at its zero value. Writing replaces
// invalid UTF-8 in Go strings with U+FFFD, as encoding/json does, so a tool
// whose text holds stray bytes still answers; writes nil slices and maps
// as null and sorts map keys, so what is written is what encoding/json
// wrote; and never writes a line break, so a message stays one line.
package codec

import (
	"bytes"
	"io"
	"sync"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

var (
	// decode are the options every value read from the wire, or as tool
	// arguments, is decoded with.
	decode = json.JoinOptions(
		json.DefaultOptionsV2(),
		json.MatchCaseInsensitiveNames(false), // "Tool" is not "tool"
		json.RejectUnknownMembers(false),      // a newer peer may send more
		jsontext.AllowDuplicateNames(false),   // {"tool":"a","tool":"b"} is refused
		jsontext.AllowInvalidUTF8(false),      // and so is a string that is not UTF-8
	)
	// loose are decode's options with duplicate names and invalid UTF-8
	// let through, for UnmarshalLoose.
	loose = json.JoinOptions(decode, jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	// encode are the options every value written to the wire is encoded
	// with.
	encode = json.JoinOptions(
		json.DefaultOptionsV2(),
		jsontext.AllowInvalidUTF8(true), // mangled to U+FFFD, as encoding/json does
		json.FormatNilSliceAsNull(true), // as encoding/json does
		json.FormatNilMapAsNull(true),
		json.Deterministic(true),      // map keys sorted, as encoding/json does
		jsontext.Multiline(false),     // one message, one line
		jsontext.EscapeForHTML(false), // the wire is not HTML
	)
)

// Unmarshal decodes b into v.
func Unmarshal(b []byte, v any) error { return json.Unmarshal(b, v, decode) }

// UnmarshalLoose decodes b as Unmarshal does, but lets duplicate names
// (the last one wins) and invalid UTF-8 through. It is only for reading
// enough of a message Unmarshal refused to answer it, never for using
// what it holds.
func UnmarshalLoose(b []byte, v any) error { return json.Unmarshal(b, v, loose) }

// Marshal encodes v.
func Marshal(v any) ([]byte, error) { return json.Marshal(v, encode) }

// MarshalWrite encodes v into w.
func MarshalWrite(w io.Writer, v any) error { return json.MarshalWrite(w, v, encode) }

var buffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// Buffer returns an empty buffer from a pool; PutBuffer returns it.
func Buffer() *bytes.Buffer { return buffers.Get().(*bytes.Buffer) }

// PutBuffer returns b to the pool, unless it grew past 64 KiB (a large
// message should not pin its memory).
func PutBuffer(b *bytes.Buffer) {
	if b.Cap() > 64<<10 {
		return
	}
	b.Reset()
	buffers.Put(b)
}
