package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// The outcomes of a traced turn.
const (
	TraceAnswered    = "answered"    // the turn gave an answer
	TraceError       = "error"       // the turn failed; Trace.Error says why
	TraceInterrupted = "interrupted" // a newer input or a cancellation ended it
)

// Trace is what happened in one turn: its stages, model calls and tool
// calls. The store keeps it as JSON, with the fields a list is filtered
// and sorted by in columns of their own. The HTTP API serves it as is.
// Secrets are masked before it is stored (the kernel does it).
type Trace struct {
	ID        string `json:"id"`
	SessionID int64  `json:"session_id,omitempty"` // the store's session; 0 before it was known
	Channel   string `json:"channel"`
	ChatID    string `json:"chat_id"`
	UserID    string `json:"user_id,omitempty"`
	GroupID   string `json:"group_id,omitempty"`
	// Plugin is the plugin that injected the input; empty for a
	// person's message.
	Plugin string `json:"plugin,omitempty"`
	// Untrusted names where the input's text came from when it is third
	// party's (kernel.Input.Untrusted: "mcp-x prompt review"); the turn
	// was tainted from its start.
	Untrusted string `json:"untrusted,omitempty"`
	// Input and Answer are the first 200 characters of the message and
	// of the final answer.
	Input  string `json:"input"`
	Answer string `json:"answer,omitempty"`

	Started    time.Time `json:"started"`
	Ended      time.Time `json:"ended"`
	DurationMS float64   `json:"duration_ms"`
	Outcome    string    `json:"outcome"` // TraceAnswered, TraceError, ...
	Error      string    `json:"error,omitempty"`

	// Usage sums the model calls' tokens; Cost their cost, absent unless
	// every call's price was known (in one currency).
	Usage TraceUsage `json:"usage"`
	Cost  *TraceCost `json:"cost,omitempty"`

	Stages     []TraceStage     `json:"stages,omitempty"`
	ModelCalls []TraceModelCall `json:"model_calls,omitempty"`
	ToolCalls  []TraceToolCall  `json:"tool_calls,omitempty"`
}

// TraceUsage counts tokens as the provider reported them.
type TraceUsage struct {
	InputTokens     int `json:"input_tokens"`
	OutputTokens    int `json:"output_tokens"`
	CachedTokens    int `json:"cached_tokens,omitempty"`    // of InputTokens, served from the cache
	ReasoningTokens int `json:"reasoning_tokens,omitempty"` // of OutputTokens, spent reasoning
}

// TraceCost is an amount of money.
type TraceCost struct {
	Amount   float64 `json:"amount"`
	Currency string  `json:"currency"` // ISO 4217: USD, CNY
}

// TraceStage is one run of a pipeline stage that had handlers.
type TraceStage struct {
	Stage string `json:"stage"` // on_input, pre_action, ...
	// ToolPlugin and CallID name the call before_toolcall and
	// after_toolcall ran for.
	ToolPlugin string  `json:"tool_plugin,omitempty"`
	CallID     string  `json:"call_id,omitempty"`
	Handlers   int     `json:"handlers"` // how many handlers the stage had
	DurationMS float64 `json:"duration_ms"`
	// Changed names what the handlers changed: raw_message,
	// context_msgs, llm_text, tool_calls, tool_results, final_text,
	// response (a handler answered, ending the turn).
	Changed []string `json:"changed,omitempty"`
}

// TraceModelCall is one request to the model.
type TraceModelCall struct {
	Source string `json:"source,omitempty"` // the configured source's name: the one that answered
	// Fallback says why the source tried first did not answer ("deepseek:
	// 429 rate limited"), when a fallback source did.
	Fallback     string     `json:"fallback,omitempty"`
	Model        string     `json:"model,omitempty"`
	Started      time.Time  `json:"started"`
	DurationMS   float64    `json:"duration_ms"`
	FirstTokenMS float64    `json:"first_token_ms,omitempty"` // until the first streamed piece; 0 when none came
	Usage        TraceUsage `json:"usage"`
	Cost         *TraceCost `json:"cost,omitempty"` // absent when the price is not known
	FinishReason string     `json:"finish_reason,omitempty"`
	ToolCalls    int        `json:"tool_calls,omitempty"` // how many calls the model asked for
	Error        string     `json:"error,omitempty"`
}

// TraceToolCall is one tool call the model asked for, run or not.
type TraceToolCall struct {
	CallID string `json:"call_id"`
	Name   string `json:"name"` // the model-visible name
	Plugin string `json:"plugin,omitempty"`
	// Arguments and Result are as sent and returned, each cut to 8 KiB
	// (Truncated says so).
	Arguments string `json:"arguments"`
	Result    string `json:"result"`
	Truncated bool   `json:"truncated,omitempty"`
	IsError   bool   `json:"is_error,omitempty"`
	// Outcome is ok, error, denied, invalid or not-run.
	Outcome string `json:"outcome"`
	// Decision is the policy's: allow or deny; Rule the rule that
	// decided, Reason why it refused, DecidedBy who decided (policy,
	// user, hook:<plugin>, stage...).
	Decision  string         `json:"decision"`
	Rule      string         `json:"rule,omitempty"`
	Reason    string         `json:"reason,omitempty"`
	DecidedBy string         `json:"decided_by,omitempty"`
	Effect    string         `json:"effect,omitempty"`
	Approval  *TraceApproval `json:"approval,omitempty"` // when someone was asked
	// DurationMS is how long the tool ran.
	DurationMS float64 `json:"duration_ms"`
}

