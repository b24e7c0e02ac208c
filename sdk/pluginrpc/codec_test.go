package pluginrpc

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/hearth-agent/hearth/sdk"
)

var codecSeeds = []string{
	`{"jsonrpc":"2.0","id":1,"method":"tool.call","params":{"tool":"echo","args":{"msg":"你好"},"context":{"pluginId":"p","tool":"echo","actor":"agent","turn":{"sessionId":"s","tainted":true}}}}`,
	`{"jsonrpc":"2.0","id":"x","result":{"value":{"a":[1,2]},"text":"t\n","isError":true,"metadata":{"k":"v"}}}`,
	`{"jsonrpc":"2.0","id":7,"error":{"code":-32003,"message":"boom","data":{"x":1}}}`,
	`{"JSONRPC":"2.0","Id":1,"METHOD":"m"}`, `{"jsonrpc":"2.0","m\u0065thod":"x","id":null}`,
	`{"jsonrpc":"2.0","method":5}`, `{"jsonrpc":"2.0","error":null,"result":null}`, `null`, `[1]`, `{"tool":null,"args":null,"context":null}`,
	`{"value":null,"text":null,"isError":null,"metadata":null}`, `{"Tool":"a","ARGS":1}`, `{"context":{"CallId":"c","turn":null}}`,
	`{"jsonrpc":"2.0","method":"m","jsonrpc":null}`, `{"text":"\ud800"}`, `{"tool":"\xff"}`,
}

// FuzzDecodeMessage checks the connection's decoder against encoding/json:
// the same lines are accepted, with the same fields.
func FuzzDecodeMessage(f *testing.F) {
	for _, s := range codecSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		var got, want message
		gerr := decodeMessage(line, &got)
		werr := json.Unmarshal(line, &want)
		gok, wok := gerr == nil && got.JSONRPC == "2.0", werr == nil && want.JSONRPC == "2.0"
		if gok != wok {
			t.Fatalf("%q: accepted=%v (%v), encoding/json accepted=%v (%v)", line, gok, gerr, wok, werr)
		}
		if gok && !reflect.DeepEqual(got, want) {
			t.Fatalf("%q:\n got %+v\nwant %+v", line, got, want)
		}
	})
}

func FuzzDecodeToolCall(f *testing.F) {
	for _, s := range codecSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, valid := range []bool{false, true} {
			if valid && !json.Valid(b) {
				continue
			}
			decodeBoth(t, b, valid)
		}
	})
}

func decodeBoth(t *testing.T, b []byte, valid bool) {
	var gp, wp ToolCallParams
	gerr, werr := gp.decodeJSON(b, valid), json.Unmarshal(b, &wp)
	if (gerr == nil) != (werr == nil) {
		t.Fatalf("params %q: err %v, encoding/json %v", b, gerr, werr)
	}
	if gerr == nil && !reflect.DeepEqual(gp, wp) {
		t.Fatalf("params %q:\n got %+v\nwant %+v", b, gp, wp)
	}
	var gr, wr ToolCallResult
	gerr, werr = gr.decodeJSON(b, valid), json.Unmarshal(b, &wr)
	if (gerr == nil) != (werr == nil) {
		t.Fatalf("result %q: err %v, encoding/json %v", b, gerr, werr)
	}
	if gerr == nil && !reflect.DeepEqual(gr, wr) {
		t.Fatalf("result %q:\n got %+v\nwant %+v", b, gr, wr)
	}
}

// FuzzEncodeToolCall checks that what the encoders write decodes, by
// encoding/json, to what encoding/json's own encoding decodes to.
func FuzzEncodeToolCall(f *testing.F) {
	f.Add("echo", `{"msg": "你好"}`, "p", "agent", "sess", true, "text\u2028\x01", "k", "v")
	f.Add("", "", "", "", "", false, "", "", "")
	f.Add("t", "{\n \"a\": 1\n}", "\xff", "a\"b", "", false, "", "", "")
	f.Fuzz(func(t *testing.T, tool, args, plugin, actor, session string, tainted bool, text, mk, mv string) {
		var raw json.RawMessage // empty is written as null; encoding/json refuses it
		if args != "" {
			raw = json.RawMessage(args)
		}
		p := ToolCallParams{Tool: tool, Args: raw, Context: CallContext{
			PluginID: plugin, Tool: tool, Actor: sdk.Actor(actor), CallID: text, Grant: mv}}
		if session != "" || tainted {
			p.Context.Turn = &sdk.TurnInfo{SessionID: session, Tainted: tainted, UserAsked: !tainted}
		}
		want, werr := json.Marshal(p)
		got, gerr := p.appendJSON(nil)
		if (gerr == nil) != (werr == nil) {
			t.Fatalf("params %+v: err %v, encoding/json %v", p, gerr, werr)
		}
		if gerr == nil {
			sameJSON(t, got, want)
		}
		r := ToolCallResult{Value: raw, IsError: tainted}
		if text != "" {
			r.Text = &text
		}
		if mk != "" {
			r.Metadata = map[string]string{mk: mv, "z": text}
		}
		want, werr = json.Marshal(r)
		got, gerr = r.appendJSON(nil)
		if (gerr == nil) != (werr == nil) {
			t.Fatalf("result %+v: err %v, encoding/json %v", r, gerr, werr)
		}
		if gerr == nil {
			sameJSON(t, got, want)
		}
	})
}

func sameJSON(t *testing.T, got, want []byte) {
	t.Helper()
	if bytes.IndexByte(got, '\n') >= 0 {
		t.Fatalf("encoded value spans lines: %q", got)
	}
	// Numbers as written (json.Number), so a number too large for a
	// float64 in the arguments still compares.
	decode := func(b []byte, v *any) error {
		d := json.NewDecoder(bytes.NewReader(b))
		d.UseNumber()
		return d.Decode(v)
	}
	var g, w any
	if err := decode(got, &g); err != nil {
		t.Fatalf("encoded %q is not JSON: %v", got, err)
	}
	if err := decode(want, &w); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Fatalf("encoded\n %s\nencoding/json\n %s", got, want)
	}
}
