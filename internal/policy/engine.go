package policy

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hearth-agent/hearth/internal/guard"
	"github.com/hearth-agent/hearth/internal/store"
	"github.com/hearth-agent/hearth/internal/tools"
	"github.com/hearth-agent/hearth/sdk"
)

// Role is what a requester is to the agent's owner.
type Role string

// The roles. The owner may trigger every effect (subject to approvals);
// the others only read until the owner grants more.
const (
	Owner  Role = "owner"
	Admin  Role = "admin"
	Member Role = "member"
	Guest  Role = "guest"
)

// pluginRolePrefix starts the role of a plugin's injected inputs.
const pluginRolePrefix = "plugin:"

// PluginRole is the role of the inputs plugin injects ("plugin:<id>"). It
// may trigger only read effects unless the owner grants it more
// (`hearth policy grant plugin:<id> read,write`); it is never the owner.
func PluginRole(plugin string) Role { return Role(pluginRolePrefix + plugin) }

// IsPluginRole reports whether r is a plugin's role.
func IsPluginRole(r string) bool { return strings.HasPrefix(r, pluginRolePrefix) }

// ValidRole reports whether r is one of the four roles or a plugin's role.
func ValidRole(r string) bool {
	switch Role(r) {
	case Owner, Admin, Member, Guest:
		return true
	}
	id, ok := strings.CutPrefix(r, pluginRolePrefix)
	return ok && id != "" && !strings.ContainsAny(id, " \t\n:")
}

// Requester is who is speaking, as the channel reports it.
type Requester struct {
	Channel string
	Group   string // empty in a private chat
	User    string
	// Plugin is the plugin that injected the input, empty for a channel's
	// own. A plugin's input has the plugin's role; in a user's name (a
	// relay), it gets the fewer of the user's and the plugin's rights.
	Plugin string
}

// String describes the requester for people: "alice on qq", or "plugin
// memo" when a plugin asked.
func (r Requester) String() string {
	who := r.User
	if who == "" {
		who = "(no user)"
	}
	s := who + " on " + r.Channel
	if r.Group != "" {
		s += " group " + r.Group
	}
	if r.Plugin != "" {
		if r.User == "" {
			return "plugin " + r.Plugin + " on " + r.Channel
		}
		s = "plugin " + r.Plugin + " for " + s
	}
	return s
}

// Store is what the engine keeps in the database; *store.Store has it.
type Store interface {
	Overrides(ctx context.Context) (map[string]string, error)
	SetOverride(ctx context.Context, tool, mode string) error
	Roles(ctx context.Context) ([]store.RoleAssignment, error)
	Grants(ctx context.Context) ([]store.Grant, error)
	CreateApproval(ctx context.Context, a store.Approval) (int64, error)
	DecideApproval(ctx context.Context, id int64, status, by string, at time.Time) error
	AppendAudit(ctx context.Context, e store.AuditEntry) error
}

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

// Hook is a plugin's decision hook.
type Hook struct {
	Plugin string
	Fn     sdk.DecisionHook
}

// Engine makes the decisions and keeps their records. It is safe for
// concurrent use.
type Engine struct {
	st  Store
	log *slog.Logger
	now func() time.Time

	// ApprovalTTL is how long an approval request waits for an answer
	// before it is denied (default 5 minutes).
	ApprovalTTL time.Duration
	// HookTimeout bounds each decision hook and ResolveEffect call
	// (default 5 s), and how long a call waits for the hooks of a
	// suspended plugin (SuspendHooks); one that runs longer denies.
	HookTimeout time.Duration
	// LocalChannels are channels whose only user is the owner (the
	// terminal, scripts).
	LocalChannels []string

	mu        sync.RWMutex
	overrides map[string]sdk.Mode
	roles     map[store.RoleAssignment]Role // Role field empty in keys
	grants    map[grantKey]EffectSet
	defaults  map[string]map[sdk.Effect]sdk.Mode
	hooks     []Hook

	cat    catalogCache // see catalog.go
	shared bool         // the store is the database other processes change too

	refreshMu   sync.Mutex
	refreshedAt time.Time
	guards      map[string]*hookGuard // plugins whose hooks are not answering
}

// hookGuard stands for the decision hooks of a plugin that is not
// answering (a child process starting, restarting or down): calls its hooks
// would be asked about are held until it is back, or refused.
type hookGuard struct {
	reason string        // why the hooks are not answering, for the refusal
	hold   bool          // wait (up to HookTimeout) for the plugin to come back
	ready  chan struct{} // closed when the plugin is back (or removed)
}

