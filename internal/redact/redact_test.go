package redact

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/url"
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

// echoKey is the attack review's key: every character class a URL, JSON
// and base64 treat specially.
const echoKey = "AbCd+EfGh/IjKl=MnOpt1234"

// TestSecretsMaskEchoedForms: a server that rejects a key often echoes it,
// and not always as it was sent.
func TestSecretsMaskEchoedForms(t *testing.T) {
	var s Secrets
	s.Add(echoKey)
	basic := base64.StdEncoding.EncodeToString([]byte("user:" + echoKey))
	for name, echoed := range map[string]string{
		"exact":        `invalid key ` + echoKey,
		"json slash":   `{"detail":"invalid key AbCd+EfGh\/IjKl=MnOpt1234"}`,
		"json u":       `{"detail":"invalid key AbCd\u002bEfGh\u002fIjKl\u003dMnOpt1234"}`,
		"json U":       `{"detail":"invalid key AbCd\u002BEfGh\u002FIjKl\u003DMnOpt1234"}`,
		"query":        "GET /v1?key=" + url.QueryEscape(echoKey) + "&x=1",
		"query lower":  "GET /v1?key=AbCd%2bEfGh%2fIjKl%3dMnOpt1234",
		"path":         "GET /keys/" + url.PathEscape(echoKey) + "/usage",
		"base64":       "b64=" + base64.StdEncoding.EncodeToString([]byte(echoKey)),
		"base64url":    "b64=" + base64.URLEncoding.EncodeToString([]byte(echoKey)),
		"basic auth":   "Authorization: Basic " + basic,
		"basic auth 2": "Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte("me:"+echoKey+"!")),
		"cut short":    "key " + echoKey[:len(echoKey)-5] + "…",
		"tail":         "key …" + echoKey[7:],
		"twelve":       "part " + echoKey[3:15] + " here",
		// Review 2 of issue 8: other cases and encodings.
		"upper":        "INVALID KEY " + strings.ToUpper(echoKey),
		"lower":        "invalid key " + strings.ToLower(echoKey),
		"hex":          "key=" + hex.EncodeToString([]byte(echoKey)),
		"hex upper":    "key=" + strings.ToUpper(hex.EncodeToString([]byte(echoKey))),
		"html decimal": "<p>invalid key AbCd&#43;EfGh&#47;IjKl&#61;MnOpt1234</p>",
		"html hex":     "<p>invalid key AbCd&#x2B;EfGh&#x2F;IjKl&#x3D;MnOpt1234</p>",
		"html hex 0":   "<p>invalid key AbCd&#x002b;EfGh&#x002f;IjKl&#x003d;MnOpt1234</p>",
		"html every":   "<p>invalid key " + htmlEvery(echoKey, "&#%d;") + "</p>",
		"html every x": "<p>invalid key " + htmlEvery(echoKey, "&#x%X;") + "</p>",
		"spaced":       "key: A b C d + E f G h / I j K l = M n O p t 1 2 3 4",
		"spaced upper": "KEY: A B C D + E F G H / I J K L = M N O P T 1 2 3 4",
	} {
		got := s.String(echoed)
		if !strings.Contains(got, "****1234") {
			t.Errorf("%s: %q masked as %q", name, echoed, got)
		}
		for i := 0; i+GramLen <= len(echoKey); i++ {
			if strings.Contains(got, echoKey[i:i+GramLen]) {
				t.Errorf("%s: %q still shows %q", name, got, echoKey[i:i+GramLen])
			}
		}
	}
	// Eleven characters of a key, and unrelated text, stay.
	for _, text := range []string{"part " + echoKey[2:13] + " here", "AbCd and EfGh and IjKl", "QWJDZCtFZkd is too short"} {
		if got := s.String(text); got != text {
			t.Errorf("%q masked as %q", text, got)
		}
	}
}

