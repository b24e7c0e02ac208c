package main

import (
	"encoding/json"
	"io"

	"github.com/hearth-agent/hearth/internal/store"
)

// writeJSON prints v as indented JSON, HTML characters unescaped; it is
// the exit status.
func writeJSON(w io.Writer, v any) int {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return 1
	}
	return 0
}

// auditRecord is one tool call in `hearth audit --json`.
type auditRecord struct {
	At         string `json:"at"` // RFC 3339, with milliseconds
	Session    string `json:"session"`
	Channel    string `json:"channel"`
	User       string `json:"user"`
	Role       string `json:"role"`
	Actor      string `json:"actor"`
	Tool       string `json:"tool"`
	Effect     string `json:"effect"`
	ArgsHash   string `json:"args_hash"`
	Decision   string `json:"decision"`
	Rule       string `json:"rule"`
	DecidedBy  string `json:"decided_by"`
	DurationMS int64  `json:"duration_ms"`
	Outcome    string `json:"outcome"`
}

// writeAuditJSON prints entries as `hearth audit --json` does: an array,
// empty when there are none.
func writeAuditJSON(w io.Writer, entries []store.AuditEntry) int {
	out := make([]auditRecord, 0, len(entries))
	for _, e := range entries {
		out = append(out, auditRecord{
			At: e.At.UTC().Format("2006-01-02T15:04:05.000Z07:00"), Session: e.Session, Channel: e.Channel,
			User: e.User, Role: e.Role, Actor: e.Actor, Tool: e.Tool, Effect: e.Effect, ArgsHash: e.ArgsHash,
			Decision: e.Decision, Rule: e.Rule, DecidedBy: e.DecidedBy, DurationMS: e.Duration.Milliseconds(),
			Outcome: e.Outcome,
		})
	}
	return writeJSON(w, out)
}
