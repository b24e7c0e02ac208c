package remote

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/hearth-agent/hearth/internal/kernel"
	"github.com/hearth-agent/hearth/internal/llm"
	"github.com/hearth-agent/hearth/internal/policy"
	"github.com/hearth-agent/hearth/sdk"
)

// The event names of docs/http-api.md.
const (
	evTurnStarted     = "turn.started"
	evReasoning       = "reasoning.delta"
	evContent         = "content.delta"
	evToolStarted     = "tool.started"
	evToolFinished    = "tool.finished"
	evToolProgress    = "tool.progress"
	evModelRetry      = "model.retry"
	evApprovalAsked   = "approval.requested"
	evApprovalDecided = "approval.decided"
	evTurnFinished    = "turn.finished"
	evTurnInterrupted = "turn.interrupted"
	evError           = "error"
)

// id is a session or approval id: a number in the contract, taken as a
// string too so that a server writing it either way is understood. It is
// only ever put back into a path.
type id string

// UnmarshalJSON accepts a JSON number or string.
func (i *id) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*i = id(s)
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return fmt.Errorf("id: %w", err)
	}
	*i = id(n.String())
	return nil
}

// wireEvent is the data of any event: the union of the fields the
// contract gives each event name.
type wireEvent struct {
	SessionID id              `json:"session_id"`
	Text      string          `json:"text"`
	CallID    string          `json:"call_id"`
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments"`
	IsError   bool            `json:"is_error"`
	Result    json.RawMessage `json:"result"`
	Usage     *wireUsage      `json:"usage"`
	TraceID   json.RawMessage `json:"trace_id"`
	Message   string          `json:"message"`
	// tool.progress
	Progress *wireProgress `json:"progress"`
	// model.retry
	Retry *wireRetry `json:"retry"`
	// approval.requested
	Approval *wireApproval `json:"approval"`
	// approval.decided
	ID     id     `json:"id"`
	Answer string `json:"answer"`
	By     string `json:"by"`
}

// wireUsage is the contract's Usage: the tokens, and the cost when
// known.
type wireUsage struct {
	llm.Usage
	Cost     *float64 `json:"cost"`
	Currency string   `json:"currency"`
}

// wireRetry is the contract's Retry.
type wireRetry struct {
	Attempt int    `json:"attempt"`
	AfterMS int64  `json:"after_ms"`
	Reason  string `json:"reason"`
	Source  string `json:"source"`
}

// wireProgress is the contract's Progress.
type wireProgress struct {
	Done    float64 `json:"done"`
	Total   float64 `json:"total"`
	Message string  `json:"message"`
}

// wireApproval is the contract's Approval.
type wireApproval struct {
	ID          id              `json:"id"`
	SessionID   id              `json:"session_id"`
	Channel     string          `json:"channel"`
	Tool        string          `json:"tool"`
	Title       string          `json:"title"`
	Effect      sdk.Effect      `json:"effect"`
	Target      json.RawMessage `json:"target"` // a label, or an sdk.Target
	Arguments   json.RawMessage `json:"arguments"`
	Reason      string          `json:"reason"`
	RequestedBy json.RawMessage `json:"requested_by"` // not shown: the reason says who asked
	ExpiresAt   time.Time       `json:"expires_at"`
	Grant       bool            `json:"grant"`
}

// decodeEvent parses an event's data.
func decodeEvent(e sseEvent) (wireEvent, error) {
	var w wireEvent
	if err := json.Unmarshal([]byte(e.Data), &w); err != nil {
		return wireEvent{}, fmt.Errorf("event %s: %w", e.Event, err)
	}
	if e.Event == evApprovalAsked && w.Approval == nil {
		return wireEvent{}, fmt.Errorf("event %s: no approval", e.Event)
	}
	return w, nil
}

// TurnError is a turn's failure as the daemon reported it: its message
// only, since the error's type stays in the daemon.
type TurnError struct{ Message string }

func (e *TurnError) Error() string { return e.Message }

