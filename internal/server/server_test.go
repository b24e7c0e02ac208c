package server

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/internal/app"
)

// newTestApp opens a Hearth on a fresh data directory with no provider and
// no process plugins.
func newTestApp(t *testing.T) *app.App {
	t.Helper()
	a, err := app.Open(context.Background(), &app.Options{
		DataDir: t.TempDir(), Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	return a
}

const (
	testToken       = "test-token-0123456789"   // the owner's
	testClientToken = "client-token-0123456789" // an OpenAI client's
)

// newTestServer serves a's API on a real loopback port, with testToken
// and, for the OpenAI-compatible routes, testClientToken.
func newTestServer(t *testing.T, a *app.App) (*Server, *httptest.Server) {
	t.Helper()
	s := New(a, &Options{Token: testToken, ClientTokenFunc: func() string { return testClientToken }})
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(func() { s.Close(); hs.Close() })
	return s, hs
}

func TestAPINeedsTheToken(t *testing.T) {
	_, hs := newTestServer(t, newTestApp(t))
	for _, tc := range []struct {
		name, auth string
		want       int
	}{
		{"none", "", http.StatusUnauthorized},
		{"wrong", "Bearer nope", http.StatusUnauthorized},
		{"not bearer", "Basic " + testToken, http.StatusUnauthorized},
		{"prefix of it", "Bearer " + testToken[:5], http.StatusUnauthorized},
		{"right", "Bearer " + testToken, http.StatusOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest("GET", hs.URL+"/v1/health", nil)
			if tc.auth != "" {
				req.Header.Set("Authorization", tc.auth)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.want {
				t.Fatalf("status %d, want %d", resp.StatusCode, tc.want)
			}
		})
	}
}

func TestNoTokenConfiguredRefusesEverything(t *testing.T) {
	s := New(newTestApp(t), nil)
	rec := httptest.NewRecorder()
	req := httptest.NewRequest("GET", "http://127.0.0.1/v1/health", nil)
	req.Header.Set("Authorization", "Bearer ")
	s.Handler().ServeHTTP(rec, req)
	if rec.Code != http.StatusUnauthorized {
		t.Fatalf("status %d, want 401", rec.Code)
	}
}

func TestForeignHostRefused(t *testing.T) {
	s := New(newTestApp(t), &Options{Token: testToken, Hosts: []string{"hearth.example"}})
	for host, want := range map[string]int{
		"127.0.0.1:8080":      http.StatusOK,
		"[::1]:8080":          http.StatusOK,
		"localhost:8080":      http.StatusOK,
		"hearth.example:443":  http.StatusOK,
		"evil.example:8080":   http.StatusMisdirectedRequest,
		"127.0.0.1.evil.test": http.StatusMisdirectedRequest,
	} {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("GET", "/v1/health", nil)
		req.Host = host
		req.Header.Set("Authorization", "Bearer "+testToken)
		s.Handler().ServeHTTP(rec, req)
		if rec.Code != want {
			t.Errorf("Host %s: status %d, want %d", host, rec.Code, want)
		}
	}
}

func TestCrossOriginWriteRefused(t *testing.T) {
	s := New(newTestApp(t), &Options{Token: testToken})
	hit := false
	h := s.authorized(func(w http.ResponseWriter, r *http.Request) { hit = true }, false)
	for origin, want := range map[string]bool{"": true, "http://127.0.0.1:9": true, "http://evil.example": false, "null": false} {
		hit = false
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("POST", "http://127.0.0.1:9/v1/x", strings.NewReader("{}"))
		req.Header.Set("Authorization", "Bearer "+testToken)
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		h(rec, req)
		if hit != want {
			t.Errorf("Origin %q: handler ran %v, want %v (status %d)", origin, hit, want, rec.Code)
		}
	}
}

func TestOversizedBodyRefused(t *testing.T) {
	s := New(newTestApp(t), &Options{Token: testToken, MaxBody: 64})
	h := s.authorized(func(w http.ResponseWriter, r *http.Request) {
		var v map[string]any
		if decodeJSON(w, r, &v) {
			writeJSON(w, http.StatusOK, v)
		}
	}, false)
	for body, want := range map[string]int{
		`{"a":1}`: http.StatusOK,
		`{"a":"` + strings.Repeat("x", 100) + `"}`: http.StatusRequestEntityTooLarge,
		`{"a":1}{"b":2}`: http.StatusBadRequest,
		`{"a":`:          http.StatusBadRequest,
	} {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("POST", "/v1/x", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+testToken)
		h(rec, req)
		if rec.Code != want {
			t.Errorf("body %.20q: status %d, want %d", body, rec.Code, want)
		}
	}
}
