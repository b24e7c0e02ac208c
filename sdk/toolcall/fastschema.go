package toolcall

import (
	"math"
	"reflect"
	"regexp"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
)

// fastSchema checks arguments against the shapes tool schemas almost
// always have (typed properties, required, scalar enums, bounds, lengths,
// patterns, items, additionalProperties) without reflection or big.Rat:
// jsonschema-go spends 1.5 µs and 26 allocations on a one-string object,
// more than a child plugin's whole round trip should. It only ever says
// "valid": when it does not, jsonschema-go validates again and its error,
// which names the field, is what the model sees. compileFast returns nil
// for a schema using any other keyword, and those tools are validated by
// jsonschema-go alone. fastschema_test.go fuzzes it against jsonschema-go.
type fastSchema struct {
	never        bool  // the false schema
	types        uint8 // a bit per JSON type; 0 allows any
	enum         []any // strings, float64s, bools, nil
	min, max     *float64
	exMin, exMax *float64
	minLen       *int
	maxLen       *int
	pattern      *regexp.Regexp
	props        map[string]*fastSchema
	required     []string
	additional   *fastSchema // nil allows any
	items        *fastSchema
	minItems     *int
	maxItems     *int
}

const (
	typeNull uint8 = 1 << iota
	typeBoolean
	typeObject
	typeArray
	typeNumber
	typeString
	typeInteger
)

var typeBits = map[string]uint8{
	"null": typeNull, "boolean": typeBoolean, "object": typeObject, "array": typeArray,
	"number": typeNumber, "string": typeString, "integer": typeInteger,
}

// compileFast returns the fast checker for s, or nil if s uses a keyword
// it does not handle.
func compileFast(s *jsonschema.Schema) *fastSchema {
	if s == nil {
		return nil
	}
	if s.Not != nil && reflect.ValueOf(*s.Not).IsZero() {
		rest := *s
		rest.Not = nil
		if reflect.ValueOf(rest).IsZero() {
			return &fastSchema{never: true}
		}
		return nil
	}
	rest := *s
	// Keywords handled below, and annotations, which never fail a value.
	rest.Type, rest.Types, rest.Enum = "", nil, nil
	rest.Minimum, rest.Maximum, rest.ExclusiveMinimum, rest.ExclusiveMaximum = nil, nil, nil, nil
	rest.MinLength, rest.MaxLength, rest.Pattern = nil, nil, ""
	rest.Properties, rest.Required, rest.AdditionalProperties = nil, nil, nil
	rest.Items, rest.MinItems, rest.MaxItems = nil, nil, nil
	rest.Title, rest.Description, rest.Default, rest.Examples, rest.Comment = "", "", nil, nil, ""
	rest.Deprecated, rest.ReadOnly, rest.WriteOnly, rest.Format = false, false, false, ""
	rest.Extra, rest.PropertyOrder = nil, nil
	if rest.Schema == "https://json-schema.org/draft/2020-12/schema" {
		rest.Schema = ""
	}
	if !reflect.ValueOf(rest).IsZero() {
		return nil
	}
	f := &fastSchema{
		min: s.Minimum, max: s.Maximum, exMin: s.ExclusiveMinimum, exMax: s.ExclusiveMaximum,
		minLen: s.MinLength, maxLen: s.MaxLength, minItems: s.MinItems, maxItems: s.MaxItems,
		required: s.Required,
	}
	types := s.Types
	if s.Type != "" {
		types = []string{s.Type}
	}
	for _, t := range types {
		bit, ok := typeBits[t]
		if !ok {
			return nil
		}
		f.types |= bit
	}
	for _, e := range s.Enum {
		switch e.(type) {
		case string, float64, bool, nil:
		default:
			return nil
		}
	}
	f.enum = s.Enum
	if s.Pattern != "" {
		re, err := regexp.Compile(s.Pattern)
		if err != nil {
			return nil
		}
		f.pattern = re
	}
	if len(s.Properties) > 0 {
		f.props = make(map[string]*fastSchema, len(s.Properties))
		for name, ps := range s.Properties {
			if f.props[name] = compileFast(ps); f.props[name] == nil {
				return nil
			}
		}
	}
	if s.AdditionalProperties != nil {
		if f.additional = compileFast(s.AdditionalProperties); f.additional == nil {
			return nil
		}
	}
	if s.Items != nil {
		if f.items = compileFast(s.Items); f.items == nil {
			return nil
		}
	}
	return f
}

// valid reports whether v, a value as encoding/json decodes into any, is
// valid. Other Go types (a stage handler may have put an int into the
// arguments) are left to jsonschema-go.
func (f *fastSchema) valid(v any) bool {
	if f.never {
		return false
	}
	var typ uint8
	switch x := v.(type) {
	case nil:
		typ = typeNull
	case bool:
		typ = typeBoolean
	case string:
		typ = typeString
		if !f.validString(x) {
			return false
		}
	case float64:
		typ = typeNumber
		if _, frac := math.Modf(x); frac == 0 {
			typ = typeInteger
		}
		if !f.validNumber(x) {
			return false
		}
	case map[string]any:
		typ = typeObject
		if !f.validObject(x) {
			return false
		}
	case []any:
		typ = typeArray
		if !f.validArray(x) {
			return false
		}
	default:
		return false
	}
	if f.types != 0 && f.types&typ == 0 && (typ != typeInteger || f.types&typeNumber == 0) {
		return false
	}
	if f.enum != nil {
		found := false
		for _, e := range f.enum {
			if e == v {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

func (f *fastSchema) validString(s string) bool {
	if f.minLen != nil || f.maxLen != nil {
		n := utf8.RuneCountInString(s)
		if f.minLen != nil && n < *f.minLen || f.maxLen != nil && n > *f.maxLen {
			return false
		}
	}
	return f.pattern == nil || f.pattern.MatchString(s)
}

func (f *fastSchema) validNumber(x float64) bool {
	return (f.min == nil || x >= *f.min) && (f.max == nil || x <= *f.max) &&
		(f.exMin == nil || x > *f.exMin) && (f.exMax == nil || x < *f.exMax)
}

func (f *fastSchema) validObject(m map[string]any) bool {
	for _, name := range f.required {
		if _, ok := m[name]; !ok {
			return false
		}
	}
	if f.props == nil && f.additional == nil {
		return true
	}
	for k, v := range m {
		if ps, ok := f.props[k]; ok {
			if !ps.valid(v) {
				return false
			}
		} else if f.additional != nil && !f.additional.valid(v) {
			return false
		}
	}
	return true
}

func (f *fastSchema) validArray(a []any) bool {
	if f.minItems != nil && len(a) < *f.minItems || f.maxItems != nil && len(a) > *f.maxItems {
		return false
	}
	if f.items != nil {
		for _, v := range a {
			if !f.items.valid(v) {
				return false
			}
		}
	}
	return true
}
