package server

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/hearth-agent/hearth/internal/kernel"
	"github.com/hearth-agent/hearth/internal/llm"
	"github.com/hearth-agent/hearth/internal/store"
	"github.com/hearth-agent/hearth/sdk"
)

// Session is one conversation: a chat of a channel.
type Session struct {
	ID        int64     `json:"id"`
	Channel   string    `json:"channel"`
	ChatID    string    `json:"chat_id"`
	Title     string    `json:"title"` // the start of its first message
	UpdatedAt time.Time `json:"updated_at"`
	Busy      bool      `json:"busy"` // a turn is running or queued
}

// SessionList is GET /v1/sessions's answer, most recent first.
type SessionList struct {
	Sessions []Session `json:"sessions"`
}

// OpenSession is POST /v1/sessions's body; both fields are optional (a
// new web chat).
type OpenSession struct {
	Channel string `json:"channel,omitempty"`
	ChatID  string `json:"chat_id,omitempty"`
}

// ToolCall is a tool call an assistant message made.
type ToolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"` // JSON text
}

// Message is one stored message of a session.
type Message struct {
	Role       string     `json:"role"` // user, assistant or tool
	Content    string     `json:"content"`
	Reasoning  string     `json:"reasoning,omitempty"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"` // the call a tool message answers
	CreatedAt  time.Time  `json:"created_at"`
}

// MessageList is GET /v1/sessions/{id}/messages's answer, oldest first.
type MessageList struct {
	Messages []Message `json:"messages"`
}

// SendMessage is POST /v1/sessions/{id}/messages's body.
type SendMessage struct {
	Text string `json:"text"`
	// Interrupt cancels the session's turn in flight and answers this
	// message first.
	Interrupt bool `json:"interrupt,omitempty"`
	// Wait answers with the final text when the turn ends, instead of
	// 202 at once. The turn goes on if the client leaves.
	Wait bool `json:"wait,omitempty"`
	// Untrusted, when set, says the text is a third party's and names
	// where it came from ("mcp-x prompt review" for the text of POST
	// /v1/prompts/mcp-x/review): the turn is tainted from its start, so
	// tool calls that write, spend or publish need approval. Clients send
	// it with every prompt's text; it only makes the policy stricter.
	Untrusted string `json:"untrusted,omitempty"`
}

// maxUntrusted is the longest SendMessage.Untrusted, in bytes.
const maxUntrusted = 200

// Queued is the 202 answer to a message sent without wait.
type Queued struct {
	Queued bool `json:"queued"`
}

// Answer is the answer to a message sent with wait.
type Answer struct {
	Text string `json:"text"`
}

// Interrupted is POST /v1/sessions/{id}/interrupt's answer.
type Interrupted struct {
	// Interrupted says whether a turn was running and is now cancelled
	// (its stream says turn.interrupted); false when the session was idle.
	Interrupted bool `json:"interrupted"`
}

// Sessions older than the newest maxListed are not listed.
const (
	maxListed   = 200
	maxMessages = 1000
)

// sessionRoutes: sessions, messages, sending and per-session events.
func (s *Server) sessionRoutes() []route {
	s.coreState()
	return []route{
		{method: "GET", path: "/v1/sessions", summary: "List sessions, most recent first.", out: SessionList{}, h: s.listSessions},
		{method: "POST", path: "/v1/sessions", summary: "Open a session (a new web chat by default).", in: OpenSession{}, out: Session{}, h: s.openSession},
		{method: "GET", path: "/v1/sessions/{id}", summary: "One session.", out: Session{}, h: s.getSession},
		{method: "DELETE", path: "/v1/sessions/{id}", summary: "Forget a session's history (409 while a turn runs).", h: s.clearSession},
		{method: "GET", path: "/v1/sessions/{id}/messages", summary: "A session's messages, oldest first (?limit=, default and most 1000).", out: MessageList{}, h: s.listMessages},
		{method: "POST", path: "/v1/sessions/{id}/messages", summary: "Send a message: 202 queued, or 200 with the answer when wait is set.", in: SendMessage{}, out: Answer{}, h: s.sendMessage},
		{method: "POST", path: "/v1/sessions/{id}/interrupt", summary: "Stop the session's running turn (a stop button); queued messages are answered next.",
			out: Interrupted{}, h: s.interruptSession},
		{method: "GET", path: "/v1/sessions/{id}/events", summary: "A session's events (server-sent events).", out: Event{}, stream: true, h: s.sessionEvents},
		{method: "GET", path: "/v1/events", summary: "Every session's events (server-sent events).", out: Event{}, stream: true,
			h: func(w http.ResponseWriter, r *http.Request) { s.serveEvents(w, r, 0) }},
	}
}

