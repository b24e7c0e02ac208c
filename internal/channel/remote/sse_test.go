package remote

import (
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

// readAll reads every event of stream, and the error that ended it.
func readAll(r io.Reader) ([]sseEvent, error) {
	sr := newSSEReader(r)
	var out []sseEvent
	for {
		ev, err := sr.next()
		if err != nil {
			return out, err
		}
		out = append(out, ev)
	}
}

func TestSSEReader(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []sseEvent
	}{
		{"the daemon's shape", ": hearth events\n\nid: 7\nevent: content.delta\ndata: {\"text\":\"hi\"}\n\n",
			[]sseEvent{{ID: "7", Own: true, Event: "content.delta", Data: `{"text":"hi"}`}}},
		{"no name is message", "data: x\n\n", []sseEvent{{Event: "message", Data: "x"}}},
		{"data lines joined", "data: a\ndata:b\ndata\n\n", []sseEvent{{Event: "message", Data: "a\nb\n"}}},
		{"only one space dropped", "data:  two\n\n", []sseEvent{{Event: "message", Data: " two"}}},
		{"CRLF and CR", "event: e\r\ndata: 1\r\n\r\nevent: f\rdata: 2\r\r\n", []sseEvent{
			{Event: "e", Data: "1"}, {Event: "f", Data: "2"}}},
		{"no data, no event", "event: e\n\ndata: 1\n\n", []sseEvent{{Event: "message", Data: "1"}}},
		{"id persists, not own", "id: 3\ndata: a\n\ndata: b\n\n", []sseEvent{
			{ID: "3", Own: true, Event: "message", Data: "a"}, {ID: "3", Event: "message", Data: "b"}}},
		{"id with NUL ignored", "id: 1\ndata: a\n\nid: x\x00y\ndata: b\n\n", []sseEvent{
			{ID: "1", Own: true, Event: "message", Data: "a"}, {ID: "1", Event: "message", Data: "b"}}},
		{"comments, retry and unknown fields", ":c\nretry: 10\nfoo: bar\ndata: a\n\n", []sseEvent{{Event: "message", Data: "a"}}},
		{"unfinished event dropped", "data: a\n\ndata: b\n", []sseEvent{{Event: "message", Data: "a"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := readAll(iotest.OneByteReader(strings.NewReader(tc.in)))
			if !errors.Is(err, io.EOF) {
				t.Fatalf("ended with %v, want EOF", err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got  %v\nwant %v", got, tc.want)
			}
		})
	}
}

func TestSSEReaderLimits(t *testing.T) {
	long := "data: " + strings.Repeat("x", maxEventBytes) + "\n\n"
	if _, err := readAll(strings.NewReader(long)); !errors.Is(err, ErrEventTooLarge) {
		t.Fatalf("a long line: %v, want ErrEventTooLarge", err)
	}
	many := strings.Repeat("data: "+strings.Repeat("x", 1000)+"\n", maxEventBytes/1000+1)
	if _, err := readAll(strings.NewReader(many)); !errors.Is(err, ErrEventTooLarge) {
		t.Fatalf("many lines: %v, want ErrEventTooLarge", err)
	}
}

func TestSSEReaderBrokenConnection(t *testing.T) {
	broken := io.MultiReader(strings.NewReader("data: a\n\ndata: b"), iotest.ErrReader(io.ErrUnexpectedEOF))
	got, err := readAll(broken)
	if !errors.Is(err, io.ErrUnexpectedEOF) || len(got) != 1 {
		t.Fatalf("got %v, %v; want one event and the connection's error", got, err)
	}
}

// FuzzSSEReader checks that any stream is read without panicking, that
// whatever is read does not depend on how the bytes arrive, and that
// every event has a name and no more data than was sent.
func FuzzSSEReader(f *testing.F) {
	for _, s := range []string{
		"id: 1\nevent: turn.started\ndata: {\"session_id\":1,\"text\":\"hi\"}\n\n",
		"data: a\r\ndata: b\r\rid\n\n", ":x\n\n\n", "event\nid: \x00\ndata\n\n", "data: \xff\xfe\n\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		whole, err1 := readAll(strings.NewReader(s))
		bytewise, err2 := readAll(iotest.OneByteReader(strings.NewReader(s)))
		if !reflect.DeepEqual(whole, bytewise) || !errors.Is(err1, io.EOF) || !errors.Is(err2, io.EOF) {
			t.Fatalf("read whole: %v %v\nbyte by byte: %v %v", whole, err1, bytewise, err2)
		}
		for _, ev := range whole {
			if ev.Event == "" || len(ev.Data) > len(s) {
				t.Fatalf("event %v from %q", ev, s)
			}
		}
	})
}
