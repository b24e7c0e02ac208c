package server

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/hearth-agent/hearth/internal/store"
)

// TraceList is GET /v1/traces' answer: turn traces, newest first, each
// without its stages, model calls and tool calls (GET /v1/traces/{id} has
// them).
type TraceList struct {
	Traces []TraceSummary `json:"traces"`
}

// TraceSummary is one turn in a list of traces.
type TraceSummary struct {
	ID         string           `json:"id"`
	SessionID  int64            `json:"session_id,omitempty"`
	Channel    string           `json:"channel"`
	ChatID     string           `json:"chat_id"`
	Plugin     string           `json:"plugin,omitempty"`
	Untrusted  string           `json:"untrusted,omitempty"` // where the input came from when a third party's
	Input      string           `json:"input"`
	Answer     string           `json:"answer,omitempty"`
	Started    time.Time        `json:"started"`
	DurationMS float64          `json:"duration_ms"`
	Outcome    string           `json:"outcome"`
	Error      string           `json:"error,omitempty"`
	Usage      store.TraceUsage `json:"usage"`
	Cost       *store.TraceCost `json:"cost,omitempty"`
	ModelCalls int              `json:"model_calls"`
	ToolCalls  int              `json:"tool_calls"`
}

func (s *Server) traceRoutes() []route {
	return []route{
		{method: "GET", path: "/v1/traces", out: TraceList{}, h: s.listTraces,
			summary: "Turn traces, newest first: ?session_id=N, ?channel=&chat_id=, ?before=RFC3339, ?limit=N (default 50, at most 1000)."},
		{method: "GET", path: "/v1/traces/{id}", out: store.Trace{}, h: s.getTrace,
			summary: "One turn's trace: its stages, model calls (tokens, latency, cost) and tool calls (arguments, results, decisions, durations)."},
	}
}

func (s *Server) listTraces(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f := store.TraceFilter{Channel: q.Get("channel"), ChatID: q.Get("chat_id")}
	bad := map[string]string{}
	if v := q.Get("session_id"); v != "" {
		id, err := strconv.ParseInt(v, 10, 64)
		if err != nil || id <= 0 {
			bad["session_id"] = "not a session id"
		}
		f.SessionID = id
	}
	if v := q.Get("before"); v != "" {
		t, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			bad["before"] = "not an RFC 3339 time"
		}
		f.Before = t
	}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 || n > 1000 {
			bad["limit"] = "a number from 1 to 1000"
		}
		f.Limit = n
	}
	if len(bad) > 0 {
		writeFieldErrors(w, "invalid query", bad)
		return
	}
	list, err := s.app.Store.Traces(r.Context(), f)
	if err != nil {
		s.log.Error("listing traces", "err", err)
		writeError(w, http.StatusInternalServerError, "store_error", "could not read the traces")
		return
	}
	out := TraceList{Traces: make([]TraceSummary, 0, len(list))}
	for _, t := range list {
		out.Traces = append(out.Traces, TraceSummary{ID: t.ID, SessionID: t.SessionID, Channel: t.Channel, ChatID: t.ChatID,
			Plugin: t.Plugin, Untrusted: t.Untrusted, Input: t.Input, Answer: t.Answer, Started: t.Started, DurationMS: t.DurationMS,
			Outcome: t.Outcome, Error: t.Error, Usage: t.Usage, Cost: t.Cost,
			ModelCalls: len(t.ModelCalls), ToolCalls: len(t.ToolCalls)})
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) getTrace(w http.ResponseWriter, r *http.Request) {
	t, err := s.app.Store.Trace(r.Context(), r.PathValue("id"))
	switch {
	case errors.Is(err, store.ErrNoTrace):
		writeError(w, http.StatusNotFound, "no_trace", "no trace has that id")
	case err != nil:
		s.log.Error("reading a trace", "err", err)
		writeError(w, http.StatusInternalServerError, "store_error", "could not read the trace")
	default:
		writeJSON(w, http.StatusOK, t)
	}
}
