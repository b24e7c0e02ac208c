package tools

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
		_, _, err := DecodeArguments(json.RawMessage(tc.args))
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: refused: %v", tc.args, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, ErrInvalidArguments)):
			t.Errorf("%s: got %v, want an error with %s", tc.args, err, tc.want)
		}
	}
}

// TestDuplicateKeysNeverReachHandler goes through Registry.Call, both the
// path that decodes a map and the one that forwards the raw text of a
// Direct handler (a child plugin's) unchanged.
func TestDuplicateKeysNeverReachHandler(t *testing.T) {
	r := NewRegistry()
	var calls atomic.Int32
	handler := func(context.Context, *sdk.ToolContext, map[string]any, json.RawMessage) (any, error) {
		calls.Add(1)
		return "paid", nil
	}
	def := sdk.ToolDef{Name: "pay", Parameters: map[string]any{"type": "object",
		"properties": map[string]any{"to": map[string]any{"type": "string"}, "amount": map[string]any{"type": "number"}}}}
	if _, err := r.Register("bank", def, handler); err != nil {
		t.Fatal(err)
	}
	def.Name = "forward"
	tool, err := r.Register("bank", def, handler)
	if err != nil {
		t.Fatal(err)
	}
	tool.Direct = true
	for _, name := range []string{"bank__pay", "bank__forward"} {
		res := r.Call(context.Background(), &sdk.ToolContext{}, name, json.RawMessage(`{"to":"mallory","amount":5,"to":"bob"}`))
		if !res.IsError || !errors.Is(res.Err, ErrInvalidArguments) || !strings.Contains(res.Content, `duplicate key \"to\"`) {
			t.Errorf("%s: got %+v", name, res)
		}
		if res := r.Call(context.Background(), &sdk.ToolContext{}, name, json.RawMessage(`{"to":"bob","amount":5}`)); res.IsError {
			t.Errorf("%s: a good call failed: %+v", name, res)
		}
	}
	if n := calls.Load(); n != 2 {
		t.Fatalf("handler ran %d times, want 2 (the good calls)", n)
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
