package kernel

import (
	"context"
	"slices"
	"strings"

	"github.com/hearth-agent/hearth/internal/policy"
	"github.com/hearth-agent/hearth/internal/scope"
	"github.com/hearth-agent/hearth/sdk"
)

// conversation returns the memory scope of the conversation in answers
// (scope.Conversation): the owner's own when the input is marked as the
// owner's (Input.Owner: the web UI, the HTTP API) in a session of one of
// the owner's own channels (the policy's LocalChannels), or the requester
// is a person whose role is the owner. A plugin's injection is never the
// owner's, and without a policy engine nobody is but a marked input.
//
// The owner's words typed into a session of a chat app (a group, or a
// private chat with someone else) are not the owner's private scope:
// that session's history is read by its other people's later turns, so
// recalling the owner's private memories into it would show them there.
// They act in the chat's own scope instead (the chat id alone, never a
// user's or a group's scope, which people of that chat app could name).
func (k *Kernel) conversation(in Input) scope.Scope {
	if in.Plugin == "" && in.Owner && !k.ownerChannel(in.Channel) {
		return scope.Conversation(in.Channel, in.ChatID, "", "", false)
	}
	owner := in.Plugin == "" && (in.Owner || k.cfg.Policy != nil &&
		k.cfg.Policy.RoleOf(policy.Requester{Channel: in.Channel, Group: in.GroupID, User: in.UserID}) == policy.Owner)
	return scope.Conversation(in.Channel, in.ChatID, in.UserID, in.GroupID, owner)
}

// ownerChannel reports whether channel's only person is the owner (the
// policy's LocalChannels: the terminal, the web UI...). Without a policy
// engine every channel counts as the owner's.
func (k *Kernel) ownerChannel(channel string) bool {
	if k.cfg.Policy == nil {
		return true
	}
	return slices.ContainsFunc(k.cfg.Policy.LocalChannels, func(c string) bool { return strings.EqualFold(c, channel) })
}

// bindHookScope wraps a decision hook so that it runs with its call's
// conversation scope (the turn's, from ctx) bound to a goroutine of its
// own (scope.Run), as a tool handler does (RegisterTool).
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
