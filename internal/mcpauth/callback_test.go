package mcpauth

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// checkCallbackPage checks a page of the loopback listener: plain text
// the browser may not sniff or keep, and nothing of the request in it.
func checkCallbackPage(t *testing.T, h http.Header, body string) {
	t.Helper()
	for k, want := range map[string]string{
		"Content-Type":           "text/plain; charset=utf-8",
		"X-Content-Type-Options": "nosniff",
		"Cache-Control":          "no-store",
	} {
		if got := h.Get(k); got != want {
			t.Errorf("%s: %q; want %q", k, got, want)
		}
	}
	for _, s := range []string{"<", "evil", "forged", "access_denied", "GOOD"} {
		if strings.Contains(body, s) {
			t.Errorf("the page repeats %q from the request: %q", s, body)
		}
	}
}

// waiting starts cb.await for state GOOD and returns once cb waits, with
// the channel its result comes on.
func waiting(t *testing.T, cb *callback) <-chan callbackResult {
	t.Helper()
	opened := make(chan struct{})
	done := make(chan callbackResult, 1)
	go func() {
		res, err := cb.await(context.Background(), "srv", "https://as.example/authorize?state=GOOD", LoginOptions{
			Out:  io.Discard,
			Open: func(context.Context, string) error { close(opened); return nil },
		})
		done <- callbackResult{res, err}
	}()
	<-opened // await sets the state before it opens the address
	return done
}

func get(t *testing.T, cb *callback, target string) *httptest.ResponseRecorder {
	t.Helper()
	w := httptest.NewRecorder()
	cb.ServeHTTP(w, httptest.NewRequest(http.MethodGet, target, nil))
	checkCallbackPage(t, w.Header(), w.Body.String())
	return w
}

// Anyone who reaches 127.0.0.1:PORT (another local user, a web page's
// no-cors GET) may request /callback: a request that is not this login's
// answer gets 400 and the login goes on waiting for the real one. (The
// security review's finding: any request ended the login.)
func TestCallbackIgnoresForeignRequests(t *testing.T) {
	cb := &callback{result: make(chan callbackResult, 1)}
	// Before the login waits: nothing is queued.
	if w := get(t, cb, "/callback?state=GOOD&code=early"); w.Code != http.StatusBadRequest {
		t.Errorf("before await: %d; want 400", w.Code)
	}
	done := waiting(t, cb)
	for _, target := range []string{
		"/callback?state=forged&code=evil",
		"/callback?state=forged&error=access_denied&error_description=%3Cscript%3Eevil",
		"/callback?code=evil",
		"/callback",
		"/callback?state=GOOD", // neither a code nor an error
	} {
		if w := get(t, cb, target); w.Code != http.StatusBadRequest {
			t.Errorf("%s: %d; want 400", target, w.Code)
		}
	}
	if w := get(t, cb, "/other?state=GOOD&code=c"); w.Code != http.StatusNotFound {
		t.Errorf("another path: %d; want 404", w.Code)
	}
	if w := get(t, cb, "/callback?state=GOOD&code=c"); w.Code != http.StatusOK {
		t.Errorf("the answer: %d; want 200", w.Code)
	}
	r := <-done
	if r.err != nil || r.res == nil || r.res.Code != "c" {
		t.Fatalf("await = %+v, %v; want code c", r.res, r.err)
	}
}

// The authorization server's refusal, with the login's state, ends the
// login; its description reaches the terminal (printable), not the page.
func TestCallbackRefusalEndsLogin(t *testing.T) {
	cb := &callback{result: make(chan callbackResult, 1)}
	done := waiting(t, cb)
	w := get(t, cb, "/callback?state=GOOD&error=access_denied&error_description=%3Cscript%3Eevil%0d%0a")
	if w.Code != http.StatusBadRequest {
		t.Errorf("refusal: %d; want 400", w.Code)
	}
	r := <-done
	if !errors.Is(r.err, ErrDenied) || r.res != nil {
		t.Fatalf("await = %+v, %v; want ErrDenied", r.res, r.err)
	}
	if msg := r.err.Error(); !strings.Contains(msg, "access_denied: <script>evil") || strings.ContainsAny(msg, "\r\n") {
		t.Errorf("refusal message %q", msg)
	}
}
