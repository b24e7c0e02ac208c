package wire

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"reflect"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/internal/codec"
)

var codecSeeds = []string{
	`{"jsonrpc":"2.0","id":1,"method":"tool.call","params":{"tool":"echo","args":{"msg":"你好"},"context":{"pluginId":"p","tool":"echo","actor":"agent","turn":{"sessionId":"s","tainted":true}}}}`,
	`{"jsonrpc":"2.0","id":"x","result":{"value":{"a":[1,2]},"text":"t\n","isError":true,"metadata":{"k":"v"}}}`,
	`{"jsonrpc":"2.0","id":7,"error":{"code":-32003,"message":"boom","data":{"x":1}}}`,
	`{"JSONRPC":"2.0","Id":1,"METHOD":"m"}`, `{"jsonrpc":"2.0","m\u0065thod":"x","id":null}`,
	`{"jsonrpc":"2.0","method":5}`, `{"jsonrpc":"2.0","error":null,"result":null}`, `null`, `[1]`, `{"tool":null,"args":null,"context":null}`,
	`{"value":null,"text":null,"isError":null,"metadata":null}`, `{"Tool":"a","ARGS":1}`, `{"context":{"CallId":"c","turn":null}}`,
	`{"jsonrpc":"2.0","method":"m","jsonrpc":null}`, `{"text":"\ud800"}`, `{"tool":"\xff"}`,
	`{"jsonrpc":"2.0","id":1,"result":{"value":{"a":1,"a":2}}}`, `{"jsonrpc":"2.0","id":1, "params" : { "x" : [ 1 ] } }`,
}

// wireNames are the member names of the decoded wire types, at any depth.
var wireNames = func() map[string]bool {
	names := map[string]bool{}
	for _, v := range []any{message{}, Error{}, ToolCallParams{}, CallContext{}, sdk.TurnInfo{}, ToolCallResult{}} {
		t := reflect.TypeOf(v)
		for i := range t.NumField() {
			if name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); name != "" {
				names[name] = true
			}
		}
	}
	return names
}()

// strictJSON reports whether b is what the codec must accept: valid JSON
// with unique member names and valid UTF-8.
func strictJSON(b []byte) bool { return jsontext.Value(b).IsValid() }

// exactNames reports whether no string in b matches a wire member name
// only when case is ignored: encoding/json matches such a name, the codec
// does not, the one place where the two may rightly differ on valid input.
func exactNames(b []byte) bool {
	dec := jsontext.NewDecoder(bytes.NewReader(b))
	for {
		tok, err := dec.ReadToken()
		if err != nil {
			return true
		}
		if tok.Kind() != '"' || wireNames[tok.String()] {
			continue
		}
		for n := range wireNames {
			if strings.EqualFold(n, tok.String()) {
				return false
			}
		}
	}
}

// FuzzDecodeMessage checks the connection's decoder: it accepts only
// strictly valid JSON, and on such input with exact member names it
// accepts the lines encoding/json accepts, with the same fields.
func FuzzDecodeMessage(f *testing.F) {
	for _, s := range codecSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		var got, want message
		gerr := decodeMessage(line, &got)
		if gerr == nil && !strictJSON(line) {
			t.Fatalf("%q: accepted, but it is not strictly valid JSON", line)
		}
		if !strictJSON(line) || !exactNames(line) {
			return
		}
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

// FuzzDecodeToolCall checks the decoding of a tool call's params and
// result as FuzzDecodeMessage checks a message's.
func FuzzDecodeToolCall(f *testing.F) {
	for _, s := range codecSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		decodeBoth[ToolCallParams](t, b)
		decodeBoth[ToolCallResult](t, b)
	})
}

func decodeBoth[T any](t *testing.T, b []byte) {
	var got, want T
	gerr := codec.Unmarshal(b, &got)
	if gerr == nil && !strictJSON(b) {
		t.Fatalf("%T %q: accepted, but it is not strictly valid JSON", got, b)
	}
	if !strictJSON(b) || !exactNames(b) {
		return
	}
	werr := json.Unmarshal(b, &want)
	if (gerr == nil) != (werr == nil) {
		t.Fatalf("%T %q: err %v, encoding/json %v", got, b, gerr, werr)
	}
	if gerr == nil && !reflect.DeepEqual(got, want) {
		t.Fatalf("%T %q:\n got %+v\nwant %+v", got, b, got, want)
	}
}

// FuzzEncodeToolCall checks that what is written is one line, decodes by
// the codec to what was encoded, and decodes by encoding/json to what
// encoding/json's own encoding decodes to.
func FuzzEncodeToolCall(f *testing.F) {
	f.Add("echo", `{"msg": "你好"}`, "p", "agent", "sess", true, "text\u2028\x01", "k", "v")
	f.Add("", "", "", "", "", false, "", "", "")
	f.Add("t", "{\n \"a\": 1\n}", "\xff", "a\"b", "", false, "", "", "")
	f.Add("t", `{"a":1,"a":2}`, "p", "", "", false, "", "", "")
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
		encodeBoth(t, p, raw)
		r := ToolCallResult{Value: raw, IsError: tainted}
		if text != "" {
			r.Text = &text
		}
		if mk != "" {
			r.Metadata = map[string]string{mk: mv, "z": text}
		}
		encodeBoth(t, r, raw)
	})
}

