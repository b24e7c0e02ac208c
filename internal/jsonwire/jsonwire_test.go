package jsonwire

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

var seeds = []string{
	`{"jsonrpc":"2.0","id":1,"method":"echo","params":{"a":"b"}}`,
	`{"a":[1,-2.5e+3,true,false,null,{"b":"\u00e9\n\"x\""}],"c":{}}`,
	` [ ] `, `"\ud800"`, `-0`, `01`, `1.`, `1e`, `{"a":1,}`, `[1,]`, `{"a" 1}`, `"a\x"`,
	"\"\x01\"", `{"\u0061":1,"a":2,"A":3}`, `nul`, `{"a":"你好, hearth"}`, "\"\xff\xfe\"", `{} {}`,
	`"\u2028 \\ \/ \b\f\r\t"`, strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
}

func FuzzValid(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := Valid(b), json.Valid(b); got != want {
			t.Fatalf("Valid(%q) = %v, json.Valid = %v", b, got, want)
		}
	})
}

// FuzzObject checks that reading an object's members agrees with
// encoding/json decoding it into a map of raw values.
func FuzzObject(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var want map[string]json.RawMessage
		werr := json.Unmarshal(b, &want)
		o, err := NewObject(b)
		got := map[string]json.RawMessage{}
		escaped := false
		for err == nil {
			var m Member
			var ok bool
			m, ok, err = o.Next()
			if err != nil || !ok {
				break
			}
			k := string(m.Key)
			if m.Escaped {
				escaped = true
				if err := json.Unmarshal(append(append([]byte{'"'}, m.Key...), '"'), &k); err != nil {
					t.Fatalf("escaped key %q: %v", m.Key, err)
				}
			}
			got[k] = m.Value
			if _, err := String(m.Value); err == nil && m.Value[0] != '"' {
				t.Fatalf("String accepted %q", m.Value)
			}
		}
		if (err == nil) != (werr == nil && want != nil) {
			t.Fatalf("object %q: err %v, encoding/json err %v (map %v)", b, err, werr, want)
		}
		if err != nil || escaped {
			return
		}
		if len(got) != len(want) {
			t.Fatalf("object %q: %d members, encoding/json %d", b, len(got), len(want))
		}
		for k, v := range want {
			if !bytes.Equal(bytes.TrimSpace(v), got[k]) {
				t.Fatalf("object %q member %q: %q, encoding/json %q", b, k, got[k], v)
			}
		}
	})
}

func FuzzString(f *testing.F) {
	for _, s := range []string{"", "plain", "你好, hearth", "a\"b\\c\n\t\x01\x1f", "\u2028\u2029", "\xff\xfe bad", "<&>", "\x7f"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
		got := AppendString(nil, s)
		if !bytes.Equal(got, bytes.TrimSuffix(want.Bytes(), []byte("\n"))) {
			t.Fatalf("AppendString(%q) = %s, encoding/json %s", s, got, want.Bytes())
		}
		back, err := String(got)
		var wantBack string
		if json.Unmarshal(got, &wantBack) != nil || err != nil || back != wantBack {
			t.Fatalf("String(%s) = %q, %v; encoding/json %q", got, back, err, wantBack)
		}
		// Raw input, as a peer may send it: agree with encoding/json.
		raw := append(append([]byte{'"'}, s...), '"')
		if !Valid(raw) {
			return
		}
		var w string
		werr := json.Unmarshal(raw, &w)
		g, gerr := String(raw)
		if (gerr == nil) != (werr == nil) || g != w {
			t.Fatalf("String(%q) = %q, %v; encoding/json %q, %v", raw, g, gerr, w, werr)
		}
	})
}

func TestBool(t *testing.T) {
	for in, want := range map[string]bool{"true": true, "false": false} {
		if got, err := Bool([]byte(in)); err != nil || got != want {
			t.Errorf("Bool(%s) = %v, %v", in, got, err)
		}
	}
	if _, err := Bool([]byte(`"true"`)); err == nil {
		t.Error(`Bool("true") accepted a string`)
	}
}

// FuzzArray checks that reading an array's elements agrees with
// encoding/json decoding it into a slice of raw values.
func FuzzArray(f *testing.F) {
	for _, s := range append(seeds, `[1, "a" ,{"b":[]} ]`, `[]`, `[,]`, `[1 2]`, ` [null] x`) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var want []json.RawMessage
		werr := json.Unmarshal(b, &want)
		a, err := NewArray(b)
		var got []json.RawMessage
		for err == nil {
			var v []byte
			var ok bool
			if v, ok, err = a.Next(); err != nil || !ok {
				break
			}
			got = append(got, v)
		}
		if (err == nil) != (werr == nil && want != nil) {
			t.Fatalf("array %q: err %v, encoding/json err %v (%v)", b, err, werr, want)
		}
		if err != nil {
			return
		}
		if len(got) != len(want) {
			t.Fatalf("array %q: %d elements, encoding/json %d", b, len(got), len(want))
		}
		for i := range want {
			if !bytes.Equal(bytes.TrimSpace(want[i]), got[i]) {
				t.Fatalf("array %q element %d: %q, encoding/json %q", b, i, got[i], want[i])
			}
		}
	})
}

// FuzzValidObject checks that reading known-valid text without checking
// it again finds the same members, and that on invalid text it neither
// panics nor loops.
func FuzzValidObject(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Add([]byte(`{"a\\":"b\\\\","c":[{"d":"]}"}],"e":-1.5e3,"f":true}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		members := func(o Object, err error) (out []Member, _ error) {
			for n := 0; err == nil; n++ {
				if n > len(b)+2 {
					t.Fatalf("%q: no end to the members", b)
				}
				var m Member
				var ok bool
				if m, ok, err = o.Next(); err != nil || !ok {
					break
				}
				out = append(out, m)
			}
			return out, err
		}
		fast, ferr := members(NewValidObject(b))
		if !json.Valid(b) {
			return
		}
		checked, cerr := members(NewObject(b))
		if (ferr == nil) != (cerr == nil) || len(fast) != len(checked) {
			t.Fatalf("%q: %d members (%v), checked %d (%v)", b, len(fast), ferr, len(checked), cerr)
		}
		for i := range fast {
			if !bytes.Equal(fast[i].Key, checked[i].Key) || fast[i].Escaped != checked[i].Escaped || !bytes.Equal(fast[i].Value, checked[i].Value) {
				t.Fatalf("%q member %d: %+v, checked %+v", b, i, fast[i], checked[i])
			}
		}
	})
}

func TestTrimSpace(t *testing.T) {
	for in, want := range map[string]string{" \t\r\nnull \n": "null", "null\f": "null\f", "": "", "  ": "", "\u00a0x": "\u00a0x"} {
		if got := string(TrimSpace([]byte(in))); got != want {
			t.Errorf("TrimSpace(%q) = %q, want %q", in, got, want)
		}
	}
}
