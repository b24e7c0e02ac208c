package policy

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/internal/store/storetest"
	"github.com/hearth-agent/hearth/internal/tools"
	"github.com/hearth-agent/hearth/sdk"
)

// An approval request that cannot be stored is not asked and its call is
// refused, saying why; an answer that cannot be recorded still decides
// its call, and the stored request is left as it was. Once the store
// heals, requests and answers are recorded again.
func TestApprovalRecordFailures(t *testing.T) {
	ctx := context.Background()
	f := storetest.Open(t)
	eng, err := NewEngine(ctx, f, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	eng.SetDefaults("shop", map[sdk.Effect]sdk.Mode{sdk.EffectMoney: sdk.ModeAsk})
	tool, err := tools.NewRegistry().Register("shop", sdk.ToolDef{Name: "buy", Effect: sdk.EffectMoney},
		func(context.Context, *sdk.ToolContext, map[string]any, json.RawMessage) (any, error) { return nil, nil })
	if err != nil {
		t.Fatal(err)
	}
	asked := 0
	c := &Call{
		Tool: tool, Args: map[string]any{"item": "car"}, Raw: json.RawMessage(`{"item":"car"}`),
		TC:        &sdk.ToolContext{Actor: sdk.ActorAgent, Turn: &sdk.TurnInfo{SessionID: "terminal/"}},
		Requester: Requester{Channel: "terminal", User: "owner"},
		Approver:  func(context.Context, *ApprovalRequest) (Answer, error) { asked++; return AllowOnce, nil },
	}
	status := func(id int64) string {
		t.Helper()
		a, err := f.GetApproval(ctx, id)
		if err != nil {
			return "none"
		}
		return a.Status + " by " + a.DecidedBy
	}

	f.FailAfter("CreateApproval", 0, errors.New("database or disk is full"))
	res := eng.Authorize(ctx, c)
	if res.Allowed || asked != 0 || !strings.Contains(res.Reason, "could not be stored") || !strings.Contains(res.Reason, "disk is full") {
		t.Fatalf("request not stored: %+v, asked %d times", res, asked)
	}
	if got := status(1); got != "none" {
		t.Fatalf("request 1: %s", got)
	}

	f.Heal()
	f.FailAfter("DecideApproval", 0, nil)
	if res := eng.Authorize(ctx, c); !res.Allowed || res.DecidedBy != "user" || asked != 1 {
		t.Fatalf("answer not recorded: %+v, asked %d times", res, asked)
	}
	if got := status(1); got != "pending by " {
		t.Fatalf("request 1 after a failed answer: %s", got)
	}

	f.Heal()
	if res := eng.Authorize(ctx, c); !res.Allowed || asked != 2 {
		t.Fatalf("healed: %+v, asked %d times", res, asked)
	}
	if got := status(2); got != "allowed by user" {
		t.Fatalf("request 2: %s", got)
	}
}
