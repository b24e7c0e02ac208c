package server

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/hearth-agent/hearth/internal/approvals"
	"github.com/hearth-agent/hearth/internal/policy"
)

// Approval is a pending approval request, whichever channel asked it.
type Approval struct {
	ID        int64  `json:"id"`
	SessionID int64  `json:"session_id"`
	Channel   string `json:"channel"`
	Tool      string `json:"tool"`  // model-visible name
	Title     string `json:"title"` // the tool's title for people
	Effect    string `json:"effect"`
	// Target is what the call acts on (a payee, a file), when known.
	Target    string          `json:"target,omitempty"`
	Arguments json.RawMessage `json:"arguments"` // the exact validated arguments
	Reason    string          `json:"reason"`    // why approval is needed
	// RequestedBy is who asked: channel:user, or plugin:ID@channel:user
	// when a plugin's input did.
	RequestedBy string    `json:"requested_by"`
	ExpiresAt   time.Time `json:"expires_at"`
	// Grant marks a grant tool: "always" gives lasting access.
	Grant bool `json:"grant"`
	// ConfirmAlways says "always" must be sent with "confirm": "always"
	// (spending, publishing, granting).
	ConfirmAlways bool `json:"confirm_always"`
}

// ApprovalList is GET /v1/approvals's answer, oldest first.
type ApprovalList struct {
	Approvals []Approval `json:"approvals"`
}

// Decision is POST /v1/approvals/{id}'s body.
type Decision struct {
	Answer string `json:"answer"` // once, always or deny
	// Confirm must be "always" to answer always where the approval's
	// confirm_always is set.
	Confirm string `json:"confirm,omitempty"`
}

// Decided is POST /v1/approvals/{id}'s answer.
type Decided struct {
	ID     int64  `json:"id"`
	Answer string `json:"answer"`
}

func approvalOf(p approvals.Pending, sessionID int64) Approval {
	req := p.Request
	a := Approval{ID: req.ID, SessionID: sessionID, Channel: p.Channel, Tool: req.Tool, Title: req.Title,
		Effect: string(req.Effect), Arguments: req.Args, Reason: req.Reason, ExpiresAt: req.Expires.UTC(),
		Grant: req.Grant, ConfirmAlways: approvals.NeedsConfirm(&req)}
	if req.Target != nil {
		a.Target = req.Target.Label
	}
	if len(a.Arguments) == 0 {
		a.Arguments = json.RawMessage("{}")
	}
	rq := req.Requests
	a.RequestedBy = rq.Channel + ":" + rq.User
	if rq.Plugin != "" {
		a.RequestedBy = "plugin:" + rq.Plugin + "@" + a.RequestedBy
	}
	return a
}

func (s *Server) approvalRoutes() []route {
	return []route{
		{method: "GET", path: "/v1/approvals", summary: "Every pending approval, whichever channel asked it.", out: ApprovalList{}, h: s.listApprovals},
		{method: "POST", path: "/v1/approvals/{id}", summary: "Answer a pending approval: once, always or deny. The first answer wins.",
			in: Decision{}, out: Decided{}, h: s.decideApproval},
	}
}

func (s *Server) listApprovals(w http.ResponseWriter, r *http.Request) {
	c := s.coreState()
	pending := c.broker.Pending()
	out := ApprovalList{Approvals: make([]Approval, len(pending))}
	for i, p := range pending {
		out.Approvals[i] = approvalOf(p, s.sessionID(c, p.Channel, p.ChatID))
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) decideApproval(w http.ResponseWriter, r *http.Request) {
	c := s.coreState()
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		writeError(w, http.StatusNotFound, "no_approval", "no pending approval "+strconv.Quote(r.PathValue("id")))
		return
	}
	var in Decision
	if !decodeJSON(w, r, &in) {
		return
	}
	answer := policy.Answer(in.Answer)
	switch answer {
	case policy.AllowOnce, policy.AllowAlways, policy.Refuse:
	default:
		writeError(w, http.StatusBadRequest, "invalid_answer", `answer must be "once", "always" or "deny"`)
		return
	}
	if p, ok := c.broker.Get(id); ok && answer == policy.AllowAlways && approvals.NeedsConfirm(&p.Request) && in.Confirm != "always" {
		writeError(w, http.StatusBadRequest, "confirm_required",
			`"always" gives lasting permission to spend, publish or grant access: send "confirm": "always" as well`)
		return
	}
	by := "api"
	if sameOriginBrowser(r) {
		by = "web"
	}
	err = c.broker.Decide(id, answer, by)
	switch {
	case errors.Is(err, approvals.ErrNotFound):
		writeError(w, http.StatusNotFound, "no_approval", "no pending approval "+strconv.FormatInt(id, 10))
	case errors.Is(err, approvals.ErrAlreadyDecided):
		writeError(w, http.StatusConflict, "already_decided", "this approval was already answered, or it expired")
	case err != nil:
		writeError(w, http.StatusBadRequest, "invalid_answer", err.Error())
	default:
		writeJSON(w, http.StatusOK, Decided{ID: id, Answer: string(answer)})
	}
}