type grantKey struct {
	channel, group string
	role           Role
}

// NewEngine loads the stored overrides, roles and grants.
func NewEngine(ctx context.Context, st Store, log *slog.Logger) (*Engine, error) {
	if log == nil {
		log = slog.Default()
	}
	e := &Engine{st: st, log: log, now: time.Now,
		ApprovalTTL: 5 * time.Minute, HookTimeout: 5 * time.Second,
		LocalChannels: []string{"terminal", "ask"},
		defaults:      map[string]map[sdk.Effect]sdk.Mode{},
		guards:        map[string]*hookGuard{},
	}
	// `hearth policy set` in another process changes the database; the
	// overrides are read again before each decision (see refresh).
	_, e.shared = st.(*store.Store)
	if err := e.Reload(ctx); err != nil {
		return nil, err
	}
	return e, nil
}

// Reload reads the overrides, roles and grants again.
func (e *Engine) Reload(ctx context.Context) error {
	ov, err := e.st.Overrides(ctx)
	if err != nil {
		return fmt.Errorf("loading tool modes: %w", err)
	}
	roles, err := e.st.Roles(ctx)
	if err != nil {
		return fmt.Errorf("loading roles: %w", err)
	}
	grants, err := e.st.Grants(ctx)
	if err != nil {
		return fmt.Errorf("loading grants: %w", err)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.overrides = make(map[string]sdk.Mode, len(ov))
	for tool, m := range ov {
		e.overrides[tool] = sdk.Mode(m)
	}
	e.roles = make(map[store.RoleAssignment]Role, len(roles))
	for _, r := range roles {
		role := Role(r.Role)
		r.Role = ""
		e.roles[r] = role
	}
	e.grants = make(map[grantKey]EffectSet, len(grants))
	for _, g := range grants {
		var set EffectSet
		for _, ef := range g.Effects {
			set = set.With(sdk.Effect(ef))
		}
		e.grants[grantKey{g.Channel, g.Group, Role(g.Role)}] = set
	}
	return nil
}

// SetDefaults records a plugin's default modes (from its manifest), here
// and in the tool catalogue.
func (e *Engine) SetDefaults(plugin string, modes map[sdk.Effect]sdk.Mode) {
	e.mu.Lock()
	if len(modes) == 0 {
		delete(e.defaults, plugin)
	} else {
		e.defaults[plugin] = modes
	}
	e.mu.Unlock()
	e.recordDefaults(plugin, modes)
}

// AddHook adds a plugin's decision hook.
func (e *Engine) AddHook(h Hook) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.hooks = append(e.hooks, h)
}

// RemovePlugin withdraws a plugin's hooks (live or suspended) and
// defaults: the plugin was stopped, disabled or removed on purpose.
func (e *Engine) RemovePlugin(plugin string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.hooks = slices.DeleteFunc(e.hooks, func(h Hook) bool { return h.Plugin == plugin })
	delete(e.defaults, plugin)
	if g := e.guards[plugin]; g != nil {
		delete(e.guards, plugin)
		close(g.ready)
	}
}

// SuspendHooks replaces a plugin's decision hooks by a stand-in that
// refuses: the plugin guards calls (it declared or registered a hook) but
// cannot answer now, because its process is starting, restarting or down.
// Until ResumeHooks or RemovePlugin, every call its hooks would be asked
// about is refused with reason; with hold, the call first waits up to
// HookTimeout for the plugin to come back and is then decided by its
// hooks. Hooks the plugin adds while suspended (during its handshake) are
// asked only once it is resumed.
func (e *Engine) SuspendHooks(plugin, reason string, hold bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.hooks = slices.DeleteFunc(e.hooks, func(h Hook) bool { return h.Plugin == plugin })
	if g := e.guards[plugin]; g != nil {
		g.reason, g.hold = reason, hold
		return
	}
	e.guards[plugin] = &hookGuard{reason: reason, hold: hold, ready: make(chan struct{})}
}

// ResumeHooks ends a plugin's suspension: its hooks (those added since it
// was suspended; none means it no longer guards calls) are asked again,
// including by the calls that were waiting for it.
func (e *Engine) ResumeHooks(plugin string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if g := e.guards[plugin]; g != nil {
		delete(e.guards, plugin)
		close(g.ready)
	}
}

// SetOverride sets (or with "" clears) the user's mode for a tool.
func (e *Engine) SetOverride(ctx context.Context, tool string, mode sdk.Mode) error {
	if mode != "" && !mode.Valid() {
		return fmt.Errorf("unknown mode %q: use auto, ask or off", mode)
	}
	if err := e.st.SetOverride(ctx, tool, string(mode)); err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if mode == "" {
		delete(e.overrides, tool)
	} else {
		e.overrides[tool] = mode
	}
	return nil
}

