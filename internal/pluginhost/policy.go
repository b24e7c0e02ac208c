package pluginhost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/hearth-agent/hearth/internal/scope"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/wire"
)

// A process plugin's policy is the same as a compiled-in plugin's:
//
//   - Its manifest (the one plugin.json names with defaultModes, and the
//     one the plugin sends at initialize) is applied as kernel.LoadPlugin
//     applies a compiled-in plugin's. While the handshake runs, every
//     effect of the plugin's tools is off (the user's own per-tool modes
//     still apply), so no tool runs before its manifest is in force.
//   - A plugin that guards calls (plugin.json "decisionHook", or a hook it
//     registered) keeps a stand-in hook from Start until it is stopped:
//     while it is starting, restarting or down, calls are held up to the
//     hook deadline, then refused. Until its first handshake every plugin
//     counts as a guard; one that fails before it and declares no hook is
//     released.

// declaresHook reports whether plugin.json says the plugin guards calls:
// "decisionHook": true, or for xbot a PreToolUse hook in contributes.hooks.
func (m *Manifest) declaresHook() bool {
	if m.DecisionHook {
		return true
	}
	if len(m.Contributes) == 0 || m.Script() { // a script's hooks only observe
		return false
	}
	var c struct {
		Hooks []struct {
			Event string `json:"event"`
		} `json:"hooks"`
	}
	if json.Unmarshal(m.Contributes, &c) != nil {
		return false
	}
	for _, h := range c.Hooks {
		if h.Event == "PreToolUse" {
			return true
		}
	}
	return false
}

// hooked records that the plugin registered a decision hook in this run.
func (p *Process) hooked() {
	p.mu.Lock()
	p.hooks++
	p.guards = true
	p.mu.Unlock()
}

// guarded records, after a handshake, whether the plugin guards calls.
func (p *Process) guarded() {
	p.mu.Lock()
	p.guards = p.m.DecisionHook || p.hooks > 0
	p.mu.Unlock()
}

// guarding reports whether the plugin guards calls.
func (p *Process) guarding() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.guards
}

// down withdraws the plugin after its process ended without Stop. A plugin
// that guards calls is suspended instead: its hooks refuse until it is
// back (with hold, calls wait for that up to the hook deadline).
func (p *Process) down(err error, hold bool) {
	if !p.guarding() {
		p.opts.Host.Withdraw(p.name)
		return
	}
	reason := "it is not running"
	if err != nil {
		reason = "it is not running: " + err.Error()
	}
	p.opts.Host.Suspend(p.name, reason, hold)
}

// pendingManifest is in force during the handshake: every effect off.
func (p *Process) pendingManifest() sdk.Manifest {
	modes := map[sdk.Effect]sdk.Mode{}
	for _, e := range sdk.Effects() {
		modes[e] = sdk.ModeOff
	}
	return sdk.Manifest{ID: p.name, Name: p.name, Version: "0.0.0", DefaultModes: modes}
}

// applyManifest puts the plugin's manifest in force after its handshake:
// the one it sent (nil for none), with plugin.json's default modes where
// they are stricter. Dynamic instructions and context are asked of the
// plugin before each turn, within the stage deadline.
func (p *Process) applyManifest(conn *wire.Conn, w *wire.Manifest) error {
	m := sdk.Manifest{ID: p.name, Name: p.name, Version: "0.0.0"}
	if w != nil {
		m = w.Manifest
		m.InstructionsFunc, m.Context = nil, nil
		if w.DynamicInstructions {
			fallback := m.Instructions
			m.InstructionsFunc = func() string {
				ctx, cancel := context.WithTimeout(context.Background(), p.opts.StageTimeout)
				defer cancel()
				var res wire.TextResult
				if err := conn.Call(ctx, wire.MethodInstructions, struct{}{}, &res); err != nil {
					p.log.Warn("plugin instructions failed", "err", err)
					return fallback
				}
				return res.Text
			}
		}
		if w.HasContext {
			m.Context = func(ctx context.Context, in sdk.ContextInput) (string, error) {
				var res wire.TextResult
				token, end := p.calls.open(scope.From(ctx))
				defer end()
				err := conn.Call(ctx, wire.MethodContext, wire.ContextParams{Query: in.Query, CallToken: token}, &res)
				return res.Text, err
			}
		}
	}
	m.DefaultModes = stricterModes(m.DefaultModes, p.m.DefaultModes)
	if err := p.applyPKU(conn, w); err != nil {
		return err
	}
	return p.opts.Host.SetManifest(p.name, m)
}

