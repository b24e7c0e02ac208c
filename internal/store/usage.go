package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// Usage is one model call's record in the usage ledger: what it used
// and cost, and whom it was for.
type Usage struct {
	At               time.Time
	Day              string // YYYY-MM-DD in the budgets' zone
	SessionID        int64
	TraceID          string
	Source, Model    string
	Plugin           string // the plugin whose input the turn answered
	InputTokens      int64
	CachedTokens     int64
	CacheWriteTokens int64
	OutputTokens     int64
	Cost             *float64 // nil when the price is not known
	Currency         string
}

// RecordUsage adds one call to the ledger.
func (s *Store) RecordUsage(ctx context.Context, u *Usage) error {
	var cost sql.NullFloat64
	if u.Cost != nil {
		cost = sql.NullFloat64{Float64: *u.Cost, Valid: true}
	}
	_, err := s.w.ExecContext(ctx, `INSERT INTO model_usage
		(at, day, session_id, trace_id, source, model, plugin, input_tokens, cached_tokens, cache_write_tokens, output_tokens, cost, currency)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		u.At.UnixMilli(), u.Day, u.SessionID, u.TraceID, u.Source, u.Model, u.Plugin,
		u.InputTokens, u.CachedTokens, u.CacheWriteTokens, u.OutputTokens, cost, u.Currency)
	if err != nil {
		return fmt.Errorf("recording model usage: %w", err)
	}
	return nil
}

// UsageSpent is what the ledger's calls of day (when not empty) or of
// session (when not 0) used: tokens, and cost by currency.
func (s *Store) UsageSpent(ctx context.Context, day string, session int64) (tokens int64, money map[string]float64, err error) {
	where, arg := `day = ?`, any(day)
	if day == "" {
		where, arg = `session_id = ?`, any(session)
	}
	rows, err := s.db.QueryContext(ctx, `SELECT currency, COALESCE(SUM(input_tokens + output_tokens), 0), COALESCE(SUM(cost), 0)
		FROM model_usage WHERE `+where+` GROUP BY currency`, arg)
	if err != nil {
		return 0, nil, fmt.Errorf("reading model usage: %w", err)
	}
	defer rows.Close()
	money = map[string]float64{}
	for rows.Next() {
		var cur string
		var n int64
		var c float64
		if err := rows.Scan(&cur, &n, &c); err != nil {
			return 0, nil, fmt.Errorf("reading model usage: %w", err)
		}
		tokens += n
		if cur != "" {
			money[cur] += c
		}
	}
	if err := rows.Err(); err != nil {
		return 0, nil, fmt.Errorf("reading model usage: %w", err)
	}
	return tokens, money, nil
}

// UsageGroups are the keys UsageTotals groups by.
var UsageGroups = map[string]string{
	"day": "day", "session": "CAST(session_id AS TEXT)", "source": "source", "model": "model", "plugin": "plugin",
}

// UsageTotal is the ledger's sum for one key of a grouping, in one
// currency ("" for calls without a price).
type UsageTotal struct {
	Key string `json:"key"`
	// Label is the session's channel and chat ("terminal/工作笔记") when
	// grouped by session; empty otherwise.
	Label            string  `json:"label,omitempty"`
	Calls            int64   `json:"calls"`
	InputTokens      int64   `json:"input_tokens"`
	CachedTokens     int64   `json:"cached_tokens"`
	CacheWriteTokens int64   `json:"cache_write_tokens"`
	OutputTokens     int64   `json:"output_tokens"`
	Cost             float64 `json:"cost"`
	Currency         string  `json:"currency"`
	// Unpriced counts the calls whose price was not known: their cost
	// is not in Cost.
	Unpriced int64 `json:"unpriced"`
}

// UsageTotals sums the ledger's calls made in [from, until) (a zero time
// leaves that end open) by one of UsageGroups, newest key first for days
// and largest spend first otherwise.
func (s *Store) UsageTotals(ctx context.Context, by string, from, until time.Time) ([]UsageTotal, error) {
	key, ok := UsageGroups[by]
	if !ok {
		return nil, fmt.Errorf("usage cannot be grouped by %q (day, session, source, model or plugin)", by)
	}
	lo, hi := int64(0), int64(1<<62)
	if !from.IsZero() {
		lo = from.UnixMilli()
	}
	if !until.IsZero() {
		hi = until.UnixMilli()
	}
	order, label := "SUM(input_tokens + output_tokens) DESC, k", "''"
	switch by {
	case "day":
		order = "k DESC"
	case "session":
		order = "SUM(input_tokens + output_tokens) DESC, session_id"
		label = "COALESCE((SELECT channel || '/' || chat_id FROM sessions WHERE sessions.id = session_id), '')"
	}
	rows, err := s.db.QueryContext(ctx, `SELECT `+key+` AS k, currency, COUNT(*), SUM(input_tokens), SUM(cached_tokens),
		SUM(cache_write_tokens), SUM(output_tokens), COALESCE(SUM(cost), 0), SUM(cost IS NULL), `+label+`
		FROM model_usage WHERE at >= ? AND at < ? GROUP BY k, currency ORDER BY `+order+`, currency`, lo, hi)
	if err != nil {
		return nil, fmt.Errorf("summing model usage: %w", err)
	}
	defer rows.Close()
	out := []UsageTotal{}
	for rows.Next() {
		var t UsageTotal
		if err := rows.Scan(&t.Key, &t.Currency, &t.Calls, &t.InputTokens, &t.CachedTokens, &t.CacheWriteTokens,
			&t.OutputTokens, &t.Cost, &t.Unpriced, &t.Label); err != nil {
			return nil, fmt.Errorf("summing model usage: %w", err)
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// RejectedKey is a source whose API key the provider refused (401 or
// 403), kept until the key changes.
type RejectedKey struct {
	Source  string
	KeyHash string
	Reason  string
	At      time.Time
}

// MarkRejectedKey records that source's key (by its hash) was refused.
func (s *Store) MarkRejectedKey(ctx context.Context, r RejectedKey) error {
	_, err := s.w.ExecContext(ctx, `INSERT INTO rejected_keys(source, key_hash, reason, at) VALUES (?, ?, ?, ?)
		ON CONFLICT(source) DO UPDATE SET key_hash = excluded.key_hash, reason = excluded.reason, at = excluded.at`,
		r.Source, r.KeyHash, r.Reason, r.At.UnixMilli())
	if err != nil {
		return fmt.Errorf("marking the key of source %q rejected: %w", r.Source, err)
	}
	return nil
}

// ClearRejectedKey forgets the mark of source's key.
func (s *Store) ClearRejectedKey(ctx context.Context, source string) error {
	if _, err := s.w.ExecContext(ctx, `DELETE FROM rejected_keys WHERE source = ?`, source); err != nil {
		return fmt.Errorf("clearing the rejected key of source %q: %w", source, err)
	}
	return nil
}

// RejectedKeys returns every source whose key is marked rejected.
func (s *Store) RejectedKeys(ctx context.Context) ([]RejectedKey, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT source, key_hash, reason, at FROM rejected_keys ORDER BY source`)
	if err != nil {
		return nil, fmt.Errorf("reading rejected keys: %w", err)
	}
	defer rows.Close()
	var out []RejectedKey
	for rows.Next() {
		var r RejectedKey
		var at int64
		if err := rows.Scan(&r.Source, &r.KeyHash, &r.Reason, &at); err != nil {
			return nil, fmt.Errorf("reading rejected keys: %w", err)
		}
		r.At = time.UnixMilli(at)
		out = append(out, r)
	}
	return out, rows.Err()
}
