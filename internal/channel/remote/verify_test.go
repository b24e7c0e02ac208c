package remote_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/hearth-agent/hearth/internal/channel/remote"
	hd "github.com/hearth-agent/hearth/internal/daemon"
	"github.com/hearth-agent/hearth/internal/kernel"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// A terminal proves the daemon before its first request, and again once a
// connection failed: when the daemon has gone and another program holds
// its port, that program never gets the token.
func TestTokenNotSentToWhoeverHoldsThePortNext(t *testing.T) {
	d := newDaemon(t, []llmtest.Reply{{Text: "你好！"}})
	addr := d.hs.Listener.Addr().String()
	c := &hd.Client{BaseURL: d.hs.URL, Token: token, HTTP: &http.Client{}}
	ag := remote.New(d.hs.URL, token, c.HTTP).VerifiedBy(c)
	defer ag.Close()
	in := kernel.Input{Injection: sdk.Injection{Channel: "terminal", ChatID: "x", Text: "hi"}}
	if out := ag.Ask(context.Background(), in); out.Err != nil || out.Text != "你好！" {
		t.Fatalf("through the daemon: %+v", out)
	}

	d.hs.CloseClientConnections()
	d.hs.Close() // the daemon stops
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("taking the daemon's port: %v", err)
	}
	var mu sync.Mutex
	var seen []string
	squatter := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Method+" "+r.URL.Path+" "+r.Header.Get("Authorization"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"pid":1,"proof":"00"}`)) // it cannot know the proof
	})}
	go squatter.Serve(ln)
	defer squatter.Close()

	out := ag.Ask(context.Background(), in)
	if !errors.Is(out.Err, hd.ErrUnproven) {
		t.Errorf("asking the squatter: %+v, want ErrUnproven", out)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, s := range seen {
		if strings.Contains(s, token) {
			t.Fatalf("the squatter got the token: %q", s)
		}
	}
	if len(seen) == 0 {
		t.Fatal("the squatter was never asked (so nothing was proven)")
	}
}
