package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hearth-agent/hearth/internal/app"
	"github.com/hearth-agent/hearth/internal/redact"
	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// A stream that falls behind is dropped at once, without blocking the
// publisher; the others go on.
func TestSlowStreamDropped(t *testing.T) {
	b := newBus()
	slow, fast, other := b.subscribe(1), b.subscribe(0), b.subscribe(2)
	var batch []*message
	for i := range streamBuffer + 1 {
		b.publish(EvContentDelta, Event{SessionID: 1, Text: "x"})
		if i < streamBuffer {
			<-fast.wake // the fast one keeps up
			if batch, _, _ = fast.take(batch); len(batch) != 1 {
				t.Fatalf("the fast stream took %d events, want 1", len(batch))
			}
		}
	}
	msgs, ended, overflow := slow.take(nil)
	if !ended || !overflow {
		t.Fatalf("the slow stream was not dropped: ended %v, overflowed %v", ended, overflow)
	}
	if len(msgs) != streamBuffer {
		t.Fatalf("slow stream had %d events, want %d", len(msgs), streamBuffer)
	}
	if msgs, ended, overflow := fast.take(nil); ended || overflow || len(msgs) != 1 {
		t.Fatalf("the fast stream: ended %v, overflowed %v, %d waiting", ended, overflow, len(msgs))
	}
	if msgs, ended, _ := other.take(nil); len(msgs) != 0 || ended {
		t.Fatalf("another session's stream got %d events, ended %v", len(msgs), ended)
	}
	b.publish(EvContentDelta, Event{SessionID: 1, Text: "after"})
	if msgs, _, _ := slow.take(nil); len(msgs) != 0 {
		t.Fatal("a dropped stream got an event")
	}
	b.unsubscribe(slow) // after the bus dropped it: nothing to do
	b.close()
	<-other.wake
	if _, ended, overflow := other.take(nil); !ended || overflow {
		t.Fatalf("close left a stream open (ended %v) or called it overflowed (%v)", ended, overflow)
	}
	if b.subscribe(0) != nil {
		t.Fatal("subscribed after close")
	}
	if len(b.all) != 0 || len(b.bySession) != 0 {
		t.Fatalf("the closed bus keeps %d global and %d sessions' streams", len(b.all), len(b.bySession))
	}
}

// A stream that ends leaves no trace on the bus: a thousand sessions that
// came and went cost nothing.
func TestUnsubscribeForgetsTheSession(t *testing.T) {
	b := newBus()
	a1, a2, g := b.subscribe(5), b.subscribe(5), b.subscribe(0)
	b.unsubscribe(a1)
	if len(b.bySession[5]) != 1 {
		t.Fatalf("session 5 has %d streams, want 1", len(b.bySession[5]))
	}
	b.publish(EvTurnStarted, Event{SessionID: 5})
	if msgs, _, _ := a2.take(nil); len(msgs) != 1 {
		t.Fatalf("the stream left got %d events, want 1", len(msgs))
	}
	if msgs, ended, _ := a1.take(nil); len(msgs) != 0 || !ended {
		t.Fatalf("the stream unsubscribed got %d events, ended %v", len(msgs), ended)
	}
	b.unsubscribe(a2)
	b.unsubscribe(g)
	if len(b.bySession) != 0 || len(b.all) != 0 {
		t.Fatalf("the bus keeps %d sessions and %d global streams", len(b.bySession), len(b.all))
	}
}

// The events' ids increase, and the data is one line.
func TestWriteSSE(t *testing.T) {
	b := newBus()
	st := b.subscribe(0)
	b.publish(EvContentDelta, Event{SessionID: 3, Text: "two\nlines"})
	b.publish(EvTurnFinished, Event{SessionID: 3})
	rec := &recorder{h: http.Header{}}
	msgs, _, _ := st.take(nil)
	for _, m := range msgs {
		if err := writeSSE(rec, m); err != nil {
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
			case <-st.wake:
				st.take(nil)
			default:
			}
		}
	}
	bus.close()
}

