package remote

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// A stream that breaks is opened again once, with Last-Event-ID; the
// resumption is announced, since the daemon replays nothing; a second
// break ends it with ErrStreamLost. An event without an id (the daemon's
// "fell behind" notice) counts as a break.
func TestFollowResumesOnce(t *testing.T) {
	var (
		mu      sync.Mutex
		lastIDs []string
	)
	bodies := []string{
		"id: 1\nevent: content.delta\ndata: {\"text\":\"a\"}\n\n",
		"id: 5\nevent: content.delta\ndata: {\"text\":\"b\"}\n\nevent: error\ndata: {\"message\":\"fell behind\"}\n\n",
		"id: 9\nevent: content.delta\ndata: {\"text\":\"never\"}\n\n",
	}
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer tok" {
			http.Error(w, "no", http.StatusUnauthorized)
			return
		}
		mu.Lock()
		n := len(lastIDs)
		lastIDs = append(lastIDs, r.Header.Get("Last-Event-ID"))
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, bodies[n])
	}))
	defer hs.Close()
	a := New(hs.URL, "tok", hs.Client())
	ctx := context.Background()
	resp, err := a.subscribe(ctx, "/v1/events", "")
	if err != nil {
		t.Fatal(err)
	}
	out := make(chan item)
	go a.follow(ctx, "/v1/events", resp, out, nil)
	var got []string
	var last error
	for it := range out {
		switch {
		case it.err != nil:
			last = it.err
		case it.resumed:
			got = append(got, "resumed")
		default:
			got = append(got, it.ev.ID+":"+it.ev.Data)
		}
	}
	want := `1:{"text":"a"} resumed 5:{"text":"b"}`
	if strings.Join(got, " ") != want {
		t.Fatalf("got  %s\nwant %s", strings.Join(got, " "), want)
	}
	if !errors.Is(last, ErrStreamLost) || !strings.Contains(last.Error(), "fell behind") {
		t.Fatalf("ended with %v", last)
	}
	if strings.Join(lastIDs, ",") != ",1" {
		t.Fatalf("Last-Event-ID sent: %q", lastIDs)
	}
}

// A stream without ids is not resumed: the break is reported at once.
func TestFollowWithoutIDsReportsTheDrop(t *testing.T) {
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "event: content.delta\ndata: {}\n\n")
	}))
	defer hs.Close()
	a := New(hs.URL, "tok", hs.Client())
	resp, err := a.subscribe(context.Background(), "/s", "")
	if err != nil {
		t.Fatal(err)
	}
	out := make(chan item)
	go a.follow(context.Background(), "/s", resp, out, nil)
	var n int
	var last error
	for it := range out {
		if it.err != nil {
			last = it.err
		} else {
			n++
		}
	}
	if n != 1 || !errors.Is(last, ErrStreamLost) {
		t.Fatalf("%d events, ended with %v", n, last)
	}
}

func TestSubscribeRefusals(t *testing.T) {
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/html" {
			w.Header().Set("Content-Type", "text/html")
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprint(w, `{"error":{"message":"bad token","type":"invalid_request_error","code":"unauthorized"}}`)
	}))
	defer hs.Close()
	a := New(hs.URL+"/", "tok", hs.Client())
	var apiErr *APIError
	if _, err := a.subscribe(context.Background(), "/v1/events", ""); !errors.As(err, &apiErr) ||
		apiErr.Status != 401 || apiErr.Code != "unauthorized" || err.Error() != "hearth daemon: bad token" {
		t.Fatalf("got %v", err)
	}
	if _, err := a.subscribe(context.Background(), "/html", ""); err == nil || !strings.Contains(err.Error(), "not an event stream") {
		t.Fatalf("got %v", err)
	}
	hs.Close()
	if _, err := a.subscribe(context.Background(), "/v1/events", ""); !errors.Is(err, ErrDaemonGone) || strings.Contains(err.Error(), "tok") {
		t.Fatalf("got %v", err)
	}
}
