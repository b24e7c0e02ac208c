package toolcall

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hearth-agent/hearth/sdk"
)

func TestDuplicateKeysRefused(t *testing.T) {
	for _, tc := range []struct {
		args string
		want string // in the error; "" for none
	}{
		{`{"to":"bob","amount":5}`, ""},
		{`{}`, ""},
		{`{"a":{"x":1},"b":{"x":2},"c":[{"x":1},{"x":2}]}`, ""},
		{`{"a":{"b":1},"b":2}`, ""},
		{`{"s":"{\"to\":1,\"to\":2}"}`, ""}, // a string holding JSON is just text
		{`{"ä":1,"a":2,"\u00e5":3}`, ""},
		{`{"to":"mallory","amount":5,"to":"bob"}`, `duplicate key "to"`},
		{`{"to":"mallory","t\u006f":"bob"}`, `duplicate key "to"`},
		{`{"to":"bob","To":"mallory"}`, `duplicate key "To": it names the same field as "to"`},
		{`{"kind":1,"\u212aind":2}`, `the same field as "kind"`}, // the Kelvin sign folds to K
		{`{"opts":{"unit":"c","unit":"f"}}`, `duplicate key "unit"`},
		{`{"list":[1,{"x":[{"y":1,"y":2}]}]}`, `duplicate key "y"`},
		{`{"a":1,"b":2,"c":3,"d":4,"b":5}`, `duplicate key "b"`},
		{` {"a" : 1 , "a" : 2} `, `duplicate key "a"`},
	} {
		t.Run(tc.args, func(t *testing.T) {
			_, _, err := DecodeArguments(json.RawMessage(tc.args))
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("%s: refused: %v", tc.args, err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, ErrInvalidArguments)):
				t.Errorf("%s: got %v, want an error with %s", tc.args, err, tc.want)
			}
		})
	}
}

// TestDuplicateKeysNeverReachHandler goes through Tool.Call, the path
// of every call.
func TestDuplicateKeysNeverReachHandler(t *testing.T) {
	var calls atomic.Int32
	handler := func(context.Context, *sdk.ToolContext, map[string]any, json.RawMessage) (any, error) {
		calls.Add(1)
		return "paid", nil
	}
	params, err := Compile(map[string]any{"type": "object",
		"properties": map[string]any{"to": map[string]any{"type": "string"}, "amount": map[string]any{"type": "number"}}})
	if err != nil {
		t.Fatal(err)
	}
	tool := &Tool{Name: "bank__pay", Params: params, Handler: handler}
	res := tool.Call(context.Background(), &sdk.ToolContext{}, json.RawMessage(`{"to":"mallory","amount":5,"to":"bob"}`))
	if !res.IsError || !errors.Is(res.Err, ErrInvalidArguments) || !strings.Contains(res.Content, `duplicate key \"to\"`) {
		t.Errorf("got %+v", res)
	}
	if res := tool.Call(context.Background(), &sdk.ToolContext{}, json.RawMessage(`{"to":"bob","amount":5}`)); res.IsError {
		t.Errorf("a good call failed: %+v", res)
	}
	if n := calls.Load(); n != 1 {
		t.Fatalf("handler ran %d times, want 1 (the good call)", n)
	}
}

// duplicateByTokens is an independent check: walk the text with
// encoding/json's tokenizer and compare names with bytes.EqualFold, which
// is the comparison encoding/json uses for struct fields.
func duplicateByTokens(b []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(b))
	type level struct {
		object bool
		names  []string
		key    bool // the next token in an object is a name
	}
	var stack []*level
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return false
		}
		if err != nil {
			return false
		}
		var top *level
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if top != nil && top.object && top.key {
			if s, ok := tok.(string); ok {
				for _, n := range top.names {
					if bytes.EqualFold([]byte(n), []byte(s)) {
						return true
					}
				}
				top.names = append(top.names, s)
				top.key = false
				continue
			}
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &level{object: true, key: true})
			continue
		case json.Delim('['):
			stack = append(stack, &level{})
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
		if len(stack) > 0 && stack[len(stack)-1].object {
			stack[len(stack)-1].key = true // a value ended; a name follows
		}
	}
}

func TestDuplicateByTokensOracle(t *testing.T) {
	for s, want := range map[string]bool{
		`{"a":1,"b":{"a":2}}`: false, `{"a":1,"A":2}`: true, `{"a":[{"b":1,"b":2}]}`: true,
		`{"a":{"b":1},"b":2}`: false, `[{"x":1},{"x":1}]`: false,
	} {
		if got := duplicateByTokens([]byte(s)); got != want {
			t.Errorf("%s: oracle says %v", s, got)
		}
	}
}

var benchArguments = []struct{ name, args string }{
	{"small", `{"city":"北京","days":3,"units":"c"}`},
	{"nested", `{"query":{"city":"北京","range":{"from":"2026-01-01","to":"2026-01-07"}},"fields":["temp","wind","rain"],"units":"c","lang":"zh"}`},
}

func BenchmarkDecodeArguments(b *testing.B) {
	for _, bc := range benchArguments {
		b.Run(bc.name, func(b *testing.B) {
			raw := json.RawMessage(bc.args)
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := DecodeArguments(raw); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkDuplicateKey is the part of BenchmarkDecodeArguments that
// looks for repeated names.
func BenchmarkDuplicateKey(b *testing.B) {
	for _, bc := range benchArguments {
		b.Run(bc.name, func(b *testing.B) {
			raw := []byte(bc.args)
			b.ReportAllocs()
			for b.Loop() {
				if err := duplicateKey(raw); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// FuzzDuplicateKey feeds the scanner text that may not be JSON at all: it
// must not panic, and on valid JSON it agrees with encoding/json's
// tokenizer.
func FuzzDuplicateKey(f *testing.F) {
	for _, s := range []string{`{"a":1,"a":2}`, `}`, `,`, `{"a":[}`, `"\`, `{"A":{"b":1},"a":2}`, `[{"x":1,"X":2}]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		err := duplicateKey(data)
		if json.Valid(data) && (err != nil) != duplicateByTokens(data) {
			t.Fatalf("%q: scanner says %v, tokenizer %v", data, err, duplicateByTokens(data))
		}
	})
}

func FuzzDecodeArguments(f *testing.F) {
	params, err := Compile(map[string]any{"type": "object", "properties": map[string]any{
		"city": map[string]any{"type": "string"},
		"opts": map[string]any{"type": "object", "properties": map[string]any{"unit": map[string]any{"type": "string"}}},
	}})
	if err != nil {
		f.Fatal(err)
	}
	tool := &Tool{Name: "weather__query", Params: params}
	for _, s := range []string{`{"city":"x"}`, ``, `null`, `[]`, `{"city":1}`, `{"opts":{"unit":"c"}}`, "\x00",
		`{"city":"a","city":"b"}`, `{"city":"a","CITY":"b"}`, `{"c\u0069ty":1,"city":2}`, `{"a":[{"k":1,"\u212a":2}]}`,
		`{"a":{"b":1},"b":{"a":1}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		args, raw, err := DecodeArguments(data)
		if err != nil {
			// A duplicate is reported only for valid JSON that has one.
			if strings.Contains(err.Error(), "duplicate key") && (!json.Valid(data) || !duplicateByTokens(data)) {
				t.Fatalf("%q: %v", data, err)
			}
			return
		}
		if args == nil || !json.Valid(raw) {
			t.Fatalf("decoded %q to %v / %q", data, args, raw)
		}
		if duplicateByTokens(raw) {
			t.Fatalf("accepted %q, which names a key twice", data)
		}
		_ = tool.Validate(args)
	})
}
