package sdk

import (
	"bytes"
	"encoding"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"

	"github.com/hearth-agent/hearth/internal/jsonwire"
)

// argDecoder decodes a tool's arguments into its typed input, as
// json.Unmarshal would. For the inputs tools almost always have (a struct
// of strings, booleans, numbers, string lists, pointers to those) it reads
// the JSON text once and sets the fields directly: encoding/json's
// validate-then-reflect passes were a third of a child plugin's CPU per
// call. Anything else (other field types, custom unmarshalers, embedded
// structs, case-folded or escaped names, a value of the wrong type, a
// number that does not fit) is decoded by json.Unmarshal from the start,
// so the outcome, errors included, is the same; decode_test.go checks
// that on fuzzed input.
type argDecoder struct {
	fields map[string]*argField // by JSON name; nil: always json.Unmarshal
	names  []string
}

type argField struct {
	index []int
	kind  reflect.Kind // of the field, or of what it points to
	ptr   bool         // the field is a pointer
	list  bool         // the field is a []string
	elem  reflect.Type // the pointed-to type, for ptr
}

var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

func customDecoding(t reflect.Type) bool {
	return t.Implements(jsonUnmarshaler) || reflect.PointerTo(t).Implements(jsonUnmarshaler) ||
		t.Implements(textUnmarshaler) || reflect.PointerTo(t).Implements(textUnmarshaler)
}

func scalar(k reflect.Kind) bool {
	switch k {
	case reflect.String, reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return true
	}
	return false
}

// newArgDecoder prepares the decoder for T; one for an unusual T simply
// always uses json.Unmarshal.
func newArgDecoder(t reflect.Type) *argDecoder {
	d := &argDecoder{}
	if t.Kind() != reflect.Struct || customDecoding(t) {
		return d
	}
	fields := map[string]*argField{}
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		if sf.Anonymous {
			return d // embedded fields follow rules not worth repeating
		}
		if !sf.IsExported() {
			continue
		}
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if strings.Contains(","+opts+",", ",string,") {
			return d
		}
		if name == "" {
			name = sf.Name
		} else if !plainName(name) {
			return d // encoding/json's rules for odd names are its own
		}
		f := &argField{index: sf.Index}
		ft := sf.Type
		switch {
		case customDecoding(ft):
			return d
		case ft.Kind() == reflect.Pointer && scalar(ft.Elem().Kind()) && !customDecoding(ft.Elem()):
			f.ptr, f.kind, f.elem = true, ft.Elem().Kind(), ft.Elem()
		case ft.Kind() == reflect.Slice && ft.Elem() == reflect.TypeFor[string]():
			f.list, f.kind = true, reflect.String
		case scalar(ft.Kind()):
			f.kind = ft.Kind()
		default:
			return d
		}
		if _, dup := fields[name]; dup {
			return d
		}
		fields[name] = f
		d.names = append(d.names, name)
	}
	d.fields = fields
	return d
}

// decode fills *v (a zero value of the decoder's type) from data.
func (d *argDecoder) decode(data []byte, v any) error {
	if d.fields != nil {
		rv := reflect.ValueOf(v).Elem()
		if d.fast(data, rv) {
			return nil
		}
		rv.SetZero() // start again from nothing
	}
	return json.Unmarshal(data, v)
}

// fast decodes data into rv, or reports that json.Unmarshal must.
func (d *argDecoder) fast(data []byte, rv reflect.Value) bool {
	if jsonwire.Null(jsonwire.TrimSpace(data)) {
		return true // no effect, as with encoding/json
	}
	o, err := jsonwire.NewObject(data)
	if err != nil {
		return false
	}
	for {
		m, ok, err := o.Next()
		if err != nil || m.Escaped {
			return false
		}
		if !ok {
			return true
		}
		f := d.fields[string(m.Key)]
		if f == nil {
			for _, n := range d.names {
				if bytes.EqualFold(m.Key, []byte(n)) {
					return false // encoding/json matches it case-insensitively
				}
			}
			continue // unknown members are ignored
		}
		fv := rv.FieldByIndex(f.index)
		switch {
		case f.ptr:
			if jsonwire.Null(m.Value) {
				fv.SetZero()
				continue
			}
			p := reflect.New(f.elem)
			if !setScalar(p.Elem(), f.kind, m.Value) {
				return false
			}
			fv.Set(p)
		case f.list:
			if jsonwire.Null(m.Value) {
				fv.SetZero()
				continue
			}
			list, ok := stringList(m.Value)
			if !ok {
				return false
			}
			fv.Set(reflect.ValueOf(list).Convert(fv.Type()))
		default:
			if jsonwire.Null(m.Value) {
				continue
			}
			if !setScalar(fv, f.kind, m.Value) {
				return false
			}
		}
	}
}

// setScalar sets v from a JSON scalar of the right type, or reports that
// it cannot (encoding/json would then report the error).
func setScalar(v reflect.Value, k reflect.Kind, raw []byte) bool {
	switch k {
	case reflect.String:
		s, err := jsonwire.String(raw)
		if err != nil {
			return false
		}
		v.SetString(s)
	case reflect.Bool:
		b, err := jsonwire.Bool(raw)
		if err != nil {
			return false
		}
		v.SetBool(b)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, err := strconv.ParseInt(string(raw), 10, 64)
		if err != nil || v.OverflowInt(n) {
			return false
		}
		v.SetInt(n)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n, err := strconv.ParseUint(string(raw), 10, 64)
		if err != nil || v.OverflowUint(n) {
			return false
		}
		v.SetUint(n)
	case reflect.Float32, reflect.Float64:
		if raw[0] != '-' && (raw[0] < '0' || raw[0] > '9') {
			return false // not a number (ParseFloat also takes "Inf")
		}
		n, err := strconv.ParseFloat(string(raw), v.Type().Bits())
		if err != nil || v.OverflowFloat(n) {
			return false
		}
		v.SetFloat(n)
	default:
		return false
	}
	return true
}

func stringList(raw []byte) ([]string, bool) {
	a, err := jsonwire.NewArray(raw)
	if err != nil {
		return nil, false
	}
	list := []string{}
	for {
		e, ok, err := a.Next()
		if err != nil {
			return nil, false
		}
		if !ok {
			return list, true
		}
		if jsonwire.Null(e) {
			list = append(list, "") // null leaves the element zero
			continue
		}
		s, err := jsonwire.String(e)
		if err != nil {
			return nil, false
		}
		list = append(list, s)
	}
}

func plainName(s string) bool {
	for _, c := range s {
		if !(c == '_' || c == '-' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}