func (s *Server) sessionOf(in store.SessionInfo) Session {
	return Session{ID: in.ID, Channel: in.Channel, ChatID: in.ChatID, Title: in.Title, UpdatedAt: in.Updated.UTC(),
		Busy: s.app.Kernel.Busy(in.Channel, in.ChatID)}
}

// pathSession reads {id} and answers 404 when there is no such session.
// It does not read the session's title or last update (getSession does):
// a session's id, channel and chat are usually known without a read.
func (s *Server) pathSession(w http.ResponseWriter, r *http.Request) (store.Session, bool) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		writeError(w, http.StatusNotFound, "no_session", "no session "+strconv.Quote(r.PathValue("id")))
		return store.Session{}, false
	}
	si, err := s.app.Store.SessionOfID(r.Context(), id)
	switch {
	case errors.Is(err, store.ErrNoSession):
		writeError(w, http.StatusNotFound, "no_session", "no session "+strconv.FormatInt(id, 10))
		return si, false
	case err != nil:
		s.internal(w, err)
		return si, false
	}
	return si, true
}

// internal answers 500 and logs err, which may say more than a client
// should read.
func (s *Server) internal(w http.ResponseWriter, err error) {
	s.log.Error("API request failed", "err", err)
	writeError(w, http.StatusInternalServerError, "internal", "internal error; the daemon's log says more")
}

func (s *Server) listSessions(w http.ResponseWriter, r *http.Request) {
	list, err := s.app.Store.ListSessions(r.Context(), maxListed)
	if err != nil {
		s.internal(w, err)
		return
	}
	out := SessionList{Sessions: make([]Session, len(list))}
	for i, si := range list {
		out.Sessions[i] = s.sessionOf(si)
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) openSession(w http.ResponseWriter, r *http.Request) {
	var in OpenSession
	if r.ContentLength != 0 && !decodeJSON(w, r, &in) {
		return
	}
	if in.Channel == "" {
		in.Channel = "web"
	}
	if in.ChatID == "" && in.Channel == "web" {
		in.ChatID = newChatID()
	}
	sess, err := s.app.Store.Session(r.Context(), in.Channel, in.ChatID)
	if err != nil {
		s.internal(w, err)
		return
	}
	si, err := s.app.Store.SessionByID(r.Context(), sess.ID)
	if err != nil {
		s.internal(w, err)
		return
	}
	writeJSON(w, http.StatusCreated, s.sessionOf(si))
}

func newChatID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b) // never fails
	return hex.EncodeToString(b)
}

func (s *Server) getSession(w http.ResponseWriter, r *http.Request) {
	sess, ok := s.pathSession(w, r)
	if !ok {
		return
	}
	si, err := s.app.Store.SessionByID(r.Context(), sess.ID)
	if err != nil { // ErrNoSession too: it was there a moment ago
		s.internal(w, err)
		return
	}
	writeJSON(w, http.StatusOK, s.sessionOf(si))
}

func (s *Server) clearSession(w http.ResponseWriter, r *http.Request) {
	si, ok := s.pathSession(w, r)
	if !ok {
		return
	}
	err := s.app.Kernel.ResetSession(r.Context(), si.Channel, si.ChatID)
	switch {
	case errors.Is(err, kernel.ErrBusy):
		writeError(w, http.StatusConflict, "busy", "the session is answering; interrupt or wait for it first")
	case err != nil:
		s.internal(w, err)
	default:
		w.WriteHeader(http.StatusNoContent)
	}
}

