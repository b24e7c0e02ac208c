package codec

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"
)

// The tool arguments AddTool decodes go through codec.Unmarshal; these
// tests pin what it accepts on the types tools have.

type plainArgs struct {
	Msg    string   `json:"msg"`
	N      int      `json:"n,omitempty"`
	Small  int8     `json:"small"`
	U      uint16   `json:"u"`
	X      float64  `json:"x"`
	F32    float32  `json:"f32"`
	On     bool     `json:"on"`
	Tags   []string `json:"tags"`
	Opt    *string  `json:"opt"`
	OptN   *int     `json:"optN"`
	NoTag  string
	hidden string
	Skip   string `json:"-"`
}

type unit string

type namedFast struct {
	Unit unit     `json:"unit"`
	Tags []string `json:"tags"`
	P    *unit    `json:"p"`
}

type namedArgs struct {
	Unit unit     `json:"unit"`
	List []unit   `json:"list"`
	Lang []string `json:"lang,omitempty"`
}

type (
	nestedArgs struct {
		Opts struct{ Deep bool } `json:"opts"`
	}
	stringOpt struct {
		N int `json:"n,string"`
	}
	timeArgs struct {
		At time.Time `json:"at"`
	}
	embedded struct {
		plainArgs
		Extra string `json:"extra"`
	}
)

func TestArgDecoding(t *testing.T) {
	ptr := func(s string) *string { return &s }
	for _, c := range []struct {
		name, in string
		into     func() any // a new value to decode into
		want     any        // nil: an error
	}{
		{"plain", `{"msg":"你好","n":3,"tags":["a",null],"opt":"o","NoTag":"t","hidden":"h","Skip":"s"}`,
			func() any { return new(plainArgs) }, &plainArgs{Msg: "你好", N: 3, Tags: []string{"a", ""}, Opt: ptr("o"), NoTag: "t"}},
		{"null leaves zero", `{"msg":null,"opt":null,"tags":null}`, func() any { return new(plainArgs) }, &plainArgs{}},
		{"null arguments", `null`, func() any { return new(plainArgs) }, &plainArgs{}},
		{"names are case-sensitive", `{"MSG":"x","notag":"y"}`, func() any { return new(plainArgs) }, &plainArgs{}},
		{"a name twice", `{"msg":"a","msg":"b"}`, func() any { return new(plainArgs) }, nil},
		{"a name twice, nested", `{"opts":{"Deep":true,"Deep":false}}`, func() any { return new(nestedArgs) }, nil},
		{"invalid UTF-8", "{\"msg\":\"\xff\"}", func() any { return new(plainArgs) }, nil},
		{"lone surrogate", `{"msg":"\ud800"}`, func() any { return new(plainArgs) }, nil},
		{"escaped name", `{"m\u0073g":"e"}`, func() any { return new(plainArgs) }, &plainArgs{Msg: "e"}},
		{"wrong type", `{"msg":1}`, func() any { return new(plainArgs) }, nil},
		{"overflow", `{"small":128}`, func() any { return new(plainArgs) }, nil},
		{"fraction into int", `{"n":1.5}`, func() any { return new(plainArgs) }, nil},
		{"not an object", `[]`, func() any { return new(plainArgs) }, nil},
		{"nested", `{"opts":{"Deep":true}}`, func() any { return new(nestedArgs) }, &nestedArgs{Opts: struct{ Deep bool }{true}}},
		{"string option", `{"n":"42"}`, func() any { return new(stringOpt) }, &stringOpt{N: 42}},
		{"time", `{"at":"2026-01-02T03:04:05Z"}`, func() any { return new(timeArgs) },
			&timeArgs{At: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}},
		{"embedded", `{"msg":"m","extra":"e"}`, func() any { return new(embedded) }, &embedded{plainArgs: plainArgs{Msg: "m"}, Extra: "e"}},
		{"named string types", `{"unit":"c","list":["f"],"lang":[]}`, func() any { return new(namedArgs) },
			&namedArgs{Unit: "c", List: []unit{"f"}, Lang: []string{}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := c.into()
			err := Unmarshal([]byte(c.in), got)
			switch {
			case c.want == nil && err == nil:
				t.Fatalf("%s: accepted as %+v", c.in, got)
			case c.want != nil && err != nil:
				t.Fatalf("%s: %v", c.in, err)
			case c.want != nil && !reflect.DeepEqual(got, c.want):
				t.Fatalf("%s:\n got %+v\nwant %+v", c.in, got, c.want)
			}
		})
	}
}