// Override returns the user's mode for a tool, "" if none.
func (e *Engine) Override(tool string) sdk.Mode {
	e.mu.RLock()
	defer e.mu.RUnlock()
	return e.overrides[tool]
}

// refresh reads the user's overrides again from a shared store, unless it
// did within maxAge, so that a mode set by `hearth policy set` (or "allow
// always" in another Hearth) takes effect in this one. On a read error the
// modes known so far stay in force.
func (e *Engine) refresh(ctx context.Context, maxAge time.Duration) {
	if !e.shared {
		return
	}
	e.refreshMu.Lock()
	defer e.refreshMu.Unlock()
	if maxAge > 0 && time.Since(e.refreshedAt) < maxAge {
		return
	}
	ov, err := e.st.Overrides(ctx)
	if err != nil {
		if ctx.Err() == nil {
			e.log.Warn("reading tool modes failed; using the ones read before", "err", err)
		}
		return
	}
	e.refreshedAt = time.Now()
	modes := make(map[string]sdk.Mode, len(ov))
	for tool, m := range ov {
		modes[tool] = sdk.Mode(m)
	}
	e.mu.Lock()
	e.overrides = modes
	e.mu.Unlock()
}

// ModeOf returns the mode in force for a tool's declared effect and where
// it comes from: "override", "plugin default" or "default".
func (e *Engine) ModeOf(t *tools.Tool) (sdk.Mode, string) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	if m, ok := e.overrides[t.Name]; ok {
		return m, "override"
	}
	if m, ok := e.defaults[t.Plugin][t.Def.EffectiveEffect()]; ok {
		return m, "plugin default"
	}
	return sdk.ModeAuto, "default"
}

// RoleOf returns the requester's role: a plugin's role for input a plugin
// injected (on any channel), the owner on local channels, else the
// assigned role (for the group, then for the channel), else guest.
func (e *Engine) RoleOf(r Requester) Role {
	if r.Plugin != "" {
		return PluginRole(r.Plugin)
	}
	return e.personRole(r)
}

// personRole is RoleOf for the person r names, whoever relayed it.
func (e *Engine) personRole(r Requester) Role {
	if slices.Contains(e.LocalChannels, r.Channel) {
		return Owner
	}
	e.mu.RLock()
	defer e.mu.RUnlock()
	role, ok := e.roles[store.RoleAssignment{Channel: r.Channel, Group: r.Group, User: r.User}]
	if !ok {
		role, ok = e.roles[store.RoleAssignment{Channel: r.Channel, User: r.User}]
	}
	if !ok || strings.HasPrefix(string(role), pluginRolePrefix) {
		return Guest // a plugin's role is not for people
	}
	return role
}

// Allowed returns the effects role may trigger where r speaks: everything
// for the owner; for others the most specific grant (group, channel,
// everywhere), else read only. A plugin's input gets its plugin role's
// grant, and when it speaks for a user, no more than that user may.
func (e *Engine) Allowed(r Requester, role Role) EffectSet {
	if r.Plugin != "" {
		set := e.grantOf(r, PluginRole(r.Plugin))
		if r.User != "" || r.Group != "" {
			person := r
			person.Plugin = ""
			set &= e.Allowed(person, e.personRole(person))
		}
		return set
	}
	if role == Owner {
		return AllEffects
	}
	return e.grantOf(r, role)
}

// grantOf returns the most specific grant of role where r speaks, else
// read only.
func (e *Engine) grantOf(r Requester, role Role) EffectSet {
	e.mu.RLock()
	defer e.mu.RUnlock()
	for _, k := range [...]grantKey{
		{r.Channel, r.Group, role},
		{r.Channel, "", role},
		{"", "", role},
	} {
		if set, ok := e.grants[k]; ok {
			return set
		}
	}
	return ReadOnly
}

// Offer reports whether a tool is put in front of the model for r: not
// user-only, its declared effect allowed for r's role, and not turned off.
// Calls are checked again when they arrive.
func (e *Engine) Offer(t *tools.Tool, r Requester) bool {
	e.refresh(context.Background(), time.Second)
	if t.Def.UserOnly {
		return false
	}
	effect := t.Def.EffectiveEffect()
	if !e.Allowed(r, e.RoleOf(r)).Has(effect) {
		return false
	}
	e.mu.RLock()
	in := Input{Override: e.overrides[t.Name], Defaults: e.defaults[t.Plugin]}
	e.mu.RUnlock()
	return ModeFor(&in, effect) != sdk.ModeOff
}

