package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Session identifies one conversation: a chat within a channel.
type Session struct {
	ID      int64
	Channel string
	ChatID  string
}

// Session returns the session of channel and chatID, creating it if needed.
func (s *Store) Session(ctx context.Context, channel, chatID string) (Session, error) {
	if sess, ok := s.sessions.byChat(channel, chatID); ok {
		return sess, nil
	}
	// Most sessions exist already: a read finds them without queueing for
	// the one write connection (a turn's first step, and the event
	// stream's, would otherwise wait behind every other turn's writes).
	var id int64
	err := s.db.QueryRowContext(ctx, `SELECT id FROM sessions WHERE channel = ? AND chat_id = ?`, channel, chatID).Scan(&id)
	switch {
	case err == nil:
		return s.found(id, channel, chatID), nil
	case !errors.Is(err, sql.ErrNoRows):
		return Session{}, fmt.Errorf("opening session %s/%s: %w", channel, chatID, err)
	}
	now := time.Now().UnixMilli()
	err = s.w.QueryRowContext(ctx, `
		INSERT INTO sessions(channel, chat_id, created_at, updated_at) VALUES (?, ?, ?, ?)
		ON CONFLICT(channel, chat_id) DO UPDATE SET updated_at = updated_at
		RETURNING id`, channel, chatID, now, now).Scan(&id)
	if err != nil {
		return Session{}, fmt.Errorf("opening session %s/%s: %w", channel, chatID, err)
	}
	return s.found(id, channel, chatID), nil
}

// found notes an existing session in the cache (sessioncache.go).
func (s *Store) found(id int64, channel, chatID string) Session {
	sess := Session{ID: id, Channel: channel, ChatID: chatID}
	s.sessions.add(sess)
	return sess
}

// Message is one stored message of a session. The store keeps the
// provider's tool calls as the JSON the kernel gives it, so that it never
// needs the provider's types.
type Message struct {
	Role       string // user, assistant or tool
	Content    string
	Reasoning  string
	ToolCalls  json.RawMessage // the assistant's tool calls as JSON; nil for none
	ToolCallID string          // the call a tool message answers
	Name       string
}

// The statements AppendMessages runs in its transaction, prepared once.
const (
	insertMessageSQL = `INSERT INTO messages(session_id, role, content, reasoning, tool_calls, tool_call_id, name, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`
	touchSessionSQL = `UPDATE sessions SET updated_at = ? WHERE id = ?`
)

// txQueries are prepared when the store opens, for transactions to use
// (see pool.inTx).
var txQueries = []string{insertMessageSQL, touchSessionSQL}

// AppendMessages adds msgs to the end of a session's history, all or none.
func (s *Store) AppendMessages(ctx context.Context, sessionID int64, msgs []Message) error {
	if len(msgs) == 0 {
		return nil
	}
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	stmt, err := s.w.inTx(ctx, tx, insertMessageSQL)
	if err != nil {
		return err
	}
	touch, err := s.w.inTx(ctx, tx, touchSessionSQL)
	if err != nil {
		return err
	}
	now := time.Now().UnixMilli()
	for _, m := range msgs {
		if _, err := stmt.ExecContext(ctx, sessionID, m.Role, m.Content, m.Reasoning, string(m.ToolCalls), m.ToolCallID, m.Name, now); err != nil {
			return fmt.Errorf("saving message: %w", err)
		}
	}
	if _, err := touch.ExecContext(ctx, now, sessionID); err != nil {
		return err
	}
	return tx.Commit()
}

