package llm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
)

var benchSchema = json.RawMessage(`{"type": "object",
  "properties": {"city": {"type": "string", "description": "a <city> & more"}, "days": {"type": "integer"}},
  "required": ["city"]}`)

func specs(n int) []ToolSpec {
	out := make([]ToolSpec, n)
	for i := range out {
		out[i] = NewToolSpec(fmt.Sprintf("tool_%d", i), "looks up <the> weather & more", benchSchema)
	}
	return out
}

// TestEncodeRequestMatchesMarshal checks that a request's bytes are
// json.Marshal's, byte for byte, for specs encoded once, specs whose
// description or schema was changed in a copy (a dynamic description),
// and specs built without NewToolSpec.
func TestEncodeRequestMatchesMarshal(t *testing.T) {
	changed := specs(3)
	changed[0].Function.Description = "now different"
	changed[1].Function.Parameters = json.RawMessage(`{"type":"object"}`)
	changed[2].Function.Name = "renamed"
	cases := map[string]wireRequest{
		"no tools":    {Model: "m", Messages: []Message{{Role: "user", Content: "hi <b>"}}, Stream: true},
		"nil message": {Model: "m"},
		"encoded":     {Model: "m", Messages: []Message{{Role: "user", Content: "x"}}, Tools: specs(5), Stream: true},
		"changed":     {Model: "m", Tools: changed, Stream: true},
		"literal":     {Model: "m", Tools: []ToolSpec{{Type: "function", Function: FunctionSpec{Name: "t", Parameters: benchSchema}}}},
	}
	for name, wr := range cases {
		wr.StreamOptions = &struct {
			IncludeUsage bool `json:"include_usage"`
		}{true}
		want, err := json.Marshal(wr)
		if err != nil {
			t.Fatal(err)
		}
		got, err := encodeRequest(wr)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s:\n got %s\nwant %s", name, got, want)
		}
	}
}

func benchEncode(b *testing.B, encode func(wireRequest) ([]byte, error)) {
	wr := wireRequest{Model: "m", Messages: []Message{{Role: "user", Content: "hello"}}, Tools: specs(1000), Stream: true}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := encode(wr); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEncodeRequest1000 encodes a request offering 1,000 tools as
// Chat does; BenchmarkEncodeRequest1000Marshal as it did before (every
// schema checked and compacted again).
func BenchmarkEncodeRequest1000(b *testing.B) { benchEncode(b, encodeRequest) }

func BenchmarkEncodeRequest1000Marshal(b *testing.B) {
	benchEncode(b, func(wr wireRequest) ([]byte, error) { return json.Marshal(wr) })
}
