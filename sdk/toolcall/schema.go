package toolcall

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"regexp"
	"strings"
	"sync"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/jsonschema-go/jsonschema"
)

// Separator joins a plugin's name and a tool's name into the name the
// model sees.
const Separator = "__"

// ErrInvalidName is the error of a tool name the model could not call.
var ErrInvalidName = errors.New("invalid tool name")

// namePattern is the provider limit on function names (OpenAI and every
// compatible server).
var namePattern = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// Name returns the name the model sees for tool local of plugin,
// plugin__local, or an error wrapping ErrInvalidName when the plugin's
// name is empty or holds the separator, or the result breaks the provider
// limit on function names.
func Name(plugin, local string) (string, error) {
	if plugin == "" || strings.Contains(plugin, Separator) {
		return "", fmt.Errorf("%w: plugin name %q must be non-empty and not contain %q", ErrInvalidName, plugin, Separator)
	}
	name := plugin + Separator + local
	if local == "" || !namePattern.MatchString(name) {
		return "", fmt.Errorf("%w: %q must match %s", ErrInvalidName, name, namePattern)
	}
	return name, nil
}

// Schema is a tool's compiled parameter schema.
type Schema struct {
	raw      json.RawMessage
	resolved *jsonschema.Resolved
	fast     *fastSchema // nil when the schema needs jsonschema-go
	// A Deferred schema compiles at its first Validate.
	once  sync.Once
	lazy  bool
	later error // why a deferred schema did not compile
}

// Compile compiles params, a JSON Schema for an object: nil means no
// parameters, and a schema without "type" is taken as type "object".
func Compile(params map[string]any) (*Schema, error) {
	raw, err := SchemaJSON(params)
	if err != nil {
		return nil, err
	}
	s := &Schema{raw: raw}
	if err := s.compile(); err != nil {
		return nil, err
	}
	return s, nil
}

// Deferred is Compile for a schema that compiled before, given as the
// JSON that compilation made (Schema.JSON, or SchemaJSON of the same
// parameters; a registration kept from an earlier run of the same
// plugin): the compilation, most of a registration's cost, is done at
// its first Validate. If it does not compile then, every Validate fails
// with the reason, so no call runs unchecked. The error is that of raw
// that is not a JSON object whose "type" is "object", as SchemaJSON makes
// (the model is sent raw as it is).
func Deferred(raw json.RawMessage) (*Schema, error) {
	if !objectSchema(raw) {
		return nil, errors.New(`a deferred schema must be a JSON object with "type": "object"`)
	}
	return &Schema{raw: raw, lazy: true}, nil
}

// decoders are kept for objectSchema, which a start with a 1,000-tool
// plugin offered from its cache runs a thousand times.
var decoders = sync.Pool{New: func() any { return jsontext.NewDecoder(bytes.NewReader(nil)) }}

// objectSchema reports whether raw is one valid JSON object whose "type"
// member, named once, is the string "object". It reads the members'
// names and skips their values, checking them, without decoding them.
func objectSchema(raw []byte) bool {
	d := decoders.Get().(*jsontext.Decoder)
	defer decoders.Put(d)
	d.Reset(bytes.NewReader(raw))
	defer d.Reset(bytes.NewReader(nil)) // do not keep raw alive in the pool
	if tok, err := d.ReadToken(); err != nil || tok.Kind() != '{' {
		return false
	}
	found := false
	for d.PeekKind() != '}' {
		name, err := d.ReadToken()
		if err != nil {
			return false
		}
		if name.String() != "type" {
			if d.SkipValue() != nil {
				return false
			}
			continue
		}
		v, err := d.ReadToken()
		if err != nil || v.Kind() != '"' || v.String() != "object" {
			return false
		}
		found = true
	}
	if _, err := d.ReadToken(); err != nil { // the closing brace
		return false
	}
	_, err := d.ReadToken()
	return found && err == io.EOF // nothing after the object
}

// compile parses and resolves s.raw.
func (s *Schema) compile() error {
	var js jsonschema.Schema
	if err := json.Unmarshal(s.raw, &js); err != nil {
		return err
	}
	resolved, err := js.Resolve(nil)
	if err != nil {
		return err
	}
	s.resolved, s.fast = resolved, compileFast(&js)
	return nil
}

// SchemaJSON is the JSON of params as Compile makes it and the model is
// sent it: nil is an object without properties, a missing "type" is
// "object", and any other type is an error.
func SchemaJSON(params map[string]any) (json.RawMessage, error) {
	if params == nil {
		params = map[string]any{"type": "object", "properties": map[string]any{}}
	}
	if _, ok := params["type"]; !ok {
		params = maps.Clone(params)
		params["type"] = "object"
	}
	if params["type"] != "object" {
		return nil, fmt.Errorf("top-level type must be \"object\", got %v", params["type"])
	}
	return json.Marshal(params)
}

// JSON returns the schema as sent to the model.
func (s *Schema) JSON() json.RawMessage { return s.raw }

// IsDeferred reports whether s was made by Deferred: compiled at its
// first Validate rather than when it was made.
func (s *Schema) IsDeferred() bool { return s.lazy }

// Validate checks args; the error names the offending field
// (`field "a.b": minimum: ...`).
func (s *Schema) Validate(args map[string]any) error {
	if s.lazy {
		s.once.Do(func() {
			if err := s.compile(); err != nil {
				s.later = fmt.Errorf("the tool's parameter schema does not compile: %w", err)
			}
		})
		if s.later != nil {
			return s.later
		}
	}
	if s.fast != nil && s.fast.valid(args) {
		return nil
	}
	if err := s.resolved.Validate(args); err != nil {
		return errors.New(describeValidation(err))
	}
	return nil
}

// describeValidation turns the validator's message, which walks the schema
// ("validating root: validating /properties/a: validating
// /properties/a/properties/b: minimum: ..."), into one naming the field
// ("field \"a.b\": minimum: ...").
func describeValidation(err error) string {
	msg := err.Error()
	if i := strings.LastIndex(msg, "validating "); i >= 0 {
		msg = msg[i+len("validating "):]
	}
	if strings.HasPrefix(msg, "root: ") {
		return strings.TrimPrefix(msg, "root: ")
	}
	path, rest, ok := strings.Cut(msg, ": ")
	if !ok || !strings.HasPrefix(path, "/") {
		return msg
	}
	var fields []string
	segs := strings.Split(strings.TrimPrefix(path, "/"), "/")
	for i := 0; i < len(segs); i++ {
		switch segs[i] {
		case "properties", "patternProperties":
			if i+1 < len(segs) {
				fields = append(fields, segs[i+1])
				i++
			}
		case "items", "prefixItems":
			fields = append(fields, "[]")
		}
	}
	if len(fields) == 0 {
		return msg
	}
	return fmt.Sprintf("field %q: %s", strings.ReplaceAll(strings.Join(fields, "."), ".[]", "[]"), rest)
}