// stricterModes merges two sets of default modes, effect by effect, the
// stricter mode winning (off > ask > auto).
func stricterModes(a, b map[sdk.Effect]sdk.Mode) map[sdk.Effect]sdk.Mode {
	if len(b) == 0 {
		return a
	}
	rank := map[sdk.Mode]int{sdk.ModeAuto: 0, sdk.ModeAsk: 1, sdk.ModeOff: 2}
	out := make(map[sdk.Effect]sdk.Mode, len(a)+len(b))
	for e, m := range a {
		out[e] = m
	}
	for e, m := range b {
		if cur, ok := out[e]; !ok || rank[m] > rank[cur] {
			out[e] = m
		}
	}
	return out
}

// hookWithoutRegistration is the error of a plugin whose plugin.json says
// "decisionHook": true but that registered none: it cannot guard what it
// promised to. (xbot's contributes.hooks is documentation in xbot, so a
// stale one is only logged.)
func (p *Process) hookWithoutRegistration() error {
	p.mu.Lock()
	n := p.hooks
	p.mu.Unlock()
	switch {
	case n > 0 || !p.m.declaresHook():
		return nil
	case p.m.DecisionHook:
		return errors.New("its plugin.json declares a decision hook (\"decisionHook\": true), but it registered none")
	}
	p.log.Warn("plugin.json lists a PreToolUse hook in contributes.hooks, but the plugin registered none; it does not guard calls")
	return nil
}

// xbotPreToolHook is an xbot PreToolUse hook as a decision hook: the
// plugin is asked about each call whose tool matches, and its decision
// (deny, ask; allow, defer or no hookResult allow, as in xbot) is the
// hook's verdict. An error, a timeout or an unknown decision refuses.
func (p *Process) xbotPreToolHook(link *xbotLink, h xbotHook, m xbotMatcher, timeout time.Duration) sdk.DecisionHook {
	return func(ctx context.Context, tc *sdk.ToolContext, tool string, args map[string]any) (sdk.HookDecision, error) {
		local := p.xbotToolName(tool)
		if !m.matchTool(tool, local) {
			return sdk.HookDecision{Verdict: sdk.VerdictAllow}, nil
		}
		input, err := json.Marshal(args)
		if err != nil {
			return sdk.HookDecision{}, err
		}
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		var channel, chat string
		if tc != nil {
			channel, chat = tc.Channel, tc.ChatID
		}
		resp, err := link.exchange(ctx, xbotRequest{Method: "hook", Params: map[string]any{
			"event": h.Event, "toolName": local, "toolInput": string(input),
			"sessionId": channel + "/" + chat, "channel": channel, "chatId": chat,
		}})
		switch {
		case errors.Is(err, context.DeadlineExceeded):
			return sdk.HookDecision{}, fmt.Errorf("hook of plugin %s did not answer in time", p.m.ID)
		case errors.Is(err, io.EOF):
			return sdk.HookDecision{}, fmt.Errorf("plugin %s is not running", p.m.ID)
		case err != nil:
			return sdk.HookDecision{}, err
		case resp.Error != "":
			return sdk.HookDecision{}, fmt.Errorf("hook of plugin %s failed: %s", p.m.ID, resp.Error)
		case resp.HookResult == nil:
			return sdk.HookDecision{Verdict: sdk.VerdictAllow}, nil // xbot: missing means allow
		}
		r := resp.HookResult
		msg := r.Message
		if msg == "" {
			msg = "refused by plugin " + p.m.ID
		}
		switch r.Decision {
		case "deny":
			return sdk.HookDecision{Verdict: sdk.VerdictDeny, Reason: msg}, nil
		case "ask":
			return sdk.HookDecision{Verdict: sdk.VerdictAsk, Reason: msg}, nil
		case "allow", "defer", "":
			return sdk.HookDecision{Verdict: sdk.VerdictAllow}, nil
		}
		return sdk.HookDecision{}, fmt.Errorf("hook of plugin %s answered decision %q; want allow, ask, deny or defer", p.m.ID, r.Decision)
	}
}