func TestSecretsShortKeyMaskedWhole(t *testing.T) {
	var s Secrets
	s.Add("k3y-9x7Z") // 8 bytes: only the whole key, in any form
	for in, want := range map[string]string{
		"k3y-9x7Z":                         "****",
		"k3y-9x7":                          "k3y-9x7",
		"a=" + url.QueryEscape("k3y-9x7Z"): "a=****",
		base64.StdEncoding.EncodeToString([]byte("k3y-9x7Z")): "****",
	} {
		if got := s.String(in); got != want {
			t.Errorf("String(%q) = %q, want %q", in, got, want)
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
		{`INCORRECT API KEY PROVIDED: SK-PROJ-ABCDEFGHIJKLMNOP`, "ABCDEFGHIJKL"},
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
	f.Add("your key is sk-0123456789abcdef, twice: sk-0123456789abcdef", uint8(3), uint8(17), uint8(5))
	f.Add("sk-0123456789abcdesk-0123456789abcdef", uint8(1), uint8(2), uint8(30))
	f.Add(`{"detail":"invalid key AbCd+EfGh\/IjKl=MnOpt1234"}`, uint8(30), uint8(4), uint8(3))
	f.Add("key=AbCd%2BEfGh%2FIjKl%3DMnOpt1234 and AbCd+EfGh/IjKl=MnOp", uint8(10), uint8(9), uint8(20))
	f.Add("Basic "+base64.StdEncoding.EncodeToString([]byte("u:AbCd+EfGh/IjKl=MnOpt1234")), uint8(12), uint8(12), uint8(12))
	f.Add("AbCd+EfGh/IjKl=MnOpAbCd+EfGh/IjKl=MnOpt1234sk-01234567", uint8(19), uint8(1), uint8(1))
	f.Add("SK-0123456789ABCDEF and abcd+efgh/ijkl=mnopt1234", uint8(7), uint8(20), uint8(9))
	f.Add("key=736b2d30313233343536373839616263646566 736B2D30313233343536373839616263646566", uint8(11), uint8(15), uint8(2))
	f.Add("AbCd&#43;EfGh&#x2F;IjKl&#x003d;MnOpt1234", uint8(5), uint8(6), uint8(7))
	f.Add("s k - 0 1 2 3 4 5 6 7 8 9 a b c d e f", uint8(13), uint8(1), uint8(11))
	f.Fuzz(func(t *testing.T, text string, a, b, c uint8) {
		var s Secrets
		s.Add("sk-0123456789abcdef", echoKey)
		var out strings.Builder
		w := NewStream(&out, &s)
		i := min(int(a), len(text))
		j := min(i+int(b), len(text))
		k := min(j+int(c), len(text))
		for _, piece := range []string{text[:i], text[i:j], text[j:k], text[k:]} {
			w.Write([]byte(piece))
		}
		w.Flush()
		want := s.String(text)
		if out.String() != want {
			t.Fatalf("pieces gave %q, whole %q", out.String(), want)
		}
		for _, key := range []string{"sk-0123456789abcdef", echoKey} {
			for n := 0; n+GramLen <= len(key); n++ {
				if strings.Contains(strings.ToLower(want), strings.ToLower(key[n:n+GramLen])) {
					t.Fatalf("%q shows %q", want, key[n:n+GramLen])
				}
			}
		}
	})
}

// BenchmarkSecretsString masks a log record and a page of prose with two
// keys configured: what every log line and every streamed answer costs.
func BenchmarkSecretsString(b *testing.B) {
	var s Secrets
	s.Add("sk-0123456789abcdef", echoKey)
	for name, text := range map[string]string{
		"record": `time=2026-11-30T17:00:00Z level=ERROR msg="model call failed" source=main status=401 err="the provider rejected the API key"`,
		"page":   strings.Repeat("Hearth runs the conversation loop, enforces policy and keeps memory; 北京晴，25 度。 ", 50),
	} {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for b.Loop() {
				if s.String(text) != text {
					b.Fatal("masked")
				}
			}
		})
	}
}

// htmlEvery writes every character of s as an HTML character reference.
func htmlEvery(s, format string) string {
	var b strings.Builder
	for _, c := range []byte(s) {
		fmt.Fprintf(&b, format, c)
	}
	return b.String()
}

// After a key-like field name, a word a sentence goes on after is prose
// and stays; a value (digits, capitals inside, symbols, at the end of the
// line, quoted) is still masked, as are sk- keys anywhere.
func TestKeyLikeLeavesProseAfterAKeyName(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"Error: preference api_key: preferences are not secret; use a secret setting",
			"Error: preference api_key: preferences are not secret; use a secret setting"},
		{"password: Required when the server asks", "password: Required when the server asks"},
		{"api_key: sk-live-abcdef0123456789 is set", "api_key: ****6789 is set"},
		{"api_key: abcdEFGH0123 is set", "api_key: ****0123 is set"},
		{"api_key=supersecretvalue", "api_key=****alue"},
		{"password: correcthorsebattery", "password: ****tery"},
		{"password: correcthorsebattery\nnext", "password: ****tery\nnext"},
		{`{"api_key": "preferences are"}`, `{"api_key": "****nces are"}`},
		{"secret: preferences are fine, secret=hunter2hunter2", "secret: preferences are fine, secret=****ter2"},
	} {
		if got := KeyLike(tt.in); got != tt.want {
			t.Errorf("KeyLike(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
