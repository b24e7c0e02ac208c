package mcpserve

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hearth-agent/hearth/internal/kernel"
	"github.com/hearth-agent/hearth/internal/policy"
	"github.com/hearth-agent/hearth/internal/tools"
	"github.com/hearth-agent/hearth/sdk"
)

// call answers tools/call: the call runs through the kernel's policy, and
// whatever stops it is a result with isError, as the model would see it.
// Only a tool the caller is not offered is a protocol error (invalid
// params, as for a tool the SDK does not know).
func (s *Server) call(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	dc := kernel.DirectCall{
		Requester: s.req, Tool: req.Params.Name, Arguments: req.Params.Arguments,
		CallID: callID(req), Taint: s.taint(req.Session), Approver: refuseApprover,
	}
	var ask *askState
	if canElicit(req.Session) {
		ask = &askState{answers: req.Params.InputResponses, state: req.Params.RequestState, ss: req.Session,
			states: s.states, session: s.session(req.Session).id, tool: req.Params.Name,
			argsHash: policy.ArgsHash(req.Params.Name, req.Params.Arguments)}
		dc.Approver = ask.approver
	}
	if token := req.Params.GetProgressToken(); token != nil && req.Session != nil {
		ss := req.Session
		dc.Progress = func(done, total float64, message string) {
			// Best effort: a client that went away misses it.
			_ = ss.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
				ProgressToken: token, Progress: done, Total: total, Message: message})
		}
	}
	res, err := s.k.CallTool(ctx, dc)
	if err == nil && ask != nil && ask.form != nil {
		// The answer is asked for and the call made again with it (the
		// SDK asks older clients itself, newer ones retry; SEP-2322).
		return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{approvalInput: ask.form}, RequestState: ask.issued}, nil
	}
	if errors.Is(err, tools.ErrUnknownTool) {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown tool %q", req.Params.Name)}
	}
	if err != nil {
		return nil, err
	}
	out := &mcp.CallToolResult{IsError: res.IsError, Content: []mcp.Content{&mcp.TextContent{Text: res.Content}}}
	if ir, ok := res.Value.(sdk.ImageResult); ok {
		for _, img := range ir.ResultImages() {
			if len(img.Data) == 0 {
				continue // an http(s) image (sdk.Image.URL): MCP carries bytes only
			}
			out.Content = append(out.Content, &mcp.ImageContent{MIMEType: img.MIMEType, Data: img.Data})
		}
	}
	return out, nil
}

// callID names an MCP call to the tool (ToolContext.CallID): "mcp-" and
// the HTTP session's id, or "mcp" over stdio.
func callID(req *mcp.CallToolRequest) string {
	if req.Extra != nil && req.Extra.Header != nil {
		if id := req.Extra.Header.Get("Mcp-Session-Id"); id != "" {
			return "mcp-" + id
		}
	}
	return "mcp"
}

// canElicit reports whether the client declared it can show forms.
func canElicit(ss *mcp.ServerSession) bool {
	if ss == nil {
		return false
	}
	p := ss.InitializeParams()
	return p != nil && p.Capabilities != nil && p.Capabilities.Elicitation != nil
}

// errCannotAsk says why a call that needs approval was refused for a
// client without elicitation, and how to allow it.
type errCannotAsk struct{ tool string }

func (e errCannotAsk) Error() string {
	return fmt.Sprintf("this MCP client cannot ask you to approve calls (it does not support elicitation). "+
		"To let %[1]s run without asking, run: hearth policy set %[1]s auto"+
		" / 此 MCP 客户端无法请你确认调用（不支持 elicitation）。如要让 %[1]s 不经确认即可运行，请执行：hearth policy set %[1]s auto", e.tool)
}

// refuseApprover answers every approval request of a client that cannot
// ask its user: no.
func refuseApprover(_ context.Context, req *policy.ApprovalRequest) (policy.Answer, error) {
	return "", errCannotAsk{req.Tool}
}

// approvalInput names the approval form among a call's input requests.
const approvalInput = "hearth-approval"

// errAsking ends a call's first round: the approval form goes to the
// client, and the call is made again with the answer.
var errAsking = errors.New("asking the MCP client's user for approval")

