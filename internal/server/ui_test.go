package server

import (
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/hearth-agent/hearth/internal/app"
)

var testUI = fstest.MapFS{
	"index.html":         {Data: []byte("<!doctype html><title>Hearth</title>")},
	"favicon.svg":        {Data: []byte("<svg/>")},
	"assets/app-abc.js":  {Data: []byte("console.log(1);" + strings.Repeat(" ", 4000))},
	"assets/app-abc.css": {Data: []byte("body{}")},
}

func uiGet(t *testing.T, h http.Handler, path string, hdr ...string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest("GET", "http://127.0.0.1:8420"+path, nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func TestUIServesFilesAndFallsBackToIndex(t *testing.T) {
	h := New(newTestApp(t), &Options{Token: testToken, UI: testUI}).Handler()
	for _, tc := range []struct {
		path, wantType, wantBody, wantCache string
		want                                int
	}{
		{"/", "text/html", "<title>Hearth", "no-cache", 200},
		{"/index.html", "text/html", "<title>Hearth", "no-cache", 200},
		{"/chat/12", "text/html", "<title>Hearth", "no-cache", 200},
		{"/settings", "text/html", "<title>Hearth", "no-cache", 200},
		{"/favicon.svg", "image/svg+xml", "<svg/>", "no-cache", 200},
		{"/assets/app-abc.css", "text/css", "body{}", "immutable", 200},
		{"/assets/app-old.js", "", "", "", 404},
		{"/robots.txt", "", "", "", 404},
		{"/v1/no-such-route", "application/json", `"not_found"`, "no-store", 404},
	} {
		rec := uiGet(t, h, tc.path)
		if rec.Code != tc.want {
			t.Errorf("%s: status %d, want %d", tc.path, rec.Code, tc.want)
			continue
		}
		if rec.Code != 200 && tc.wantType == "" {
			continue
		}
		if got := rec.Header().Get("Content-Type"); !strings.HasPrefix(got, tc.wantType) {
			t.Errorf("%s: Content-Type %q, want %s", tc.path, got, tc.wantType)
		}
		if !strings.Contains(rec.Body.String(), tc.wantBody) {
			t.Errorf("%s: body %q lacks %q", tc.path, rec.Body.String(), tc.wantBody)
		}
		if got := rec.Header().Get("Cache-Control"); !strings.Contains(got, tc.wantCache) {
			t.Errorf("%s: Cache-Control %q, want %s", tc.path, got, tc.wantCache)
		}
	}
}

func TestUISecurityHeaders(t *testing.T) {
	h := New(newTestApp(t), &Options{Token: testToken, UI: testUI}).Handler()
	rec := uiGet(t, h, "/chat")
	for k, want := range map[string]string{
		"X-Content-Type-Options": "nosniff",
		"Referrer-Policy":        "no-referrer",
		"X-Frame-Options":        "DENY",
	} {
		if got := rec.Header().Get(k); got != want {
			t.Errorf("%s: %q, want %q", k, got, want)
		}
	}
	csp := rec.Header().Get("Content-Security-Policy")
	for _, want := range []string{"script-src 'self'", "connect-src 'self'", "frame-ancestors 'none'", "object-src 'none'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("CSP %q lacks %q", csp, want)
		}
	}
	if strings.Contains(csp, "unsafe-inline") || strings.Contains(csp, "unsafe-eval") {
		t.Errorf("CSP %q allows inline or eval", csp)
	}
}

func TestUIGzipAndRevalidation(t *testing.T) {
	h := New(newTestApp(t), &Options{Token: testToken, UI: testUI}).Handler()
	rec := uiGet(t, h, "/assets/app-abc.js", "Accept-Encoding", "br, gzip")
	if rec.Header().Get("Content-Encoding") != "gzip" {
		t.Fatalf("Content-Encoding %q, want gzip", rec.Header().Get("Content-Encoding"))
	}
	zr, err := gzip.NewReader(rec.Body)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(zr)
	if !strings.HasPrefix(string(b), "console.log(1);") {
		t.Fatalf("unzipped %.20q", b)
	}
	if rec := uiGet(t, h, "/assets/app-abc.js", "Accept-Encoding", "gzip;q=0"); rec.Header().Get("Content-Encoding") != "" {
		t.Fatal("gzip sent to a client that refused it")
	}
	etag := uiGet(t, h, "/").Header().Get("ETag")
	if etag == "" {
		t.Fatal("no ETag on index.html")
	}
	if rec := uiGet(t, h, "/", "If-None-Match", etag); rec.Code != http.StatusNotModified {
		t.Fatalf("If-None-Match: status %d, want 304", rec.Code)
	}
}

// With the UI's catch-all at /, an unknown /v1 path still answers a JSON
// 404 for every method (not the catch-all's 405), a known path with the
// wrong method a 405 naming its methods, and a write to a UI page a 405.
func TestUIUnknownAPIPaths(t *testing.T) {
	h := New(newTestApp(t), &Options{Token: testToken, UI: testUI}).Handler()
	for _, tc := range []struct {
		method, path string
		want         int
		allow        string
	}{
		{"GET", "/v1/no-such-route", 404, ""},
		{"POST", "/v1/no-such-route", 404, ""},
		{"DELETE", "/v1/sessions/1/no-such", 404, ""},
		{"PUT", "/v1", 404, ""},
		{"OPTIONS", "/v1/nothing", 404, ""},
		{"DELETE", "/v1/health", 405, "GET, HEAD"},
		{"PUT", "/v1/sessions", 405, "GET, HEAD, POST"},
		{"POST", "/chat", 405, "GET, HEAD"},
	} {
		req := httptest.NewRequest(tc.method, "http://127.0.0.1:8420"+tc.path, strings.NewReader("{}"))
		req.Header.Set("Authorization", "Bearer "+testToken)
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != tc.want {
			t.Errorf("%s %s: status %d, want %d (%s)", tc.method, tc.path, rec.Code, tc.want, rec.Body)
			continue
		}
		if got := rec.Header().Get("Content-Type"); !strings.HasPrefix(got, "application/json") {
			t.Errorf("%s %s: Content-Type %q, want JSON", tc.method, tc.path, got)
		}
		if got := rec.Header().Get("Allow"); got != tc.allow {
			t.Errorf("%s %s: Allow %q, want %q", tc.method, tc.path, got, tc.allow)
		}
	}
}

func TestUIFilesNeedNoTokenButAPIDoes(t *testing.T) {
	h := New(newTestApp(t), &Options{Token: testToken, UI: testUI}).Handler()
	if rec := uiGet(t, h, "/"); rec.Code != 200 {
		t.Fatalf("/ without a token: %d", rec.Code)
	}
	if rec := uiGet(t, h, "/v1/health"); rec.Code != http.StatusUnauthorized {
		t.Fatalf("/v1/health without a token: %d, want 401", rec.Code)
	}
}

func TestNoUIServesNoPage(t *testing.T) {
	h := New(newTestApp(t), &Options{Token: testToken}).Handler()
	if rec := uiGet(t, h, "/"); rec.Code != http.StatusNotFound {
		t.Fatalf("/ without a UI: %d, want 404", rec.Code)
	}
}

// uiTestApp is newTestApp for a fuzz target (any testing.TB).
func uiTestApp(tb testing.TB) *app.App {
	tb.Helper()
	a, err := app.Open(context.Background(), &app.Options{
		DataDir: tb.TempDir(), Getenv: func(string) string { return "" }})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { a.Close() })
	return a
}

func FuzzUIPath(f *testing.F) {
	s := New(uiTestApp(f), &Options{Token: testToken, UI: testUI})
	h := s.Handler()
	for _, p := range []string{"/", "/chat/1", "/assets/app-abc.js", "/%2e%2e/x", "/v1/x", "//x", "/a.b/c"} {
		f.Add(p, "gzip")
	}
	f.Fuzz(func(t *testing.T, p, enc string) {
		req, err := http.NewRequest("GET", "http://127.0.0.1:8420/", nil)
		if err != nil {
			return
		}
		req.URL.Path = "/" + strings.TrimPrefix(p, "/")
		req.Header.Set("Accept-Encoding", enc)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code == 200 && rec.Header().Get("Content-Security-Policy") == "" {
			t.Fatalf("%q: 200 without a CSP", p)
		}
	})
}
