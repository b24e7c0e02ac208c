package main

import (
	"bytes"
	"errors"
	"os"
	"testing"
)

// FuzzReadLine feeds the setup's line reader any keys: it never panics,
// a line it returns holds no control characters and nothing not typed,
// and without an end of line it leaves the setup.
func FuzzReadLine(f *testing.F) {
	for _, s := range []string{"9\r", "sk-abc\x7f\x7fdef\n", "\x1b[A\x1b[Dx\r", "\x15abc\x03", "\x04", "é\x7f\r", "\x1bOPq\r"} {
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, keys []byte, echo bool) {
		null, err := os.Open(os.DevNull)
		if err != nil {
			t.Fatal(err)
		}
		defer null.Close()
		var shown bytes.Buffer
		r := &firstRun{in: null, out: &shown, pending: bytes.Clone(keys)}
		line, err := r.readLine(echo)
		if err != nil {
			if !errors.Is(err, errSetupQuit) {
				t.Fatalf("error %v", err)
			}
			return
		}
		if len(line) > len(keys) || bytes.ContainsFunc([]byte(line), func(c rune) bool { return c < 0x20 || c == 0x7f }) {
			t.Fatalf("line %q from %q", line, keys)
		}
		if !bytes.ContainsAny(keys, "\r\n") {
			t.Fatalf("a line %q without an end of line", line)
		}
		if !echo && shown.Len() > 0 {
			t.Fatalf("unechoed input shown: %q", shown.String())
		}
	})
}