// askState is the approval of one tools/call round: the answers and the
// request state the client sent with it, what binds a state to this call,
// and the form (with its state) to send when there is no valid answer.
type askState struct {
	answers mcp.InputResponseMap
	state   string
	ss      *mcp.ServerSession

	states   *approvalStates
	session  string // sessionState.id
	tool     string
	argsHash string // policy.ArgsHash of the call's arguments as sent

	form   *mcp.ElicitParams
	issued string // the state sent with form
}

// multiRoundTrip is the protocol version from which a server may not send
// requests of its own while it answers one: it returns input requests
// instead (SEP-2322), as the SDK decides.
const multiRoundTrip = "2026-07-28"

// approver answers from the client's answer to the form, if Hearth sent
// that form for this very call in this session (a valid, unused request
// state whose arguments are this call's; see state.go); any other answer
// is ignored. Without one it asks: a client of an older protocol with
// elicitation/create while the call waits; a newer one by ending this
// round with the form and a fresh state, the call made again with the
// answer (the approval list and the audit log then show the first round
// as refused). Arguments arrive masked (the kernel masks secrets before
// any approver sees them).
func (a *askState) approver(ctx context.Context, req *policy.ApprovalRequest) (policy.Answer, error) {
	if r, ok := a.answers[approvalInput].(*mcp.ElicitResult); ok && a.states.redeem(a.state, a.session, a.tool, a.argsHash) {
		return answerOf(r), nil
	}
	form, err := approvalForm(req)
	if err != nil {
		return "", err
	}
	if p := a.ss.InitializeParams(); p != nil && p.ProtocolVersion < multiRoundTrip {
		r, err := a.ss.Elicit(ctx, form)
		if err != nil {
			return "", fmt.Errorf("asking through the MCP client: %w", err)
		}
		return answerOf(r), nil
	}
	a.form, a.issued = form, a.states.issue(a.session, a.tool, a.argsHash, req.Expires)
	return "", errAsking
}

// approvalForm is the yes/no form of an approval request, or
// errTooLongToShow when its arguments cannot be shown in full.
func approvalForm(req *policy.ApprovalRequest) (*mcp.ElicitParams, error) {
	msg, err := approvalMessage(req)
	if err != nil {
		return nil, err
	}
	return &mcp.ElicitParams{
		Mode:    "form",
		Message: msg,
		RequestedSchema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"allow": map[string]any{"type": "boolean", "title": "Allow this call / 允许此次调用", "default": true},
				"always": map[string]any{"type": "boolean", "title": "Always allow " + req.Tool + " / 以后总是允许",
					"default": false},
			},
			"required": []string{"allow"},
		},
	}, nil
}

// answerOf reads the client's answer to an approval form: only an
// accepted form with allow true allows.
func answerOf(res *mcp.ElicitResult) policy.Answer {
	if res == nil || res.Action != "accept" {
		return policy.Refuse
	}
	if allow, _ := res.Content["allow"].(bool); !allow {
		return policy.Refuse
	}
	if always, _ := res.Content["always"].(bool); always {
		return policy.AllowAlways
	}
	return policy.AllowOnce
}

// approvalMessage is the form's text: the tool, its effect, why, and
// every argument (masked; see argsview.go).
func approvalMessage(req *policy.ApprovalRequest) (string, error) {
	args, err := showArgs(req.Tool, req.Args)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Hearth asks: allow %s", escapeHidden(req.Title))
	if req.Title != req.Tool {
		fmt.Fprintf(&b, " (%s)", escapeHidden(req.Tool))
	}
	fmt.Fprintf(&b, "? Effect: %s.", req.Effect)
	if req.Target != nil && req.Target.Label != "" {
		fmt.Fprintf(&b, " Target: %s.", escapeHidden(req.Target.Label))
	}
	if req.Reason != "" {
		fmt.Fprintf(&b, " Why asked: %s.", escapeHidden(req.Reason))
	}
	b.WriteString("\nArguments / 参数:\n" + args)
	fmt.Fprintf(&b, "Hearth 请求确认：是否允许 %s（%s）？", escapeHidden(req.Title), req.Effect)
	return b.String(), nil
}