// Call is one tool call to authorize.
type Call struct {
	Tool      *tools.Tool
	Args      map[string]any
	Raw       json.RawMessage // the validated arguments as sent to the tool
	TC        *sdk.ToolContext
	Requester Requester
	// MinVerdict raises the decision (a before_toolcall handler asked).
	MinVerdict Verdict
	MinReason  string
	MinBy      string
	// Approver asks the user; nil means nobody can be asked.
	Approver Approver
}

// Result is the outcome of Authorize.
type Result struct {
	Allowed   bool
	Decision  Decision
	Role      Role
	DecidedBy string // policy, user, hook:<plugin>, stage:<plugin>
	Reason    string // for the model when refused
	ArgsHash  string
	Grant     string // "once" or "always" for grant tools
}

// Authorize decides one call: resolve its effect, apply the decision
// function, then the decision hooks (deny > ask > allow; a hook that
// fails, panics or times out denies, and so does a suspended plugin's),
// and ask for approval when needed.
func (e *Engine) Authorize(ctx context.Context, c *Call) Result {
	e.refresh(ctx, 0)
	role := e.RoleOf(c.Requester)
	res := Result{Role: role, ArgsHash: ArgsHash(c.Tool.Name, c.Raw), DecidedBy: "policy"}
	def := c.Tool.Def
	allowed := e.Allowed(c.Requester, role) // takes the lock itself: not under it
	e.mu.RLock()
	in := Input{Effect: def.Effect, Override: e.overrides[c.Tool.Name], Defaults: e.defaults[c.Tool.Plugin],
		Actor: c.TC.Actor, Allowed: allowed,
		Grant: def.Grant, AlwaysAsk: def.AlwaysAsk, UserOnly: def.UserOnly}
	hooks, guarded := e.hooks, e.suspended()
	e.mu.RUnlock()
	if c.TC.Turn != nil {
		in.Tainted = c.TC.Turn.Tainted
	}

	var target *sdk.Target
	if def.ResolveEffect != nil {
		a, err := e.resolve(ctx, def.ResolveEffect, c.Args)
		if err != nil {
			res.Decision = Decision{Verdict: Deny, Effect: def.EffectiveEffect(), Rule: "resolve-effect"}
			res.Reason = fmt.Sprintf("could not work out what this call would do: %v", err)
			return res
		}
		in.Resolved, target = a.Effect, a.Target
	}
	d := Decide(&in)
	res.Decision = d
	reason := d.Reason
	if c.MinVerdict > d.Verdict {
		d.Verdict, reason, res.DecidedBy = c.MinVerdict, c.MinReason, c.MinBy
		res.Decision.Verdict = c.MinVerdict
	}
	if d.Verdict != Deny {
		for _, h := range hooks {
			if _, down := guarded[h.Plugin]; down {
				continue // asked below, once the plugin is back
			}
			v, why := e.runHook(ctx, h, c)
			if v > d.Verdict {
				d.Verdict, reason, res.DecidedBy = v, why, "hook:"+h.Plugin
				res.Decision.Verdict = v
			}
			if v == Deny {
				break
			}
		}
	}
	if len(guarded) > 0 && d.Verdict != Deny {
		for _, plugin := range slices.Sorted(maps.Keys(guarded)) {
			v, why := e.runSuspended(ctx, plugin, guarded[plugin], c)
			if v > d.Verdict {
				d.Verdict, reason, res.DecidedBy = v, why, "hook:"+plugin
				res.Decision.Verdict = v
			}
			if v == Deny {
				break
			}
		}
	}
	switch d.Verdict {
	case Allow:
		res.Allowed = true
		return res
	case Deny:
		res.Reason = reason
		return res
	}
	return e.approve(ctx, c, res, reason, target)
}

func (e *Engine) resolve(ctx context.Context, fn sdk.ResolveEffectFunc, args map[string]any) (sdk.Assessment, error) {
	a, err := guard.Call(ctx, e.HookTimeout, func(ctx context.Context) (sdk.Assessment, error) { return fn(ctx, args) })
	if err == nil && a.Effect != "" && !a.Effect.Valid() {
		a.Effect = sdk.EffectWrite
	}
	return a, err
}

// suspended returns the guards of the suspended plugins; e.mu is held.
func (e *Engine) suspended() map[string]*hookGuard {
	if len(e.guards) == 0 {
		return nil
	}
	return maps.Clone(e.guards)
}

