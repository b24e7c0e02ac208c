package kernel

import (
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/internal/llm"
)

func TestCloseTurns(t *testing.T) {
	call := func(ids ...string) llm.Message {
		m := llm.Message{Role: "assistant"}
		for _, id := range ids {
			m.ToolCalls = append(m.ToolCalls, llm.ToolCall{ID: id, Type: "function", Function: llm.FunctionCall{Name: "p__t"}})
		}
		return m
	}
	user := llm.Message{Role: "user", Content: "u"}
	answer := llm.Message{Role: "assistant", Content: "a"}
	result := func(id string) llm.Message { return llm.Message{Role: "tool", ToolCallID: id, Content: "r"} }
	// A short form of a history: u user, a answer, c<ids> calls, r<id>
	// result, R<id> interrupted result, I interrupted note.
	short := func(h []llm.Message) string {
		var b []string
		for _, m := range h {
			switch {
			case m.Role == "user":
				b = append(b, "u")
			case m.Role == "tool" && strings.Contains(m.Content, "interrupted"):
				b = append(b, "R"+m.ToolCallID)
			case m.Role == "tool":
				b = append(b, "r"+m.ToolCallID)
			case len(m.ToolCalls) > 0:
				s := "c"
				for _, c := range m.ToolCalls {
					s += c.ID
				}
				b = append(b, s)
			case m.Content == interruptedNote:
				b = append(b, "I")
			default:
				b = append(b, "a")
			}
		}
		return strings.Join(b, " ")
	}
	for _, tc := range []struct {
		in        []llm.Message
		out, tail string
	}{
		{[]llm.Message{user, answer}, "u a", ""},
		{[]llm.Message{user, call("1"), result("1"), answer}, "u c1 r1 a", ""},
		{[]llm.Message{user}, "u I", "I"},
		{[]llm.Message{user, call("1", "2"), result("2")}, "u c12 r2 R1 I", "R1 I"},
		{[]llm.Message{user, call("1"), result("1")}, "u c1 r1 I", "I"},
		{[]llm.Message{user, call("1"), user, answer}, "u c1 R1 I u a", ""},
		{[]llm.Message{user, result("9"), answer}, "u a", ""},
	} {
		out, tail := closeTurns(tc.in)
		if short(out) != tc.out || short(tail) != tc.tail {
			t.Errorf("%s: got %q (tail %q), want %q (tail %q)", short(tc.in), short(out), short(tail), tc.out, tc.tail)
		}
	}
}
