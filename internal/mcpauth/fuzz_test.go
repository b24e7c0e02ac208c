package mcpauth

import (
	"errors"
	"net/url"
	"strings"
	"testing"
	"unicode"
)

// FuzzParseCallback feeds the loopback listener's query parser: an answer
// is accepted only with the login's state and a code, and a refusal's
// message has no control characters (it is printed to the terminal).
func FuzzParseCallback(f *testing.F) {
	f.Add("code=abc&state=s1", "s1")
	f.Add("code=abc&state=s2", "s1")
	f.Add("error=access_denied&error_description=no%0d%0athanks&state=s1", "s1")
	f.Add("state=s1", "s1")
	f.Add("code=x", "")
	f.Add("%zz", "s1")
	f.Fuzz(func(t *testing.T, query, state string) {
		q, _ := url.ParseQuery(query)
		res, err := parseCallback(q, state)
		if err == nil {
			if res == nil || res.Code == "" || res.State != state || state == "" || q.Get("state") != state {
				t.Fatalf("accepted %q for state %q: %+v", query, state, res)
			}
			return
		}
		if res != nil {
			t.Fatalf("a result with an error: %v", err)
		}
		if q.Get("state") != state && !errors.Is(err, ErrStateMismatch) {
			t.Fatalf("wrong state %q refused with %v", q.Get("state"), err)
		}
		if strings.ContainsFunc(err.Error(), func(r rune) bool { return !unicode.IsPrint(r) }) {
			t.Fatalf("message with control characters: %q", err.Error())
		}
	})
}

// FuzzDecodeCredentials feeds the stored credentials' decoder: what it
// returns can be used, and its errors never quote the value.
func FuzzDecodeCredentials(f *testing.F) {
	f.Add(`{"client":{"id":"c","token_url":"http://127.0.0.1/token"},"token":{"access_token":"a","expiry":"2026-01-01T00:00:00Z"}}`)
	f.Add(`null`)
	f.Add(`{"client":{"id":"c"}}`)
	f.Add(`{"client":{"id":"c","token_url":"u"},"token":{"access_token":""}}`)
	f.Add(`{"client":"secret-value"}`)
	f.Fuzz(func(t *testing.T, raw string) {
		c, err := decodeCredentials([]byte(raw))
		if err != nil {
			if !errors.Is(err, errBadCredentials) || (len(raw) > 3 && strings.Contains(err.Error(), raw)) {
				t.Fatalf("error %v", err)
			}
			return
		}
		if c == nil {
			return
		}
		if c.Client.ID == "" || c.Client.TokenURL == "" || c.Token != nil && c.Token.AccessToken == "" {
			t.Fatalf("unusable credentials accepted: %+v", c)
		}
	})
}