func (s *Server) listMessages(w http.ResponseWriter, r *http.Request) {
	si, ok := s.pathSession(w, r)
	if !ok {
		return
	}
	limit := maxMessages
	if v := r.URL.Query().Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			writeError(w, http.StatusBadRequest, "invalid_limit", "limit must be a positive number")
			return
		}
		limit = min(n, maxMessages)
	}
	msgs, err := s.app.Store.Messages(r.Context(), si.ID, limit)
	if err != nil {
		s.internal(w, err)
		return
	}
	out := MessageList{Messages: make([]Message, len(msgs))}
	mask := s.app.Sources.Secrets().String // what the model repeated of a key is stored as it said it
	for i, m := range msgs {
		out.Messages[i] = messageOf(m, mask)
	}
	writeJSON(w, http.StatusOK, out)
}

// messageOf is a stored message as the API shows it, with mask applied to
// every text.
func messageOf(m store.StoredMessage, mask func(string) string) Message {
	out := Message{Role: m.Role, Content: mask(m.Content), Reasoning: mask(m.Reasoning), ToolCallID: m.ToolCallID, CreatedAt: m.Created.UTC()}
	if len(m.ToolCalls) > 0 {
		var calls []llm.ToolCall
		if json.Unmarshal(m.ToolCalls, &calls) == nil {
			for _, c := range calls {
				out.ToolCalls = append(out.ToolCalls, ToolCall{ID: c.ID, Name: c.Function.Name, Arguments: mask(c.Function.Arguments)})
			}
		}
	}
	return out
}

func (s *Server) sendMessage(w http.ResponseWriter, r *http.Request) {
	si, ok := s.pathSession(w, r)
	if !ok {
		return
	}
	var in SendMessage
	if !decodeJSON(w, r, &in) {
		return
	}
	if in.Text == "" {
		writeError(w, http.StatusBadRequest, "empty_text", "text is empty")
		return
	}
	if len(in.Untrusted) > maxUntrusted {
		writeFieldErrors(w, "invalid message", map[string]string{"untrusted": fmt.Sprintf("longer than %d bytes", maxUntrusted)})
		return
	}
	if _, ok := s.app.Sources.Current(); !ok {
		writeError(w, http.StatusConflict, "no_provider",
			"no model provider is configured: choose one in the web UI's onboarding (GET /v1/providers) or in config.json")
		return
	}
	source := "api"
	if sameOriginBrowser(r) {
		source = "web"
	}
	// The turn's events name the session by this id: told here, the
	// first of them does not have to look it up.
	c := s.coreState()
	c.rememberID(si.Channel, si.ChatID, si.ID)
	done := s.app.Kernel.Submit(kernel.Input{
		Injection: sdk.Injection{Source: source, Channel: si.Channel, ChatID: si.ChatID, UserID: "owner", Text: in.Text, Interrupt: in.Interrupt},
		Owner:     true, // the owner's own words, in any channel's session: the owner's memory scope, not user "owner" of that channel
		Approver:  c.broker.Approver(nil),
		Untrusted: in.Untrusted,
	})
	if !in.Wait {
		writeJSON(w, http.StatusAccepted, Queued{Queued: true})
		return
	}
	select {
	case out := <-done:
		switch {
		case out.Interrupted:
			writeError(w, http.StatusConflict, "interrupted", "the turn was interrupted")
		case out.Err != nil && out.Text == "":
			writeError(w, http.StatusBadGateway, "turn_failed", s.turnError(out.Err))
		default:
			writeJSON(w, http.StatusOK, Answer{Text: out.Text})
		}
	case <-r.Context().Done():
		// The client left; the turn goes on and is stored.
	}
}

func (s *Server) interruptSession(w http.ResponseWriter, r *http.Request) {
	if si, ok := s.pathSession(w, r); ok {
		writeJSON(w, http.StatusOK, Interrupted{Interrupted: s.app.Kernel.Interrupt(si.Channel, si.ChatID)})
	}
}

// sameOriginBrowser reports whether a request came from the web UI (a
// browser sends Origin or Sec-Fetch-Site on its fetches).
func sameOriginBrowser(r *http.Request) bool {
	return r.Header.Get("Origin") != "" || r.Header.Get("Sec-Fetch-Site") == "same-origin"
}

func (s *Server) sessionEvents(w http.ResponseWriter, r *http.Request) {
	if si, ok := s.pathSession(w, r); ok {
		s.serveEvents(w, r, si.ID)
	}
}
