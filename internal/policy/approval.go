package policy

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/hearth-agent/hearth/internal/store"
	"github.com/hearth-agent/hearth/sdk"
)

// Answer is a user's answer to an approval prompt.
type Answer string

// The answers.
const (
	AllowOnce   Answer = "once"   // run this call
	AllowAlways Answer = "always" // run it, and set the tool to auto from now on
	Refuse      Answer = "deny"   // do not run it
)

// ApprovalRequest is what a channel shows the user.
type ApprovalRequest struct {
	ID       int64
	Tool     string     // model-visible name
	Title    string     // the tool's title for users, or its name
	Effect   sdk.Effect // the effect that needs approval
	Target   *sdk.Target
	Args     json.RawMessage // the exact validated arguments
	Reason   string          // why approval is needed
	Expires  time.Time
	Grant    bool // a grant tool: "always" gives lasting access
	Session  string
	Actor    sdk.Actor
	Requests Requester
}

// Approver asks a person. It returns when they answer or ctx ends (the
// request expired or the turn was cancelled); an error means nobody
// answered.
type Approver func(ctx context.Context, req *ApprovalRequest) (Answer, error)

// ErrNoApprover is the reason given when a call needs approval and the
// channel has nobody to ask (a script, a scheduled run).
var ErrNoApprover = errors.New("no one to ask for approval")

// approve stores an approval request, asks through the channel, and
// records the answer.
func (e *Engine) approve(ctx context.Context, c *Call, res Result, reason string, target *sdk.Target) Result {
	effect := res.Decision.Effect
	now := e.now()
	if c.Requester.Plugin != "" {
		// Whoever is asked must know the request is not their own.
		reason = fmt.Sprintf("asked by plugin %q, not by you: %s", c.Requester.Plugin, reason)
	}
	req := &ApprovalRequest{
		Tool: c.Tool.Name, Title: c.Tool.Def.Title, Effect: effect, Target: target, Args: c.Raw,
		Reason: reason, Expires: now.Add(e.ApprovalTTL), Grant: c.Tool.Def.Grant,
		Actor: c.TC.Actor, Requests: c.Requester,
	}
	if req.Title == "" {
		req.Title = c.Tool.Name
	}
	if c.TC.Turn != nil {
		req.Session = c.TC.Turn.SessionID
	}
	label := ""
	if target != nil {
		label = target.Label
	}
	requester := c.Requester.Channel + ":" + c.Requester.User
	if c.Requester.Plugin != "" {
		requester = string(PluginRole(c.Requester.Plugin)) + "@" + requester // a plugin asked, not the user
	}
	id, err := e.st.CreateApproval(ctx, store.Approval{
		Tool: c.Tool.Name, Effect: string(effect), Target: label, ArgsHash: res.ArgsHash,
		Requester: requester, Session: req.Session,
		Created: now, Expires: req.Expires,
	})
	if err != nil {
		res.Reason = "the approval request could not be stored: " + err.Error()
		return res
	}
	req.ID = id
	record := func(status, by string) {
		if err := e.st.DecideApproval(context.WithoutCancel(ctx), id, status, by, e.now()); err != nil {
			e.log.Warn("recording an approval answer failed", "id", id, "err", err)
		}
	}
	if c.Approver == nil || c.TC.Actor == sdk.ActorScheduler {
		record("denied", "policy")
		res.Reason = fmt.Sprintf("%s needs approval (%s), and there is no one here to ask. "+
			"To allow it without asking, run: hearth policy set %s auto", c.Tool.Name, reason, c.Tool.Name)
		return res
	}
	actx, cancel := context.WithDeadline(ctx, req.Expires)
	answer, err := c.Approver(actx, req)
	expired := errors.Is(actx.Err(), context.DeadlineExceeded)
	cancel()
	switch {
	case err == nil && answer == AllowOnce:
		record("allowed", "user")
		res.Allowed, res.DecidedBy, res.Grant = true, "user", string(AllowOnce)
	case err == nil && answer == AllowAlways:
		record("allowed", "user")
		res.Allowed, res.DecidedBy, res.Grant = true, "user", string(AllowAlways)
		if !c.Tool.Def.Grant && !c.Tool.Def.AlwaysAsk {
			if err := e.SetOverride(context.WithoutCancel(ctx), c.Tool.Name, sdk.ModeAuto); err != nil {
				e.log.Warn("saving allow-always failed", "tool", c.Tool.Name, "err", err)
			}
		}
	case expired:
		record("expired", "policy")
		res.Reason = "the approval request expired before anyone answered; the call was not made"
	case err != nil:
		record("denied", "policy")
		res.Reason = "no answer to the approval request: " + err.Error()
	default:
		record("denied", "user")
		res.DecidedBy = "user"
		res.Reason = "the user refused this call"
	}
	return res
}

// ArgsHash identifies a call's exact arguments: a SHA-256 of the tool name
// and the argument JSON.
func ArgsHash(tool string, raw json.RawMessage) string {
	h := sha256.New()
	h.Write([]byte(tool))
	h.Write([]byte{0})
	h.Write(raw)
	return hex.EncodeToString(h.Sum(nil))[:32]
}
