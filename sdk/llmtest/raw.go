package llmtest

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// RawServer is a loopback server whose answers a test writes itself, for
// what a scripted Reply cannot say: a provider that stalls, sends only
// keep-alive comments, an HTML error page, a cut stream. It answers the
// i-th request with the i-th handler (the last one repeats) and counts
// the requests.
type RawServer struct {
	// URL is the base URL to configure, ending in /v1.
	URL string

	mu       sync.Mutex
	handlers []http.HandlerFunc
	n        int
}

// NewRawServer starts a RawServer, closed when the test ends.
func NewRawServer(t testing.TB, handlers ...http.HandlerFunc) *RawServer {
	t.Helper()
	s := &RawServer{handlers: handlers}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		s.mu.Lock()
		h := s.handlers[min(s.n, len(s.handlers)-1)]
		s.n++
		s.mu.Unlock()
		h(w, r)
	}))
	t.Cleanup(srv.Close)
	s.URL = srv.URL + "/v1"
	return s
}

// Requests returns how many requests arrived.
func (s *RawServer) Requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n
}

// SSE writes events as server-sent events ("data: <event>") and flushes.
func SSE(w http.ResponseWriter, events ...string) {
	w.Header().Set("Content-Type", "text/event-stream")
	for _, e := range events {
		fmt.Fprintf(w, "data: %s\n\n", e)
	}
	w.(http.Flusher).Flush()
}
