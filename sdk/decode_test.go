package sdk

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

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

// Types the fast decoder must leave to encoding/json.
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

func TestArgDecoderTakesPlainTypes(t *testing.T) {
	for _, v := range []any{plainArgs{}, struct {
		Unit unit     `json:"unit"`
		Tags []string `json:"tags"`
	}{}} {
		if newArgDecoder(reflect.TypeOf(v)).fields == nil {
			t.Errorf("%T: not decoded by the fast path", v)
		}
	}
	for _, v := range []any{namedArgs{}, nestedArgs{}, stringOpt{}, timeArgs{}, embedded{}, map[string]any{}, "s"} {
		if newArgDecoder(reflect.TypeOf(v)).fields != nil {
			t.Errorf("%T: should be left to encoding/json", v)
		}
	}
}

var argSeeds = []string{
	`{"msg":"你好, hearth","n":3,"small":-128,"u":65535,"x":1.5e3,"f32":0.1,"on":true,"tags":["a","b"],"opt":"o","optN":null,"NoTag":"t"}`,
	`{"small":128}`, `{"u":-1}`, `{"n":1.0}`, `{"n":1e2}`, `{"x":"1"}`, `{"msg":1}`, `{"on":"true"}`, `{"f32":1e39}`,
	`{"MSG":"case"}`, `{"m\u0073g":"escaped"}`, `{"msg":"a","msg":"b"}`, `{"tags":null}`, `{"tags":[null,"x"]}`, `{"tags":[1]}`,
	`{"opt":null,"n":null}`, `null`, `[]`, `{"hidden":"h","Skip":"s","-":"dash"}`, `{"unit":"c","list":["f"],"lang":[],"p":"k"}`,
	`{"msg":"\ud800"}`, `{"msg":"\xff"}`, `{"unknown":{"deep":[1,2]}}`, `{} `, `{"n":9223372036854775808}`, ``, `{"x":-0}`,
}

func FuzzArgDecoder(f *testing.F) {
	for _, s := range argSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		compare[plainArgs](t, data)
		compare[namedArgs](t, data)
		compare[namedFast](t, data)
	})
}

func compare[T any](t *testing.T, data []byte) {
	t.Helper()
	var got, want T
	gerr := newArgDecoder(reflect.TypeFor[T]()).decode(data, &got)
	werr := json.Unmarshal(data, &want)
	if (gerr == nil) != (werr == nil) || (gerr != nil && gerr.Error() != werr.Error()) {
		t.Fatalf("%q into %T: err %v, encoding/json %v", data, got, gerr, werr)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%q into %T:\n got %+v\nwant %+v", data, got, got, want)
	}
}
