package server

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
)

// A token from TokenFunc is asked at each request: rotating it takes
// effect at once, and an empty one refuses everything.
func TestTokenFuncIsAskedEachRequest(t *testing.T) {
	var tok atomic.Value
	tok.Store("first-token-0123456789")
	s := New(newTestApp(t), &Options{Token: "ignored", TokenFunc: func() string { return tok.Load().(string) }})
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(func() { s.Close(); hs.Close() })
	status := func(token string) int {
		req, _ := http.NewRequest("GET", hs.URL+"/v1/health", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for _, step := range []struct {
		set, send string
		want      int
	}{
		{"", "first-token-0123456789", http.StatusOK},
		{"", "ignored", http.StatusUnauthorized},
		{"second-token-0123456789", "first-token-0123456789", http.StatusUnauthorized},
		{"", "second-token-0123456789", http.StatusOK},
		{"-", "", http.StatusUnauthorized},
	} {
		switch step.set {
		case "":
		case "-":
			tok.Store("")
		default:
			tok.Store(step.set)
		}
		if got := status(step.send); got != step.want {
			t.Fatalf("token %q sent: status %d, want %d", step.send, got, step.want)
		}
	}
}
