package kernel

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/hearth-agent/hearth/internal/policy"
	"github.com/hearth-agent/hearth/internal/scope"
	"github.com/hearth-agent/hearth/sdk"
)

// conversation returns the memory scope of the conversation in answers
// (scope.Conversation): the owner's own when the input is marked as the
// owner's (Input.Owner: the web UI, the HTTP API) or the requester is a
// person whose role is the owner. A plugin's injection is never the
// owner's, and without a policy engine nobody is but a marked input.
func (k *Kernel) conversation(in Input) scope.Scope {
	owner := in.Plugin == "" && (in.Owner || k.cfg.Policy != nil &&
		k.cfg.Policy.RoleOf(policy.Requester{Channel: in.Channel, Group: in.GroupID, User: in.UserID}) == policy.Owner)
	return scope.Conversation(in.Channel, in.ChatID, in.UserID, in.GroupID, owner)
}

// bindScope wraps an in-process tool handler so that it runs with its
// call's conversation scope (the turn's, from ctx) bound to a goroutine
// of its own (scope.Run): HomeAgent's memory API, which takes no
// context, acts in that conversation, from the handler and from the
// goroutines it starts, and only while the call runs.
func bindScope(h sdk.RawToolHandler) sdk.RawToolHandler {
	if h == nil {
		return nil
	}
	return func(ctx context.Context, tc *sdk.ToolContext, args map[string]any, raw json.RawMessage) (v any, err error) {
		scope.Run(scope.From(ctx), func() { v, err = h(ctx, tc, args, raw) })
		return v, err
	}
}

// bindHookScope is bindScope for a decision hook.
func bindHookScope(h sdk.DecisionHook) sdk.DecisionHook {
	if h == nil {
		return nil
	}
	return func(ctx context.Context, tc *sdk.ToolContext, tool string, args map[string]any) (d sdk.HookDecision, err error) {
		scope.Run(scope.From(ctx), func() { d, err = h(ctx, tc, tool, args) })
		return d, err
	}
}

// Capable reports whether plugin declared the capability group (its
// manifest's Capabilities, or plugin.json's for a child process).
func (k *Kernel) Capable(plugin, group string) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	return slices.Contains(k.caps[plugin], group)
}