// kernelEvent maps an event of a turn to what the terminal renders; ok is
// false for the events that are not a turn's own (turn.started,
// approvals, and names this client does not know).
func kernelEvent(name string, w wireEvent) (ev kernel.Event, ok bool) {
	switch name {
	case evReasoning:
		return kernel.Event{Kind: kernel.EventReasoning, Text: w.Text}, true
	case evContent:
		return kernel.Event{Kind: kernel.EventText, Text: w.Text}, true
	case evToolStarted:
		return kernel.Event{Kind: kernel.EventToolStart, Tool: w.Tool, CallID: w.CallID, Args: rawText(w.Arguments)}, true
	case evToolProgress:
		if w.Progress == nil {
			return kernel.Event{}, false
		}
		p := w.Progress
		return kernel.Event{Kind: kernel.EventToolProgress, Tool: w.Tool, CallID: w.CallID, Done: p.Done, Total: p.Total, Text: p.Message}, true
	case evModelRetry:
		if w.Retry == nil {
			return kernel.Event{}, false
		}
		// A wait the daemon could not have meant is shown as none, or an hour.
		after := time.Duration(min(max(w.Retry.AfterMS, 0), int64(time.Hour/time.Millisecond))) * time.Millisecond
		r := &llm.Retry{Attempt: w.Retry.Attempt, After: after, Reason: w.Retry.Reason, Source: w.Retry.Source}
		return kernel.Event{Kind: kernel.EventRetry, Text: r.String(), Retry: r}, true
	case evToolFinished:
		return kernel.Event{Kind: kernel.EventToolEnd, Tool: w.Tool, CallID: w.CallID, IsError: w.IsError, Text: rawText(w.Result)}, true
	case evTurnFinished:
		ev := kernel.Event{Kind: kernel.EventFinal, Text: w.Text}
		if w.Usage != nil {
			ev.Usage = w.Usage.Usage
			if w.Usage.Cost != nil && w.Usage.Currency != "" {
				ev.Cost = &kernel.Cost{Amount: *w.Usage.Cost, Currency: w.Usage.Currency}
			}
		}
		return ev, true
	case evTurnInterrupted:
		return kernel.Event{Kind: kernel.EventInterrupted, Err: kernel.ErrInterrupted}, true
	case evError:
		msg := w.Message
		if msg == "" {
			msg = w.Text
		}
		return kernel.Event{Kind: kernel.EventError, Text: msg, Err: &TurnError{Message: msg}}, true
	}
	return kernel.Event{}, false
}

// endsTurn reports whether the event named name is a turn's last.
func endsTurn(name string) bool {
	return name == evTurnFinished || name == evTurnInterrupted || name == evError
}

// rawText is a JSON value as the terminal shows it: a string's contents,
// anything else as written.
func rawText(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
	}
	return string(raw)
}

// approvalRequest is what the terminal's prompt shows for a.
func approvalRequest(a *wireApproval) *policy.ApprovalRequest {
	n, _ := strconv.ParseInt(string(a.ID), 10, 64)
	req := &policy.ApprovalRequest{
		ID: n, Tool: a.Tool, Title: a.Title, Effect: a.Effect, Target: approvalTarget(a.Target),
		Args: approvalArgs(a.Arguments), Reason: a.Reason, Expires: a.ExpiresAt, Grant: a.Grant,
		Session: string(a.SessionID),
	}
	if req.Title == "" {
		req.Title = req.Tool
	}
	req.Requests.Channel = a.Channel
	return req
}

// approvalTarget is what a call acts on: the contract gives its label,
// an object like sdk.Target is taken too.
func approvalTarget(raw json.RawMessage) *sdk.Target {
	var label string
	if json.Unmarshal(raw, &label) == nil {
		if label == "" {
			return nil
		}
		return &sdk.Target{Label: label}
	}
	var t sdk.Target
	if json.Unmarshal(raw, &t) == nil && t.Label != "" {
		return &t
	}
	return nil
}

// approvalArgs is the arguments as a JSON object: the contract's
// arguments may be the object itself or its text.
func approvalArgs(raw json.RawMessage) json.RawMessage {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil && json.Valid([]byte(s)) {
			return json.RawMessage(s)
		}
	}
	if len(raw) == 0 {
		return json.RawMessage("{}")
	}
	return raw
}