func encodeBoth[T any](t *testing.T, v T, raw json.RawMessage) {
	t.Helper()
	got, gerr := codec.Marshal(v)
	if raw != nil && !strictJSON(raw) {
		if gerr == nil {
			t.Fatalf("%+v: encoded with raw JSON that is not strictly valid: %s", v, got)
		}
		return
	}
	want, werr := json.Marshal(v)
	if (gerr == nil) != (werr == nil) {
		t.Fatalf("%+v: err %v, encoding/json %v", v, gerr, werr)
	}
	if gerr != nil {
		return
	}
	sameJSON(t, got, want)
	var back T
	if err := codec.Unmarshal(got, &back); err != nil {
		t.Fatalf("encoded %s does not decode: %v", got, err)
	}
	if again, _ := codec.Marshal(back); !bytes.Equal(again, got) {
		t.Fatalf("encoded %s decodes to %+v, encoded as %s", got, back, again)
	}
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

// TestWireStrictness pins what the protocol refuses that encoding/json
// accepted, and what it still accepts.
func TestWireStrictness(t *testing.T) {
	for _, c := range []struct {
		line string
		ok   bool
		want message
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":1}}`, true, message{JSONRPC: "2.0", ID: json.RawMessage(`1`), Method: "m", Params: json.RawMessage(`{"a":1}`)}},
		{`{"jsonrpc":"2.0","id":1,"result":null,"error":null}`, true, message{JSONRPC: "2.0", ID: json.RawMessage(`1`), Result: json.RawMessage(`null`)}},
		{`{"jsonrpc":"2.0","Method":"m"}`, true, message{JSONRPC: "2.0"}}, // an unknown member, ignored
		{`{"jsonrpc":"2.0","method":"a","method":"b"}`, false, message{}},
		{`{"jsonrpc":"2.0","id":1,"result":{"value":{"a":1,"a":2}}}`, false, message{}},
		{"{\"jsonrpc\":\"2.0\",\"method\":\"\xff\"}", false, message{}},
		{`{"jsonrpc":"2.0","method":"\udc00"}`, false, message{}},
	} {
		t.Run(c.line, func(t *testing.T) {
			var got message
			err := decodeMessage([]byte(c.line), &got)
			if (err == nil) != c.ok || c.ok && !reflect.DeepEqual(got, c.want) {
				t.Errorf("%s: got %+v, %v; want ok=%v %+v", c.line, got, err, c.ok, c.want)
			}
		})
	}
}

var (
	benchCall   = []byte(codecSeeds[0])
	benchResult = []byte(`{"jsonrpc":"2.0","id":12,"result":{"value":{"now":"2026-11-30T19:00:00+08:00","zone":"Asia/Shanghai"}}}`)
	benchParams = ToolCallParams{Tool: "echo", Args: json.RawMessage(`{"msg":"你好"}`), Context: CallContext{
		PluginID: "p", Tool: "echo", Actor: sdk.ActorAgent, Turn: &sdk.TurnInfo{SessionID: "s", Tainted: true}}}
	benchValue = ToolCallResult{Value: json.RawMessage(`{"now":"2026-11-30T19:00:00+08:00","zone":"Asia/Shanghai"}`)}
)

// BenchmarkDecodeToolCall is the child's decoding of a tool.call: the
// message, then its params.
func BenchmarkDecodeToolCall(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		var m message
		var p ToolCallParams
		if decodeMessage(benchCall, &m) != nil || codec.Unmarshal(m.Params, &p) != nil {
			b.Fatal("does not decode")
		}
	}
}

// BenchmarkDecodeToolResult is the host's decoding of a tool.call's answer.
func BenchmarkDecodeToolResult(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		var m message
		var r ToolCallResult
		if decodeMessage(benchResult, &m) != nil || codec.Unmarshal(m.Result, &r) != nil {
			b.Fatal("does not decode")
		}
	}
}

// BenchmarkEncodeToolCall is the host's encoding of a tool.call.
func BenchmarkEncodeToolCall(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := request(12, MethodToolCall, benchParams); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEncodeToolResult is the child's encoding of its answer.
func BenchmarkEncodeToolResult(b *testing.B) {
	b.ReportAllocs()
	id := json.RawMessage(`12`)
	for b.Loop() {
		buf := codec.Buffer()
		encodeReply(buf, id, benchValue, nil)
		codec.PutBuffer(buf)
	}
}

// A message the codec refuses is answered, not dropped: the call it
// answers fails at once, and a request gets an error reply.
func TestRefusedMessageIsAnswered(t *testing.T) {
	ar, tw := io.Pipe()
	tr, aw := io.Pipe()
	a := NewConn(ar, aw, slog.New(slog.NewTextHandler(io.Discard, nil)))
	a.Handle("echo", func(_ context.Context, p json.RawMessage) (any, error) { return p, nil })
	done := make(chan error, 1)
	go func() { done <- a.Run() }()
	defer func() {
		tw.Close()
		tr.Close()
		<-done
	}()
	peer := bufio.NewReader(tr)
	readLine := func() message {
		t.Helper()
		line, err := peer.ReadBytes('\n')
		var m message
		if err != nil || decodeMessage(line, &m) != nil {
			t.Fatalf("reading %q: %v", line, err)
		}
		return m
	}

	answered := make(chan error, 1)
	go func() { answered <- a.Call(context.Background(), "m", nil, new(ToolCallResult)) }()
	req := readLine()
	fmt.Fprintf(tw, "{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"value\":{\"a\":1,\"a\":2}}}\n", req.ID)
	var rerr *Error
	if err := <-answered; !errors.As(err, &rerr) || rerr.Code != CodeParseError || !strings.Contains(err.Error(), "duplicate") {
		t.Fatalf("an answer with a name twice: %v", err)
	}

	fmt.Fprint(tw, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"echo\",\"params\":\"\xff\"}\n")
	if m := readLine(); string(m.ID) != "5" || m.Error == nil || m.Error.Code != CodeParseError {
		t.Fatalf("a request with invalid UTF-8 answered with %+v", m)
	}
}
