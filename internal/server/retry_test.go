package server

import (
	"net/http"
	"testing"

	"github.com/hearth-agent/hearth/internal/llm"
	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// TestModelRetryEvent checks the model.retry event: a 429 with a
// Retry-After is told, with its reason and wait, before the answer.
func TestModelRetryEvent(t *testing.T) {
	c := newChat(t,
		llmtest.Reply{Status: http.StatusTooManyRequests, ErrorMessage: "slow down", RetryAfter: "0.02"},
		llmtest.Reply{Text: "done"})
	sess := call[Session](t, c.hs, "POST", "/v1/sessions", nil, 201)
	path := "/v1/sessions/" + itoa(sess.ID)
	stream := openSSE(t, c.hs, path+"/events")
	call[Answer](t, c.hs, "POST", path+"/messages", SendMessage{Text: "go", Wait: true}, 200)
	evs := stream.until(t, EvTurnFinished)
	var retry *Event
	var names []string
	for _, ev := range evs {
		names = append(names, ev.name)
		if ev.name == EvModelRetry {
			retry = &ev.data
		}
	}
	if retry == nil {
		t.Fatalf("no %s event among %v", EvModelRetry, names)
	}
	want := Retry{Attempt: 1, AfterMS: 20, Reason: "429 rate limited"}
	if retry.Retry == nil || *retry.Retry != want || retry.Text != "429 rate limited, retrying in 20 ms" {
		t.Errorf("model.retry %+v (retry %+v), want %+v", retry, retry.Retry, want)
	}
	if retry.SessionID != sess.ID {
		t.Errorf("session %d, want %d", retry.SessionID, sess.ID)
	}
}

// TestTurnFinishedCost checks turn.finished's usage: the tokens, and the
// cost at the source's price.
func TestTurnFinishedCost(t *testing.T) {
	c := newChat(t, llmtest.Reply{Text: "done", Usage: &llmtest.Usage{Prompt: 1_000_000, Completion: 1_000_000}})
	src, ok := c.a.Sources.Current()
	if !ok {
		t.Fatal("no source")
	}
	src.Price = &llm.Price{Input: 1, Output: 2, Currency: "CNY"}
	c.a.Sources.Put(src)
	sess := call[Session](t, c.hs, "POST", "/v1/sessions", nil, 201)
	path := "/v1/sessions/" + itoa(sess.ID)
	stream := openSSE(t, c.hs, path+"/events")
	call[Answer](t, c.hs, "POST", path+"/messages", SendMessage{Text: "go", Wait: true}, 200)
	evs := stream.until(t, EvTurnFinished)
	u := evs[len(evs)-1].data.Usage
	if u == nil || u.PromptTokens != 1_000_000 || u.Cost == nil || *u.Cost != 3 || u.Currency != "CNY" {
		t.Fatalf("usage %+v", u)
	}
}