// rotatingServer serves a fresh app with a token that rotate replaces, as
// daemon.TokenSource does when `hearth token --rotate` runs.
func rotatingServer(t *testing.T, a *app.App) (s *Server, hs *httptest.Server, rotate func()) {
	t.Helper()
	var mu sync.Mutex
	current := testToken
	s = New(a, &Options{TokenFunc: func() string { mu.Lock(); defer mu.Unlock(); return current }})
	hs = httptest.NewServer(s.Handler())
	t.Cleanup(func() { s.Close(); hs.Close() })
	return s, hs, func() { mu.Lock(); current = "new-token-9876543210"; mu.Unlock() }
}

// A stream opened with a token that is then rotated out receives no
// further event: the next one ends it with a final error event instead.
func TestRotationEndsOpenStreamsAtTheNextEvent(t *testing.T) {
	s, hs, rotate := rotatingServer(t, newTestApp(t))
	stream := openSSE(t, hs, "/v1/events")
	c := s.coreState()
	c.bus.publish(EvTurnStarted, Event{SessionID: 7, Text: "before the rotation"})
	got := []sseEvent{<-stream.events}
	rotate()
	c.bus.publish(EvTurnStarted, Event{SessionID: 7, Text: "a private message after the rotation"})
	for ev := range stream.events {
		got = append(got, ev)
	}
	if len(got) != 2 || got[0].data.Text != "before the rotation" || got[1].name != EvError ||
		!strings.Contains(got[1].data.Message, "token changed") {
		t.Fatalf("events %+v", got)
	}
}

// An idle stream is checked at each keep-alive: a rotation ends it even
// when no event comes.
func TestRotationEndsIdleStreamsAtTheKeepAlive(t *testing.T) {
	old := eventsKeepAlive
	eventsKeepAlive = time.Millisecond
	t.Cleanup(func() { eventsKeepAlive = old })
	_, hs, rotate := rotatingServer(t, newTestApp(t))
	stream := openSSE(t, hs, "/v1/events")
	rotate()
	var got []sseEvent
	for ev := range stream.events {
		got = append(got, ev)
	}
	if len(got) != 1 || got[0].name != EvError || !strings.Contains(got[0].data.Message, "hearth token --rotate") {
		t.Fatalf("events %+v", got)
	}
}

// A secret the app knows (the API token, which hearth serve adds to the
// set) is masked in a tool's result and arguments, in the events and in
// the turn's trace.
func TestToolResultWithTheTokenIsMasked(t *testing.T) {
	const tok = "api-token-Zq3xW9vB7nM2kL5pR8tY"
	c := newChat(t,
		llmtest.Reply{ToolCalls: []llmtest.Call{{Name: "time__now", Arguments: `{"zone":"` + tok + `"}`}}},
		llmtest.Reply{Text: "done"})
	c.a.Sources.Secrets().Add(tok)
	sess := call[Session](t, c.hs, "POST", "/v1/sessions", nil, 201)
	path := "/v1/sessions/" + itoa(sess.ID)
	stream := openSSE(t, c.hs, path+"/events")
	call[Answer](t, c.hs, "POST", path+"/messages", SendMessage{Text: "what time is it", Wait: true}, 200)
	evs := stream.until(t, EvTurnFinished)
	var sawResult bool
	for _, ev := range evs {
		b, _ := json.Marshal(ev.data)
		if strings.Contains(string(b), tok) || strings.Contains(string(b), tok[:redact.GramLen]) {
			t.Fatalf("event %s shows the token: %s", ev.name, b)
		}
		sawResult = sawResult || ev.name == EvToolFinished
	}
	if !sawResult {
		t.Fatalf("no tool result: %v", names(evs))
	}
	// The tool's result did hold the token (the model, which asked, gets it).
	if reqs := c.llm.Requests(); len(reqs) != 2 || !strings.Contains(fmt.Sprint(reqs[1].Messages), tok) {
		t.Fatalf("the tool result did not hold the token: %+v", reqs)
	}
	tr, err := c.a.Store.Trace(context.Background(), evs[len(evs)-1].data.TraceID)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(tr); strings.Contains(string(b), tok[:redact.GramLen]) {
		t.Fatalf("the trace shows the token: %s", b)
	}
}