// TraceApproval is an approval asked for a tool call.
type TraceApproval struct {
	// Answer is once, always, deny, expired, or "error: ..." when no
	// answer came.
	Answer     string  `json:"answer"`
	AnsweredBy string  `json:"answered_by,omitempty"` // user, or policy when it lapsed
	WaitMS     float64 `json:"wait_ms"`
}

// TraceFilter selects traces; zero fields select everything.
type TraceFilter struct {
	SessionID int64
	Channel   string
	ChatID    string    // each of Channel and ChatID, when set, must match
	Before    time.Time // started before this
	Limit     int       // default 50, at most 1000
}

// ErrNoTrace means no trace has the id asked for.
var ErrNoTrace = errors.New("no such trace")

// SaveTrace stores tr, replacing the trace of the same id, if any.
func (s *Store) SaveTrace(ctx context.Context, tr *Trace) error {
	if tr.ID == "" {
		return errors.New("saving a trace: no id")
	}
	body, err := json.Marshal(tr)
	if err != nil {
		return fmt.Errorf("encoding trace %s: %w", tr.ID, err)
	}
	var cost sql.NullFloat64
	var currency string
	if tr.Cost != nil {
		cost, currency = sql.NullFloat64{Float64: tr.Cost.Amount, Valid: true}, tr.Cost.Currency
	}
	_, err = s.w.ExecContext(ctx, `INSERT INTO traces
		(id, session_id, channel, chat_id, started, duration_ms, outcome, input_tokens, output_tokens, cost, currency, body)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET session_id = excluded.session_id, duration_ms = excluded.duration_ms,
			outcome = excluded.outcome, input_tokens = excluded.input_tokens, output_tokens = excluded.output_tokens,
			cost = excluded.cost, currency = excluded.currency, body = excluded.body`,
		tr.ID, tr.SessionID, tr.Channel, tr.ChatID, tr.Started.UnixMilli(), int64(tr.DurationMS), tr.Outcome,
		tr.Usage.InputTokens, tr.Usage.OutputTokens, cost, currency, body)
	if err != nil {
		return fmt.Errorf("saving trace %s: %w", tr.ID, err)
	}
	return nil
}

// Trace returns the trace with id, or ErrNoTrace.
func (s *Store) Trace(ctx context.Context, id string) (Trace, error) {
	var body []byte
	err := s.db.QueryRowContext(ctx, `SELECT body FROM traces WHERE id = ?`, id).Scan(&body)
	if errors.Is(err, sql.ErrNoRows) {
		return Trace{}, ErrNoTrace
	}
	if err != nil {
		return Trace{}, fmt.Errorf("reading trace %s: %w", id, err)
	}
	return decodeTrace(body)
}

// Traces returns the traces f selects, newest first.
func (s *Store) Traces(ctx context.Context, f TraceFilter) ([]Trace, error) {
	q := `SELECT body FROM traces WHERE 1 = 1`
	var args []any
	if f.SessionID != 0 {
		q += ` AND session_id = ?`
		args = append(args, f.SessionID)
	}
	if f.Channel != "" {
		q += ` AND channel = ?`
		args = append(args, f.Channel)
	}
	if f.ChatID != "" {
		q += ` AND chat_id = ?`
		args = append(args, f.ChatID)
	}
	if !f.Before.IsZero() {
		q += ` AND started < ?`
		args = append(args, f.Before.UnixMilli())
	}
	limit := f.Limit
	if limit <= 0 {
		limit = 50
	}
	q += ` ORDER BY started DESC, id DESC LIMIT ?`
	args = append(args, min(limit, 1000))
	out, err := queryAll(ctx, s.db, func(rows *sql.Rows) (Trace, error) {
		var body []byte
		if err := rows.Scan(&body); err != nil {
			return Trace{}, err
		}
		return decodeTrace(body)
	}, q, args...)
	if err != nil {
		return nil, fmt.Errorf("listing traces: %w", err)
	}
	return out, nil
}

// PruneTraces deletes the traces of turns started before olderThan and
// returns how many.
func (s *Store) PruneTraces(ctx context.Context, olderThan time.Time) (int, error) {
	res, err := s.w.ExecContext(ctx, `DELETE FROM traces WHERE started < ?`, olderThan.UnixMilli())
	if err != nil {
		return 0, fmt.Errorf("pruning traces: %w", err)
	}
	n, err := res.RowsAffected()
	return int(n), err
}

func decodeTrace(body []byte) (Trace, error) {
	var tr Trace
	if err := json.Unmarshal(body, &tr); err != nil {
		return Trace{}, fmt.Errorf("decoding a stored trace: %w", err)
	}
	return tr, nil
}
