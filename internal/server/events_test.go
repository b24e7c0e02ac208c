package server

import (
	"net/http"
	"regexp"
	"testing"
)

// A stream that falls behind is dropped at once, without blocking the
// publisher; the others go on.
func TestSlowStreamDropped(t *testing.T) {
	b := newBus()
	slow, fast, other := b.subscribe(1), b.subscribe(0), b.subscribe(2)
	for i := range streamBuffer + 1 {
		b.publish(EvContentDelta, Event{SessionID: 1, Text: "x"})
		if i < streamBuffer {
			<-fast.ch // the fast one keeps up
		}
	}
	if !b.overflowed(slow) {
		t.Fatal("the slow stream was not dropped")
	}
	n := 0
	for range slow.ch {
		n++
	}
	if n != streamBuffer {
		t.Fatalf("slow stream had %d events, want %d", n, streamBuffer)
	}
	if b.overflowed(fast) || len(fast.ch) != 1 {
		t.Fatalf("the fast stream: overflowed %v, %d waiting", b.overflowed(fast), len(fast.ch))
	}
	if len(other.ch) != 0 {
		t.Fatal("another session's stream got events")
	}
	b.unsubscribe(slow) // after the bus dropped it: nothing to do
	b.close()
	if _, ok := <-other.ch; ok {
		t.Fatal("close left a stream open")
	}
	if b.subscribe(0) != nil {
		t.Fatal("subscribed after close")
	}
}

// The events' ids increase, and the data is one line.
func TestWriteSSE(t *testing.T) {
	b := newBus()
	st := b.subscribe(0)
	b.publish(EvContentDelta, Event{SessionID: 3, Text: "two\nlines"})
	b.publish(EvTurnFinished, Event{SessionID: 3})
	rec := &recorder{h: http.Header{}}
	for range 2 {
		if err := writeSSE(rec, <-st.ch); err != nil {
			t.Fatal(err)
		}
	}
	want := "id: 1\nevent: content.delta\ndata: {\"session_id\":3,\"text\":\"two\\nlines\"}\n\n" +
		"id: 2\nevent: turn.finished\ndata: {\"session_id\":3}\n\n"
	if rec.body != want {
		t.Fatalf("wrote\n%q\nwant\n%q", rec.body, want)
	}
}

type recorder struct {
	h    http.Header
	body string
}

func (r *recorder) Header() http.Header         { return r.h }
func (r *recorder) WriteHeader(int)             {}
func (r *recorder) Write(p []byte) (int, error) { r.body += string(p); return len(p), nil }

// Close ends the open streams: a graceful shutdown does not wait for them.
func TestCloseEndsStreams(t *testing.T) {
	c := newChat(t)
	stream := openSSE(t, c.hs, "/v1/events")
	c.s.Close()
	for range stream.events {
	}
	status, data := do(t, c.hs, "GET", "/v1/events", nil)
	if status != http.StatusServiceUnavailable || errorCode(t, data) != "shutting_down" {
		t.Fatalf("after close: %d %s", status, data)
	}
}

// Every route of this area refuses a request without the token.
func TestCoreRoutesNeedTheToken(t *testing.T) {
	s, hs := newTestServer(t, newTestApp(t))
	param := regexp.MustCompile(`\{[^}]+\}`)
	for _, rt := range append(s.sessionRoutes(), s.approvalRoutes()...) {
		req, _ := http.NewRequest(rt.method, hs.URL+param.ReplaceAllString(rt.path, "1"), nil)
		req.Header.Set("Authorization", "Bearer wrong")
		resp, err := hs.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("%s %s: status %d, want 401", rt.method, rt.path, resp.StatusCode)
		}
	}
}

// BenchmarkPublish is one content delta handed to 200 session streams and
// a global one, each drained as a client would.
func BenchmarkPublish(b *testing.B) {
	bus := newBus()
	var streams []*stream
	for i := range 200 {
		streams = append(streams, bus.subscribe(int64(i+1)))
	}
	streams = append(streams, bus.subscribe(0))
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		bus.publish(EvContentDelta, Event{SessionID: int64(i%200 + 1), Text: "a piece of the answer"})
		for _, st := range streams {
			select {
			case <-st.ch:
			default:
			}
		}
	}
	bus.close()
}
