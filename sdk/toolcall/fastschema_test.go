package toolcall

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/hearth-agent/hearth/sdk"
)

var fastSchemaSeeds = []string{
	`{"type":"object","properties":{"msg":{"type":"string"}},"required":["msg"],"additionalProperties":false}`,
	`{"type":"object","properties":{"n":{"type":"integer","minimum":1,"maximum":10},"x":{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":1.5}}}`,
	`{"type":"object","properties":{"unit":{"type":"string","enum":["c","f"]},"tags":{"type":"array","items":{"type":"string","minLength":1,"maxLength":3},"minItems":1,"maxItems":2}}}`,
	`{"type":"object","properties":{"id":{"type":["string","null"],"pattern":"^[a-z]+$"},"opts":{"type":"object","properties":{"deep":{"type":"boolean"}},"additionalProperties":{"type":"number"}}}}`,
	`{"type":"object","properties":{"any":{},"never":false,"e":{"enum":[1,"1",true,null]}},"description":"d","title":"t"}`,
	`{"type":"object","properties":{"a":{"anyOf":[{"type":"string"}]}}}`,
	`{"type":"object","properties":{"v":{"const":3}},"required":["v"]}`,
}

var fastInstanceSeeds = []string{
	`{"msg":"你好, hearth"}`, `{}`, `{"msg":1}`, `{"msg":"x","extra":true}`, `{"n":3,"x":0.5}`, `{"n":3.5}`, `{"n":0}`,
	`{"x":1.5}`, `{"unit":"k"}`, `{"tags":["ab","abcd"]}`, `{"tags":[]}`, `{"id":null}`, `{"id":"ABC"}`,
	`{"opts":{"deep":1,"z":"s"}}`, `{"never":1}`, `{"e":1.0}`, `{"e":"1"}`, `{"v":3}`, `{"tags":["😀😀😀"]}`,
}

// handled compiles a fuzzed schema both ways; fast is nil when the input
// is not a schema or the fast checker does not handle it.
func handled(schemaJSON string) (*jsonschema.Resolved, *fastSchema) {
	var s jsonschema.Schema
	if json.Unmarshal([]byte(schemaJSON), &s) != nil {
		return nil, nil
	}
	resolved, err := s.Resolve(nil)
	if err != nil {
		return nil, nil
	}
	return resolved, compileFast(&s)
}

// FuzzFastSchema checks that the fast checker accepts exactly the
// arguments jsonschema-go accepts, for every schema it handles.
func FuzzFastSchema(f *testing.F) {
	for _, s := range fastSchemaSeeds {
		for _, in := range fastInstanceSeeds {
			f.Add(s, in)
		}
	}
	f.Fuzz(func(t *testing.T, schemaJSON, instanceJSON string) {
		resolved, fast := handled(schemaJSON)
		if fast == nil {
			return
		}
		var instance any
		if json.Unmarshal([]byte(instanceJSON), &instance) != nil {
			return
		}
		want := resolved.Validate(instance)
		if got := fast.valid(instance); got != (want == nil) {
			t.Fatalf("schema %s, instance %s: fast says valid=%v, jsonschema-go says %v", schemaJSON, instanceJSON, got, want)
		}
	})
}

func TestFastSchemaCoverage(t *testing.T) {
	// The schemas our SDKs infer must take the fast path; ones using
	// keywords it does not handle must not.
	for i, s := range fastSchemaSeeds {
		var sc jsonschema.Schema
		if err := json.Unmarshal([]byte(s), &sc); err != nil {
			t.Fatal(err)
		}
		handled := compileFast(&sc) != nil
		if want := i < 5; handled != want {
			t.Errorf("schema %d %s: handled=%v, want %v", i, s, handled, want)
		}
	}
}

func TestFastSchemaTakesInferredSchemas(t *testing.T) {
	type opts struct {
		Deep bool `json:"deep,omitempty"`
	}
	params, err := sdk.SchemaFor[struct {
		Msg   string            `json:"msg" jsonschema:"what to say"`
		N     int               `json:"n,omitempty"`
		X     float64           `json:"x,omitempty"`
		Tags  []string          `json:"tags,omitempty"`
		Opts  *opts             `json:"opts,omitempty"`
		Extra map[string]string `json:"extra,omitempty"`
	}]()
	if err != nil {
		t.Fatal(err)
	}
	s, err := Compile(params)
	if err != nil {
		t.Fatal(err)
	}
	if s.fast == nil {
		raw, _ := json.Marshal(params)
		t.Fatalf("an AddTool schema is not handled by the fast checker: %s", raw)
	}
}

// A deferred schema sends the same bytes as a compiled one and checks
// the same way, compiling at its first Validate; one that does not
// compile then refuses every call.
func TestDeferredSchema(t *testing.T) {
	params := map[string]any{"properties": map[string]any{"n": map[string]any{"type": "integer", "minimum": 1}}, "required": []any{"n"}}
	now, err := Compile(params)
	if err != nil {
		t.Fatal(err)
	}
	js, err := SchemaJSON(params)
	if err != nil {
		t.Fatal(err)
	}
	later, err := Deferred(js)
	if err != nil {
		t.Fatal(err)
	}
	if string(now.JSON()) != string(later.JSON()) {
		t.Fatalf("deferred JSON %s, compiled %s", later.JSON(), now.JSON())
	}
	for _, args := range []map[string]any{{"n": 2.0}, {"n": 0.0}, {}, {"n": "x"}} {
		if a, b := now.Validate(args), later.Validate(args); (a == nil) != (b == nil) || (a != nil && a.Error() != b.Error()) {
			t.Fatalf("%v: compiled %v, deferred %v", args, a, b)
		}
	}
	bad, err := Deferred(json.RawMessage(`{"properties":{"n":{"type":7}},"type":"object"}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Compile(map[string]any{"properties": map[string]any{"n": map[string]any{"type": 7}}}); err == nil {
		t.Fatal("the bad schema compiles")
	}
	for range 2 {
		if err := bad.Validate(map[string]any{"n": 1.0}); err == nil || !strings.Contains(err.Error(), "does not compile") {
			t.Fatalf("a deferred schema that does not compile: %v", err)
		}
	}
	for _, raw := range []string{``, `[]`, `{"type":`, `"x"`, `{}`, `{"type":"string"}`, `{"type":["object","null"]}`,
		`{"type":"object"} x`, `{"type":"object"}{}`, `{"properties":{"type":"object"}}`, `{"type":"object","type":"string"}`,
		`{"type":"object","properties":{"a":}}`, "{\"type\":\"object\",\"d\":\"\xff\"}"} {
		if _, err := Deferred(json.RawMessage(raw)); err == nil {
			t.Fatalf("deferred accepts %q", raw)
		}
	}
	for _, raw := range []string{`{"type":"object"}`, " {\"properties\":{\"a\":{\"type\":\"string\"}}, \"type\" : \"object\"}\n"} {
		if _, err := Deferred(json.RawMessage(raw)); err != nil {
			t.Fatalf("deferred refuses %q: %v", raw, err)
		}
	}
	if _, err := SchemaJSON(map[string]any{"type": "string"}); err == nil {
		t.Fatal("a schema that is not an object's")
	}
}