// RecentMessages returns up to limit of the session's latest messages in
// order, starting at a user message so that no tool result is separated
// from the call that asked for it.
func (s *Store) RecentMessages(ctx context.Context, sessionID int64, limit int) ([]Message, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT role, content, reasoning, tool_calls, tool_call_id, name FROM (
		SELECT id, role, content, reasoning, tool_calls, tool_call_id, name FROM messages
		WHERE session_id = ? ORDER BY id DESC LIMIT ?) ORDER BY id`, sessionID, limit)
	if err != nil {
		return nil, fmt.Errorf("loading history: %w", err)
	}
	defer rows.Close()
	var out []Message
	for rows.Next() {
		var m Message
		var calls string
		if err := rows.Scan(&m.Role, &m.Content, &m.Reasoning, &calls, &m.ToolCallID, &m.Name); err != nil {
			return nil, err
		}
		if calls != "" {
			m.ToolCalls = json.RawMessage(calls)
		}
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for len(out) > 0 && out[0].Role != "user" {
		out = out[1:]
	}
	return out, nil
}

// ClearSession deletes a session's history.
func (s *Store) ClearSession(ctx context.Context, sessionID int64) error {
	_, err := s.w.ExecContext(ctx, `DELETE FROM messages WHERE session_id = ?`, sessionID)
	return err
}

// ErrNoSession means no session exists for the given channel and chat.
var ErrNoSession = errors.New("no such session")

// FindSession returns an existing session without creating one.
func (s *Store) FindSession(ctx context.Context, channel, chatID string) (Session, error) {
	if sess, ok := s.sessions.byChat(channel, chatID); ok {
		return sess, nil
	}
	var id int64
	err := s.db.QueryRowContext(ctx, `SELECT id FROM sessions WHERE channel = ? AND chat_id = ?`, channel, chatID).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return Session{}, ErrNoSession
	}
	if err != nil {
		return Session{}, err
	}
	return s.found(id, channel, chatID), nil
}

// SessionOfID returns the session id without what SessionByID adds to
// it (its title and last update), usually without reading the database;
// ErrNoSession when there is none.
func (s *Store) SessionOfID(ctx context.Context, id int64) (Session, error) {
	if sess, ok := s.sessions.get(id); ok {
		return sess, nil
	}
	var channel, chatID string
	err := s.db.QueryRowContext(ctx, `SELECT channel, chat_id FROM sessions WHERE id = ?`, id).Scan(&channel, &chatID)
	if errors.Is(err, sql.ErrNoRows) {
		return Session{}, ErrNoSession
	}
	if err != nil {
		return Session{}, fmt.Errorf("reading session %d: %w", id, err)
	}
	return s.found(id, channel, chatID), nil
}

// SessionInfo is a session as a list shows it.
type SessionInfo struct {
	Session
	// Title is the start of the session's first user message (up to 80
	// characters); empty before anything was said.
	Title   string
	Updated time.Time // the last message, or when the session was opened
}

const sessionInfoSelect = `SELECT s.id, s.channel, s.chat_id, s.updated_at,
	COALESCE((SELECT substr(m.content, 1, 80) FROM messages m
		WHERE m.session_id = s.id AND m.role = 'user' ORDER BY m.id LIMIT 1), '')
	FROM sessions s`

func scanSessionInfo(rows *sql.Rows) (SessionInfo, error) {
	var si SessionInfo
	var updated int64
	err := rows.Scan(&si.ID, &si.Channel, &si.ChatID, &updated, &si.Title)
	si.Updated = time.UnixMilli(updated)
	return si, err
}

// ListSessions returns up to limit sessions, the most recently updated
// first.
func (s *Store) ListSessions(ctx context.Context, limit int) ([]SessionInfo, error) {
	out, err := queryAll(ctx, s.db, scanSessionInfo, sessionInfoSelect+` ORDER BY s.updated_at DESC, s.id DESC LIMIT ?`, limit)
	if err != nil {
		return nil, fmt.Errorf("listing sessions: %w", err)
	}
	return out, nil
}

// SessionByID returns the session id, or ErrNoSession.
func (s *Store) SessionByID(ctx context.Context, id int64) (SessionInfo, error) {
	out, err := queryAll(ctx, s.db, scanSessionInfo, sessionInfoSelect+` WHERE s.id = ?`, id)
	if err != nil {
		return SessionInfo{}, fmt.Errorf("reading session %d: %w", id, err)
	}
	if len(out) == 0 {
		return SessionInfo{}, ErrNoSession
	}
	s.sessions.add(out[0].Session)
	return out[0], nil
}

// StoredMessage is a message with when it was stored.
type StoredMessage struct {
	Message
	Created time.Time
}

// Messages returns up to limit of a session's latest messages, oldest
// first, with their times: the history as a person reads it.
func (s *Store) Messages(ctx context.Context, sessionID int64, limit int) ([]StoredMessage, error) {
	out, err := queryAll(ctx, s.db, func(rows *sql.Rows) (StoredMessage, error) {
		var m StoredMessage
		var calls string
		var created int64
		err := rows.Scan(&m.Role, &m.Content, &m.Reasoning, &calls, &m.ToolCallID, &m.Name, &created)
		if calls != "" {
			m.ToolCalls = json.RawMessage(calls)
		}
		m.Created = time.UnixMilli(created)
		return m, err
	}, `SELECT role, content, reasoning, tool_calls, tool_call_id, name, created_at FROM (
		SELECT * FROM messages WHERE session_id = ? ORDER BY id DESC LIMIT ?) ORDER BY id`, sessionID, limit)
	if err != nil {
		return nil, fmt.Errorf("reading messages: %w", err)
	}
	return out, nil
}
