package server

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
)

// GET /v1/hello needs no token and answers the HMAC of the nonce under the
// token: a client checks it before it sends the token anywhere.
func TestHelloProvesTheTokenWithoutSendingIt(t *testing.T) {
	_, hs := newTestServer(t, newTestApp(t))
	nonce := strings.Repeat("ab", HelloNonceLen)
	resp, err := http.Get(hs.URL + "/v1/hello?nonce=" + nonce)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var h Hello
	if err := json.NewDecoder(resp.Body).Decode(&h); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d, %v", resp.StatusCode, err)
	}
	if h.PID != os.Getpid() || h.Proof != HelloProof(testToken, nonce) {
		t.Fatalf("hello %+v", h)
	}
	if h.Proof == HelloProof("another-token-0123456789", nonce) || h.Proof == HelloProof(testToken, strings.Repeat("cd", HelloNonceLen)) {
		t.Fatal("the proof does not depend on the token and the nonce")
	}
	if strings.Contains(h.Proof, testToken) {
		t.Fatal("the token is in the answer")
	}
	for _, bad := range []string{"", "ab", strings.Repeat("zz", HelloNonceLen), strings.Repeat("ab", HelloNonceLen+1)} {
		status, data := getPublic(t, hs.URL+"/v1/hello?nonce="+bad)
		if status != http.StatusUnprocessableEntity || errorCode(t, data) != "invalid_fields" {
			t.Errorf("nonce %q: %d %s", bad, status, data)
		}
	}
}

// A server without a token cannot prove anything.
func TestHelloWithoutATokenConfigured(t *testing.T) {
	a := newTestApp(t)
	s := New(a, nil)
	hs := newHTTPTest(t, s)
	status, data := getPublic(t, hs+"/v1/hello?nonce="+strings.Repeat("01", HelloNonceLen))
	if status != http.StatusServiceUnavailable || errorCode(t, data) != "no_token" {
		t.Fatalf("%d %s", status, data)
	}
}

func getPublic(t *testing.T, url string) (int, []byte) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, b
}

// newHTTPTest serves s on a loopback port until the test ends.
func newHTTPTest(t *testing.T, s *Server) string {
	t.Helper()
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(func() { s.Close(); hs.Close() })
	return hs.URL
}

func FuzzHelloNonce(f *testing.F) {
	f.Add(strings.Repeat("ab", HelloNonceLen))
	f.Add("xyz")
	f.Fuzz(func(t *testing.T, n string) {
		if validNonce(n) && len(n) != 2*HelloNonceLen {
			t.Fatalf("accepted %q", n)
		}
	})
}
