package llm

import (
	"bufio"
	"fmt"
	"strings"
	"testing"
)

// Every call of an answer has an id of its own, streamed or not: a call
// without an id, or repeating one, gets a fresh id no other call has, so
// a result cannot answer, nor a check judge, another call.
func TestCallIDsAreUnique(t *testing.T) {
	call := func(index, id, args string) string {
		s := `{"type":"function","function":{"name":"bank__pay","arguments":` + fmt.Sprintf("%q", args) + `}}`
		if index != "" {
			s = `{"index":` + index + `,` + s[1:]
		}
		if id != "" {
			s = `{"id":"` + id + `",` + s[1:]
		}
		return s
	}
	stream := func(calls ...string) string {
		var b strings.Builder
		for _, c := range calls {
			fmt.Fprintf(&b, "data: {\"choices\":[{\"delta\":{\"tool_calls\":[%s]}}]}\n\n", c)
		}
		b.WriteString("data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\ndata: [DONE]\n\n")
		return b.String()
	}
	whole := func(calls ...string) string {
		return `{"choices":[{"message":{"tool_calls":[` + strings.Join(calls, ",") + `]},"finish_reason":"tool_calls"}]}`
	}
	for _, tc := range []struct {
		name, body string
		streamed   bool
		args       []string // each call's arguments, in order
	}{
		{"streamed: second without id takes the first's would-be name", stream(
			call("0", "call_1", `{"to":"mallory"}`), call("1", "", `{"to":"alice"}`)), true,
			[]string{`{"to":"mallory"}`, `{"to":"alice"}`}},
		{"streamed: both without ids", stream(
			call("0", "", `{"n":1}`), call("1", "", `{"n":2}`)), true,
			[]string{`{"n":1}`, `{"n":2}`}},
		{"whole: same id twice", whole(
			call("", "x", `{"to":"mallory"}`), call("", "x", `{"to":"alice"}`)), false,
			[]string{`{"to":"mallory"}`, `{"to":"alice"}`}},
		{"whole: same index, no ids", whole(
			call("0", "", `{"n":1}`), call("0", "", `{"n":2}`), call("0", "call_0", `{"n":3}`)), false,
			[]string{`{"n":1}`, `{"n":2}`, `{"n":3}`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := &decoder{maxLine: 1 << 20, redact: func(s string) string { return s }}
			var resp *Response
			var err error
			if tc.streamed {
				resp, err = d.stream(bufio.NewReader(strings.NewReader(tc.body)))
			} else {
				resp, err = d.whole(strings.NewReader(tc.body))
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(resp.ToolCalls) != len(tc.args) {
				t.Fatalf("got %d calls, want %d: %+v", len(resp.ToolCalls), len(tc.args), resp.ToolCalls)
			}
			seen := map[string]bool{}
			for i, c := range resp.ToolCalls {
				if c.ID == "" || seen[c.ID] {
					t.Errorf("call %d has id %q, empty or taken: %+v", i, c.ID, resp.ToolCalls)
				}
				seen[c.ID] = true
				if c.Function.Arguments != tc.args[i] {
					t.Errorf("call %d has arguments %s, want %s", i, c.Function.Arguments, tc.args[i])
				}
			}
		})
	}
}

// FuzzCallIDs checks, over any stream or whole answer, that every tool
// call decoded has an id no other call of the answer has.
func FuzzCallIDs(f *testing.F) {
	f.Add([]byte(`{"choices":[{"message":{"tool_calls":[{"id":"x","function":{"name":"a"}},{"id":"x","function":{"name":"b"}},{"function":{"name":"c"}}]}}]}`))
	f.Add([]byte("data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_1\",\"function\":{\"name\":\"x\"}},{\"index\":1,\"function\":{\"name\":\"y\"}}]}}]}\n\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		d := &decoder{maxLine: 1 << 16, redact: func(s string) string { return s }}
		check := func(resp *Response) {
			if resp == nil {
				return
			}
			seen := map[string]bool{}
			for _, c := range resp.ToolCalls {
				if c.ID == "" || seen[c.ID] {
					t.Fatalf("id %q empty or taken: %+v", c.ID, resp.ToolCalls)
				}
				seen[c.ID] = true
			}
		}
		resp, _ := d.stream(bufio.NewReader(strings.NewReader(string(data))))
		check(resp)
		resp, _ = d.whole(strings.NewReader(string(data)))
		check(resp)
	})
}
