package store

import (
	"context"
	"database/sql"
)

// Correction marks (see internal/kernel, recall_marks.go): which facts
// each conversation was shown, and the lines waiting for its next
// request. They live here so that a change made by any process on the
// data directory (hearth serve, or `hearth memory` run alone) reaches
// the conversation's next request once, across restarts.

// Bounds of what is kept as shown: per conversation, and in all. Past
// them the oldest facts are forgotten (a change of one then marks
// nothing).
const (
	MaxShownPerChat = 200
	MaxShownFacts   = 100000
	// MaxPendingMarks is how many marks wait per conversation; past it
	// the oldest are dropped (the request shows the newest only).
	MaxPendingMarks = 100
)

// Chat names one conversation: its channel and chat id.
type Chat struct{ Channel, Chat string }

// NoteShown records that chat, a conversation of scope conv, was shown
// facts (each newest from now on).
func (s *Store) NoteShown(ctx context.Context, chat Chat, conv string, facts []string) error {
	if len(facts) == 0 {
		return nil
	}
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var seq int64
	if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(seq), 0) FROM marks_shown`).Scan(&seq); err != nil {
		return err
	}
	for _, f := range facts {
		seq++
		if _, err := tx.ExecContext(ctx, `INSERT INTO marks_shown(fact, channel, chat, conv, seq) VALUES (?, ?, ?, ?, ?)
			ON CONFLICT(fact, channel, chat) DO UPDATE SET conv = excluded.conv, seq = excluded.seq`,
			f, chat.Channel, chat.Chat, conv, seq); err != nil {
			return err
		}
	}
	if err := trimShown(ctx, tx, chat, seq); err != nil {
		return err
	}
	return tx.Commit()
}

// trimShown applies the bounds of the shown facts; top is the newest
// seq. Every row has its own seq, none above top, so those above
// top-MaxShownFacts are at most MaxShownFacts: deleting the rest is a
// range of the index, not a count of the table.
func trimShown(ctx context.Context, tx *sql.Tx, chat Chat, top int64) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM marks_shown WHERE channel = ? AND chat = ? AND seq <= (
		SELECT seq FROM marks_shown WHERE channel = ? AND chat = ? ORDER BY seq DESC LIMIT 1 OFFSET ?)`,
		chat.Channel, chat.Chat, chat.Channel, chat.Chat, MaxShownPerChat); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `DELETE FROM marks_shown WHERE seq <= ?`, top-MaxShownFacts)
	return err
}

// FactChanged queues line for every conversation shown fact whose scope
// is in (any conversation when in is "" or "global": an entry of Global
// is seen everywhere), and forgets that they were shown fact. The
// conversation skip (which made the change and read so itself) gets no
// line. When then is not "" (a correction), those conversations count
// as shown then, so a later change of it is marked too. untrusted says
// the line holds text the owner did not write (TakeMarks tells it). It
// returns how many conversations get the line.
func (s *Store) FactChanged(ctx context.Context, fact, in string, skip Chat, line, then string, untrusted bool) (int, error) {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, `SELECT channel, chat, conv FROM marks_shown
		WHERE fact = ? AND (? IN ('', 'global') OR conv = ?) ORDER BY seq`, fact, in, in)
	if err != nil {
		return 0, err
	}
	type shown struct {
		chat Chat
		conv string
	}
	var hit []shown
	for rows.Next() {
		var sh shown
		if err := rows.Scan(&sh.chat.Channel, &sh.chat.Chat, &sh.conv); err != nil {
			rows.Close()
			return 0, err
		}
		hit = append(hit, sh)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, err
	}
	var seq int64
	if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(seq), 0) FROM marks_shown`).Scan(&seq); err != nil {
		return 0, err
	}
	n := 0
	for _, sh := range hit {
		if _, err := tx.ExecContext(ctx, `DELETE FROM marks_shown WHERE fact = ? AND channel = ? AND chat = ?`,
			fact, sh.chat.Channel, sh.chat.Chat); err != nil {
			return 0, err
		}
		if sh.chat == skip {
			continue
		}
		n++
		if _, err := tx.ExecContext(ctx, `INSERT INTO marks_due(channel, chat, conv, line, untrusted) VALUES (?, ?, ?, ?, ?)`,
			sh.chat.Channel, sh.chat.Chat, sh.conv, line, untrusted); err != nil {
			return 0, err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM marks_due WHERE channel = ? AND chat = ? AND id <= (
			SELECT id FROM marks_due WHERE channel = ? AND chat = ? ORDER BY id DESC LIMIT 1 OFFSET ?)`,
			sh.chat.Channel, sh.chat.Chat, sh.chat.Channel, sh.chat.Chat, MaxPendingMarks); err != nil {
			return 0, err
		}
		if then != "" {
			seq++
			if _, err := tx.ExecContext(ctx, `INSERT INTO marks_shown(fact, channel, chat, conv, seq) VALUES (?, ?, ?, ?, ?)
				ON CONFLICT(fact, channel, chat) DO UPDATE SET conv = excluded.conv, seq = excluded.seq`,
				then, sh.chat.Channel, sh.chat.Chat, sh.conv, seq); err != nil {
				return 0, err
			}
		}
	}
	return n, tx.Commit()
}

// Mark is a line waiting for a conversation.
type Mark struct {
	ID   int64 // newer is larger (MarksGiven takes it)
	Line string
	// Untrusted says the line holds text the owner did not write.
	Untrusted bool
}

// Marks returns the lines waiting for chat in a turn of scope conv,
// oldest first: those queued for conversations of that scope (a chat
// whose turns are of several scopes, the owner's and a guest's, gives
// each its own). They wait until MarksGiven says the model was given
// them: a request that failed, or a process that died before sending
// it, told the model nothing.
func (s *Store) Marks(ctx context.Context, chat Chat, conv string) ([]Mark, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, line, untrusted FROM marks_due
		WHERE channel = ? AND chat = ? AND conv IN (?, '') ORDER BY id`, chat.Channel, chat.Chat, conv)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var marks []Mark
	for rows.Next() {
		var m Mark
		if err := rows.Scan(&m.ID, &m.Line, &m.Untrusted); err != nil {
			return nil, err
		}
		marks = append(marks, m)
	}
	return marks, rows.Err()
}

// MarksGiven deletes the lines Marks(chat, conv) returns up to the mark
// id upTo: each is given once.
func (s *Store) MarksGiven(ctx context.Context, chat Chat, conv string, upTo int64) error {
	_, err := s.w.ExecContext(ctx, `DELETE FROM marks_due WHERE channel = ? AND chat = ? AND conv IN (?, '') AND id <= ?`,
		chat.Channel, chat.Chat, conv, upTo)
	return err
}

// TakeMarks returns the lines waiting for chat in a turn of scope conv,
// oldest first, and deletes them (Marks, then MarksGiven).
func (s *Store) TakeMarks(ctx context.Context, chat Chat, conv string) ([]Mark, error) {
	marks, err := s.Marks(ctx, chat, conv)
	if err != nil || len(marks) == 0 {
		return nil, err
	}
	return marks, s.MarksGiven(ctx, chat, conv, marks[len(marks)-1].ID)
}
