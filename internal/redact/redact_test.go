package redact

import (
	"strings"
	"testing"
)

func TestSecretsMaskExactValues(t *testing.T) {
	var s Secrets
	s.Add("sk-live-0123456789abcdef", "short", "", "zz-other-secret-value")
	for _, tt := range []struct{ in, want string }{
		{"key sk-live-0123456789abcdef rejected", "key ****cdef rejected"},
		{"two: zz-other-secret-value and zz-other-secret-value", "two: ****alue and ****alue"},
		{"short stays", "short stays"},
		{"nothing here", "nothing here"},
	} {
		if got := s.String(tt.in); got != tt.want {
			t.Errorf("String(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestKeyLike(t *testing.T) {
	for _, tt := range []struct{ in, leak string }{
		{`{"error":{"message":"Incorrect API key provided: sk-proj-AbCdEfGhIjKlMnOp"}}`, "AbCdEfGhIjKl"},
		{"Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.payload.sig", "eyJhbGciOiJIUzI1NiJ9"},
		{`{"api_key": "0123456789abcdefXYZ"}`, "0123456789abcdef"},
		{`api-key=abcdefgh12345678`, "abcdefgh1234"},
		{`password: hunter2hunter2`, "hunter2hunt"},
	} {
		got := KeyLike(tt.in)
		if strings.Contains(got, tt.leak) || !strings.Contains(got, "****") {
			t.Errorf("KeyLike(%q) = %q", tt.in, got)
		}
	}
	if got := KeyLike("the sky is blue; ask- me"); got != "the sky is blue; ask- me" {
		t.Errorf("plain text changed: %q", got)
	}
}

func TestStreamHoldsBackSplitSecret(t *testing.T) {
	var s Secrets
	s.Add("sk-0123456789abcdef")
	var out strings.Builder
	w := NewStream(&out, &s)
	for _, piece := range []string{"your key is s", "k-0123", "456789abc", "def, and s", "o on. sk"} {
		if _, err := w.Write([]byte(piece)); err != nil {
			t.Fatal(err)
		}
	}
	if strings.Contains(out.String(), "sk-0123") || strings.HasSuffix(out.String(), "sk") {
		t.Fatalf("before flush: %q", out.String())
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if want := "your key is ****cdef, and so on. sk"; out.String() != want {
		t.Fatalf("got %q, want %q", out.String(), want)
	}
}

func TestWriterMasksRecords(t *testing.T) {
	var s Secrets
	s.Add("sk-0123456789abcdef")
	var out strings.Builder
	w := NewWriter(&out, s.All)
	n, err := w.Write([]byte("level=ERROR msg=failed key=sk-0123456789abcdef other=Bearer abcdefghijklmnop\n"))
	if err != nil || n == 0 {
		t.Fatal(n, err)
	}
	if strings.Contains(out.String(), "0123456789") || strings.Contains(out.String(), "abcdefghijkl") {
		t.Fatalf("leaked: %q", out.String())
	}
}

// FuzzStream checks that masking text written in pieces gives what
// masking it whole gives, wherever the pieces are cut.
func FuzzStream(f *testing.F) {
	f.Add("your key is sk-0123456789abcdef, twice: sk-0123456789abcdef", uint8(3), uint8(17))
	f.Add("sk-0123456789abcdesk-0123456789abcdef", uint8(1), uint8(2))
	f.Fuzz(func(t *testing.T, text string, a, b uint8) {
		var s Secrets
		s.Add("sk-0123456789abcdef")
		var out strings.Builder
		w := NewStream(&out, &s)
		i, j := min(int(a), len(text)), min(int(a)+int(b), len(text))
		for _, piece := range []string{text[:i], text[i:j], text[j:]} {
			w.Write([]byte(piece))
		}
		w.Flush()
		if want := s.String(text); out.String() != want {
			t.Fatalf("pieces gave %q, whole %q", out.String(), want)
		}
	})
}