var argSeeds = []string{
	`{"msg":"你好, hearth","n":3,"small":-128,"u":65535,"x":1.5e3,"f32":0.1,"on":true,"tags":["a","b"],"opt":"o","optN":null,"NoTag":"t"}`,
	`{"small":128}`, `{"u":-1}`, `{"n":1.0}`, `{"n":1e2}`, `{"x":"1"}`, `{"msg":1}`, `{"on":"true"}`, `{"f32":1e39}`,
	`{"MSG":"case"}`, `{"m\u0073g":"escaped"}`, `{"msg":"a","msg":"b"}`, `{"tags":null}`, `{"tags":[null,"x"]}`, `{"tags":[1]}`,
	`{"opt":null,"n":null}`, `null`, `[]`, `{"hidden":"h","Skip":"s","-":"dash"}`, `{"unit":"c","list":["f"],"lang":[],"p":"k"}`,
	`{"msg":"\ud800"}`, `{"msg":"\xff"}`, `{"unknown":{"deep":[1,2]}}`, `{} `, `{"n":9223372036854775808}`, ``, `{"x":-0}`,
	`{"opts":{"deep":true}}`, `{"n":"7"}`, `{"at":"2026-01-02T03:04:05+08:00"}`, `{"extra":"e","msg":"m"}`,
}

// FuzzArgDecoder checks the argument decoder against the invariants that
// matter: it accepts only valid JSON with unique member names and valid
// UTF-8; on such input whose member names match the fields exactly it
// agrees with encoding/json; and what it decodes encodes and decodes back
// to what encodes the same.
func FuzzArgDecoder(f *testing.F) {
	for _, s := range argSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		check[plainArgs](t, data)
		check[namedArgs](t, data)
		check[namedFast](t, data)
		check[nestedArgs](t, data)
		check[stringOpt](t, data)
		check[embedded](t, data)
	})
}

func check[T any](t *testing.T, data []byte) {
	t.Helper()
	var got T
	err := Unmarshal(data, &got)
	strict := jsontext.Value(data).IsValid() // valid JSON, unique names, valid UTF-8
	if err == nil && !strict {
		t.Fatalf("%q into %T: accepted, but it is not strictly valid JSON", data, got)
	}
	if !strict {
		return
	}
	if exactNames(data, jsonNames(reflect.TypeFor[T]())) {
		var want T
		werr := json.Unmarshal(data, &want)
		if (err == nil) != (werr == nil) {
			t.Fatalf("%q into %T: err %v, encoding/json %v", data, got, err, werr)
		}
		if err == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("%q into %T:\n got %+v\nwant %+v", data, got, got, want)
		}
	}
	if err != nil {
		return
	}
	enc, err := Marshal(got)
	if err != nil {
		t.Fatalf("%+v: encoding what was decoded: %v", got, err)
	}
	var back T // compared encoded: an empty list left out comes back nil
	if err := Unmarshal(enc, &back); err != nil {
		t.Fatalf("%+v encoded as %s does not decode: %v", got, enc, err)
	}
	if again, _ := Marshal(back); string(again) != string(enc) {
		t.Fatalf("%+v encoded as %s decodes to %+v, encoded as %s", got, enc, back, again)
	}
}

// jsonNames returns the JSON names of t's fields, of the fields of its
// embedded and nested structs too.
func jsonNames(t reflect.Type) map[string]bool {
	names := map[string]bool{}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || t == reflect.TypeFor[time.Time]() {
			return
		}
		for i := range t.NumField() {
			sf := t.Field(i)
			name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
			if name == "" {
				name = sf.Name
			}
			names[name] = true
			walk(sf.Type)
		}
	}
	walk(t)
	return names
}

// exactNames reports whether no member name in data matches one of names
// only when case is ignored, the one place where encoding/json, which
// ignores case, and the codec may rightly differ on valid input.
func exactNames(data []byte, names map[string]bool) bool {
	dec := jsontext.NewDecoder(strings.NewReader(string(data)))
	for {
		tok, err := dec.ReadToken()
		if err != nil {
			return true
		}
		if tok.Kind() != '"' {
			continue // strings that are values are checked too, which only skips more
		}
		name := tok.String()
		if names[name] {
			continue
		}
		for n := range names {
			if strings.EqualFold(n, name) {
				return false
			}
		}
	}
}

type benchArgs struct {
	Query string   `json:"query"`
	Limit int      `json:"limit,omitempty"`
	Exact bool     `json:"exact,omitempty"`
	Tags  []string `json:"tags,omitempty"`
	Zone  *string  `json:"zone,omitempty"`
}

// BenchmarkDecodeArgs is the decoding of a typical tool's arguments.
func BenchmarkDecodeArgs(b *testing.B) {
	data := []byte(`{"query":"weather in 上海 tomorrow","limit":5,"exact":true,"tags":["a","b"],"zone":"Asia/Shanghai"}`)
	b.ReportAllocs()
	for b.Loop() {
		var in benchArgs
		if err := Unmarshal(data, &in); err != nil {
			b.Fatal(err)
		}
	}
}
