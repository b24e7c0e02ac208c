// Package policy decides whether a tool call may run: from the tool's
// effect (declared, and resolved from the arguments), the user's per-tool
// override, the plugin's default modes, who started the call, whether the
// turn is tainted by untrusted text, and what the requester's role allows.
// It fails closed: anything unknown or broken denies.
package policy

import (
	"fmt"

	"github.com/hearth-agent/hearth/sdk"
)

// Verdict is the outcome of a decision. Verdicts are ordered: when several
// apply, the greatest wins (deny beats ask beats allow).
type Verdict uint8

// The verdicts.
const (
	Allow Verdict = iota
	Ask
	Deny
)

func (v Verdict) String() string {
	switch v {
	case Allow:
		return "allow"
	case Ask:
		return "ask"
	default:
		return "deny"
	}
}

// EffectSet is a set of effects.
type EffectSet uint8

// AllEffects contains every effect; ReadOnly only read.
const (
	ReadOnly EffectSet = 1 << iota
	writeBit
	moneyBit
	publicBit
	AllEffects = ReadOnly | writeBit | moneyBit | publicBit
)

func effectBit(e sdk.Effect) EffectSet {
	switch e {
	case sdk.EffectRead:
		return ReadOnly
	case sdk.EffectWrite:
		return writeBit
	case sdk.EffectMoney:
		return moneyBit
	case sdk.EffectPublic:
		return publicBit
	}
	return 0
}

// Has reports whether e is in the set. An unknown effect is in no set.
func (s EffectSet) Has(e sdk.Effect) bool { b := effectBit(e); return b != 0 && s&b != 0 }

// With returns the set with e added.
func (s EffectSet) With(e sdk.Effect) EffectSet { return s | effectBit(e) }

// SetOf returns the set of the given effects.
func SetOf(es ...sdk.Effect) EffectSet {
	var s EffectSet
	for _, e := range es {
		s = s.With(e)
	}
	return s
}

// Input is everything a decision depends on.
type Input struct {
	// Effect is the tool's declared effect; empty or unknown counts as
	// write.
	Effect sdk.Effect
	// Resolved is the effect ResolveEffect found for this call, if any;
	// it is checked too, and the stricter decision wins.
	Resolved sdk.Effect
	// Override is the user's mode for this tool; empty means none.
	Override sdk.Mode
	// Defaults are the plugin's default modes; missing effects are auto.
	Defaults map[sdk.Effect]sdk.Mode
	// Actor started the call.
	Actor sdk.Actor
	// Tainted: untrusted text entered this turn.
	Tainted bool
	// Allowed are the effects the requester's role may trigger at all.
	Allowed EffectSet
	// The tool's flags.
	Grant, AlwaysAsk, UserOnly bool
}

// Decision is a verdict and why.
type Decision struct {
	Verdict Verdict
	// Effect is the effect the verdict is about.
	Effect sdk.Effect
	// Mode is the mode that applied to Effect.
	Mode sdk.Mode
	// Rule names the rule that decided, for the audit log.
	Rule string
	// Reason explains the verdict to the user and the model.
	Reason string
}

// Rules, as recorded in Decision.Rule.
const (
	RuleUserOnly  = "user-only"
	RuleRole      = "role"
	RuleOff       = "mode-off"
	RuleUser      = "user-action"
	RuleScheduler = "scheduler-cannot-grant"
	RuleGrant     = "grant"
	RuleAlwaysAsk = "always-ask"
	RuleAsk       = "mode-ask"
	RuleTaint     = "tainted-turn"
	RuleAuto      = "mode-auto"
	RuleActor     = "unknown-actor"
)

// Decide returns the decision for in. It allocates nothing on the common
// paths and never panics; every unknown value denies or counts as the
// stricter choice.
func Decide(in *Input) Decision {
	effect := in.Effect
	if !effect.Valid() {
		effect = sdk.EffectWrite
	}
	d := decideOne(in, effect)
	if in.Resolved != "" && in.Resolved != effect {
		resolved := in.Resolved
		if !resolved.Valid() {
			resolved = sdk.EffectWrite
		}
		if r := decideOne(in, resolved); r.Verdict > d.Verdict {
			d = r
		}
	}
	return d
}

// ModeFor returns the mode that applies to effect: the override, else the
// plugin default, else auto. An invalid mode counts as off.
func ModeFor(in *Input, effect sdk.Effect) sdk.Mode {
	m := in.Override
	if m == "" {
		m = in.Defaults[effect]
	}
	if m == "" {
		return sdk.ModeAuto
	}
	if !m.Valid() {
		return sdk.ModeOff
	}
	return m
}

func decideOne(in *Input, e sdk.Effect) Decision {
	mode := ModeFor(in, e)
	d := Decision{Effect: e, Mode: mode}
	deny := func(rule, reason string) Decision {
		d.Verdict, d.Rule, d.Reason = Deny, rule, reason
		return d
	}
	ask := func(rule, reason string) Decision {
		d.Verdict, d.Rule, d.Reason = Ask, rule, reason
		return d
	}
	switch in.Actor {
	case sdk.ActorUser, sdk.ActorAgent, sdk.ActorScheduler:
	default:
		return deny(RuleActor, fmt.Sprintf("unknown caller %q", in.Actor))
	}
	if in.UserOnly && in.Actor != sdk.ActorUser {
		return deny(RuleUserOnly, "only the user can run this tool")
	}
	if !in.Allowed.Has(e) {
		return deny(RuleRole, fmt.Sprintf("the person asking may not trigger %s actions", e))
	}
	if mode == sdk.ModeOff {
		return deny(RuleOff, fmt.Sprintf("%s actions of this tool are turned off", e))
	}
	if in.Actor == sdk.ActorUser {
		d.Verdict, d.Rule = Allow, RuleUser
		return d
	}
	if in.Grant || in.AlwaysAsk {
		rule := RuleAlwaysAsk
		if in.Grant {
			rule = RuleGrant
		}
		if in.Actor == sdk.ActorScheduler {
			return deny(RuleScheduler, "a scheduled task cannot run a tool that needs the user's approval each time")
		}
		return ask(rule, "this tool asks every time")
	}
	if mode == sdk.ModeAsk {
		return ask(RuleAsk, fmt.Sprintf("%s actions of this tool need approval", e))
	}
	if in.Tainted && e != sdk.EffectRead {
		return ask(RuleTaint, "this turn read untrusted content, so "+string(e)+" actions need approval")
	}
	d.Verdict, d.Rule = Allow, RuleAuto
	return d
}