// runSuspended decides for the hooks of a suspended plugin: it refuses at
// once, or, with hold, waits up to HookTimeout for the plugin to be resumed
// and then asks its hooks.
func (e *Engine) runSuspended(ctx context.Context, plugin string, g *hookGuard, c *Call) (Verdict, string) {
	e.mu.RLock()
	reason, hold := g.reason, g.hold
	e.mu.RUnlock()
	refuse := fmt.Sprintf("the decision hook of plugin %q is not answering (%s); calls it checks are refused until it is back", plugin, reason)
	if !hold {
		return Deny, refuse
	}
	t := time.NewTimer(e.HookTimeout)
	defer t.Stop()
	select {
	case <-g.ready:
	case <-t.C:
		return Deny, refuse
	case <-ctx.Done():
		return Deny, refuse
	}
	e.mu.RLock()
	var hooks []Hook
	for _, h := range e.hooks {
		if h.Plugin == plugin {
			hooks = append(hooks, h)
		}
	}
	again := e.guards[plugin]
	e.mu.RUnlock()
	if again != nil {
		return Deny, fmt.Sprintf("the decision hook of plugin %q is not answering (%s); calls it checks are refused until it is back", plugin, again.reason)
	}
	verdict, why := Allow, ""
	for _, h := range hooks {
		v, r := e.runHook(ctx, h, c)
		if v > verdict {
			verdict, why = v, r
		}
		if v == Deny {
			break
		}
	}
	return verdict, why
}

// runHook runs one decision hook with the hook deadline. It fails closed.
func (e *Engine) runHook(ctx context.Context, h Hook, c *Call) (Verdict, string) {
	d, err := guard.Call(ctx, e.HookTimeout, func(ctx context.Context) (sdk.HookDecision, error) {
		return h.Fn(ctx, c.TC, c.Tool.Name, c.Args)
	})
	switch {
	case errors.Is(err, guard.ErrTimeout):
		return Deny, fmt.Sprintf("decision hook of plugin %q did not answer within %s", h.Plugin, e.HookTimeout)
	case err != nil:
		if errors.Is(err, guard.ErrPanic) {
			e.log.Error("decision hook panicked", "plugin", h.Plugin, "err", err)
		}
		return Deny, fmt.Sprintf("decision hook of plugin %q failed: %v", h.Plugin, err)
	}
	switch d.Verdict {
	case sdk.VerdictAllow, "":
		return Allow, ""
	case sdk.VerdictAsk:
		return Ask, fmt.Sprintf("plugin %q asks for approval: %s", h.Plugin, d.Reason)
	case sdk.VerdictDeny:
		return Deny, fmt.Sprintf("refused by plugin %q: %s", h.Plugin, d.Reason)
	default:
		return Deny, fmt.Sprintf("decision hook of plugin %q answered %q", h.Plugin, d.Verdict)
	}
}

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

// Audit records one call in the audit log. Failures are logged and
// returned: a call whose start could not be recorded should not run.
func (e *Engine) Audit(ctx context.Context, entry store.AuditEntry) error {
	if entry.At.IsZero() {
		entry.At = e.now()
	}
	if err := e.st.AppendAudit(context.WithoutCancel(ctx), entry); err != nil {
		e.log.Error("writing the audit log failed", "tool", entry.Tool, "err", err)
		return fmt.Errorf("writing the audit log: %w", err)
	}
	return nil
}

// DiscardStore keeps nothing: no overrides, roles or grants, and records
// are dropped. It is for benchmarks and for embedders that keep no
// records; a real host uses *store.Store.
type DiscardStore struct{}

var _ Store = DiscardStore{}

// Overrides returns none.
func (DiscardStore) Overrides(context.Context) (map[string]string, error) { return nil, nil }

// SetOverride drops the mode.
func (DiscardStore) SetOverride(context.Context, string, string) error { return nil }

// Roles returns none.
func (DiscardStore) Roles(context.Context) ([]store.RoleAssignment, error) { return nil, nil }

// Grants returns none.
func (DiscardStore) Grants(context.Context) ([]store.Grant, error) { return nil, nil }

// CreateApproval drops the request.
func (DiscardStore) CreateApproval(context.Context, store.Approval) (int64, error) { return 0, nil }

// DecideApproval drops the answer.
func (DiscardStore) DecideApproval(context.Context, int64, string, string, time.Time) error {
	return nil
}

// AppendAudit drops the entry.
func (DiscardStore) AppendAudit(context.Context, store.AuditEntry) error { return nil }
