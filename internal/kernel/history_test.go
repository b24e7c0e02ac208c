package kernel

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hearth-agent/hearth/internal/llm"
	"github.com/hearth-agent/hearth/internal/policy"
	"github.com/hearth-agent/hearth/internal/store"
	"github.com/hearth-agent/hearth/internal/store/storetest"
	"github.com/hearth-agent/hearth/sdk/llmtest"
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
		t.Run(short(tc.in), func(t *testing.T) {
			out, tail := closeTurns(tc.in)
			if short(out) != tc.out || short(tail) != tc.tail {
				t.Errorf("%s: got %q (tail %q), want %q (tail %q)", short(tc.in), short(out), short(tail), tc.out, tc.tail)
			}
		})
	}
}

// A tool call that could not be recorded does not run, and the turn fails
// with a clear error; what was stored before the failure stays.
func TestUnsavedToolCallDoesNotRun(t *testing.T) {
	e := newEnv(t, Options{},
		llmtest.Reply{ToolCalls: []llmtest.Call{{ID: "c", Name: "clock__now", Arguments: `{}`}}},
		llmtest.Reply{Text: "never"},
	)
	var ran atomic.Int32
	load(t, e.k, "clock", countingClock(&ran))
	f := storetest.Wrap(e.st)
	f.FailAfter("AppendMessages", 1, errors.New("database or disk is full")) // the user's message only
	e.k.store = f
	out := e.ask(t, "what time is it?")
	if !errors.Is(out.Err, ErrNotSaved) || !strings.Contains(out.Err.Error(), "disk is full") {
		t.Fatalf("outcome %+v", out)
	}
	if ran.Load() != 0 {
		t.Fatal("a call that was not recorded ran")
	}
	if n := len(e.srv.Requests()); n != 1 {
		t.Fatalf("%d model calls after the store failed", n)
	}
	if got := stored(t, e.st); got != "user:what time is it?" {
		t.Fatalf("stored %q, want the user's message", got)
	}
}

// An answer that cannot be stored is still given, the turn says it was
// not saved, and nothing stored before is lost: after a restart the model
// sees the question, closed as interrupted.
func TestUnsavedAnswerLosesNothingBefore(t *testing.T) {
	e := newEnv(t, Options{}, llmtest.Reply{Text: "noon"})
	f := storetest.Wrap(e.st)
	f.FailAfter("AppendMessages", 1, nil)
	e.k.store = f
	out := e.ask(t, "what time is it?")
	if out.Text != "noon" || !errors.Is(out.Err, ErrNotSaved) || !errors.Is(out.Err, storetest.ErrInjected) ||
		!strings.Contains(out.Err.Error(), "could not be saved") {
		t.Fatalf("outcome %+v", out)
	}
	if got := stored(t, e.st); got != "user:what time is it?" {
		t.Fatalf("stored %q", got)
	}

	srv, dir := e.srv, e.dir
	e.close(t)
	srv.Push(llmtest.Reply{Text: "ok"})
	e2 := startEnv(t, Options{}, srv, dir)
	if out := e2.ask(t, "again?"); out.Err != nil {
		t.Fatalf("outcome %+v", out)
	}
	if got := stored(t, e2.st); got != "user:what time is it?|assistant:"+interruptedNote+"|user:again?|assistant:ok" {
		t.Fatalf("stored after restart %q", got)
	}
}

// stored returns the test channel's stored history in short form.
func stored(t *testing.T, st *store.Store) string {
	t.Helper()
	ctx := context.Background()
	sess, err := st.FindSession(ctx, "test", "")
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := st.RecentMessages(ctx, sess.ID, 100)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range msgs {
		out = append(out, m.Role+":"+m.Content)
	}
	return strings.Join(out, "|")
}

// A call whose start cannot be audited does not run, and the turn fails.
func TestUnauditedToolCallDoesNotRun(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Reply{ToolCalls: []llmtest.Call{{ID: "c", Name: "clock__now", Arguments: `{}`}}},
		llmtest.Reply{Text: "never"},
	)
	dir := t.TempDir()
	st, err := store.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	f := storetest.Wrap(st)
	f.FailAfter("AppendAudit", 0, errors.New("database or disk is full"))
	eng, err := policy.NewEngine(context.Background(), f, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	eng.LocalChannels = append(eng.LocalChannels, "test")
	e := startEnv(t, Options{Policy: eng}, srv, dir)
	var ran atomic.Int32
	load(t, e.k, "clock", countingClock(&ran))
	out := e.ask(t, "what time is it?")
	if !errors.Is(out.Err, ErrNotSaved) || !strings.Contains(out.Err.Error(), "audit") {
		t.Fatalf("outcome %+v", out)
	}
	if ran.Load() != 0 {
		t.Fatal("a call that could not be audited ran")
	}
}
