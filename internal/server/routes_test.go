package server

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestClientTokenReachesOnlyTheOpenAIRoutes walks the whole route table:
// the client token gets 401 on every route not marked client (sessions,
// approvals, the CLI, providers, settings...), and gets past the token
// check on the three OpenAI-compatible ones; the owner's token gets past
// it everywhere.
func TestClientTokenReachesOnlyTheOpenAIRoutes(t *testing.T) {
	cli := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("the CLI ran for %s", r.Header.Get("Authorization"))
	})
	s := New(newTestApp(t), &Options{Token: testToken, CLI: cli,
		ClientTokenFunc: func() string { return testClientToken }})
	defer s.Close()
	clients := map[string]bool{}
	for _, rt := range s.routes() {
		if rt.public {
			continue
		}
		key := rt.method + " " + rt.path
		if rt.client {
			clients[key] = true
		}
		path := pathParam.ReplaceAllString(rt.path, "1")
		for _, tc := range []struct {
			token string
			pass  bool
		}{
			{testClientToken, rt.client},
			{"", false},
			{testToken + "x", false},
		} {
			rec := httptest.NewRecorder()
			req := httptest.NewRequest(rt.method, "http://127.0.0.1"+path, strings.NewReader("{}"))
			if rt.stream {
				// A stream let in ends at once instead of staying open.
				ctx, cancel := context.WithCancel(req.Context())
				cancel()
				req = req.WithContext(ctx)
			}
			req.Header.Set("Authorization", "Bearer "+tc.token)
			s.Handler().ServeHTTP(rec, req)
			if got := rec.Code != http.StatusUnauthorized; got != tc.pass {
				t.Errorf("%s with token %q: status %d, want past the token check: %v", key, tc.token, rec.Code, tc.pass)
			}
		}
	}
	want := []string{"GET /v1/models", "GET /v1/models/{id}", "POST /v1/chat/completions"}
	if len(clients) != len(want) {
		t.Errorf("client routes %v, want %v", clients, want)
	}
	for _, k := range want {
		if !clients[k] {
			t.Errorf("%s is not a client route", k)
		}
	}
}

// Without a client token (ClientTokenFunc unset, or its file not made
// yet) an empty bearer reaches nothing, client routes included.
func TestNoClientTokenLetsNoClientIn(t *testing.T) {
	for name, fn := range map[string]func() string{"unset": nil, "empty": func() string { return "" }} {
		s := New(newTestApp(t), &Options{Token: testToken, ClientTokenFunc: fn})
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("GET", "http://127.0.0.1/v1/models", nil)
		req.Header.Set("Authorization", "Bearer ")
		s.Handler().ServeHTTP(rec, req)
		if rec.Code != http.StatusUnauthorized {
			t.Errorf("%s: status %d, want 401", name, rec.Code)
		}
	}
}
