package terminal

import (
	"errors"
	"io"
	"strings"
	"testing"
)

// A message over MaxMessageBytes read from a pipe, in one line or in
// lines joined by \, is refused alone: the messages around it are read
// whole, and the reader never holds more than the limit.
func TestPlainReaderBoundsAMessage(t *testing.T) {
	huge := strings.Repeat("日志", MaxMessageBytes/3)
	in := "before\n" + huge + "\n" + "after \\\nsecond line\n" +
		strings.Repeat("x", MaxMessageBytes/2) + "\\\n" + strings.Repeat("y", MaxMessageBytes/2) + "\\\n" + "tail\n" +
		"fits " + strings.Repeat("z", MaxMessageBytes-100) + "\n" +
		huge + "\\\r\n" + "last\n" + "end"
	r := newPlainReader(strings.NewReader(in))
	for i, want := range []string{"before", "", "after \nsecond line", "", "fits " + strings.Repeat("z", MaxMessageBytes-100), "", "end"} {
		got, err := r.read()
		if want == "" {
			if !errors.Is(err, ErrMessageTooLong) {
				t.Fatalf("message %d: %d bytes, err %v; want ErrMessageTooLong", i, len(got), err)
			}
			continue
		}
		if err != nil || got != want {
			t.Fatalf("message %d: %.40q (%d bytes), err %v; want %.40q", i, got, len(got), err, want)
		}
	}
	if _, err := r.read(); !errors.Is(err, io.EOF) {
		t.Fatalf("after the last: %v", err)
	}
}

// The limit is the message's own bytes, whatever ends its line.
func TestPlainReaderLimitExact(t *testing.T) {
	full := strings.Repeat("a", MaxMessageBytes)
	for _, in := range []string{full + "\n", full + "\r\n", full} {
		if got, err := newPlainReader(strings.NewReader(in)).read(); err != nil || got != full {
			t.Errorf("%d bytes ending %q: %d bytes, %v", len(in), in[len(in)-2:], len(got), err)
		}
	}
	joined := strings.Repeat("a", MaxMessageBytes/2) + "\\\n" + strings.Repeat("b", MaxMessageBytes-MaxMessageBytes/2-1) + "\n"
	if got, err := newPlainReader(strings.NewReader(joined)).read(); err != nil || len(got) != MaxMessageBytes {
		t.Errorf("two lines making the limit: %d bytes, %v", len(got), err)
	}
	for _, in := range []string{full + "a\n", full + "a\r\n", full + "a", joined[:len(joined)-1] + "b\n"} {
		if _, err := newPlainReader(strings.NewReader(in)).read(); !errors.Is(err, ErrMessageTooLong) {
			t.Errorf("%d bytes: %v, want ErrMessageTooLong", len(in), err)
		}
	}
}
