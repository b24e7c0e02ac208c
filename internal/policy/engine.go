package policy

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/hearth-agent/hearth/internal/store"
	"github.com/hearth-agent/hearth/internal/tools"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/guard"
)

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

// SharedStore is implemented by stores that other processes change too
// (the database `hearth policy set` writes to). The engine then reads the
// overrides again before decisions (see refresh); a store without it is
// trusted to hold only what this engine wrote.
type SharedStore interface {
	Shared() bool
}

var (
	_ Store        = (*store.Store)(nil)
	_ CatalogStore = (*store.Store)(nil)
	_ SharedStore  = (*store.Store)(nil)
)

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
	// LocalChannels are channels whose only user is the owner: the
	// terminal, scripts (ask), the daemon's web UI, which only the
	// holder of its token reaches, and MCP clients ("mcp": `hearth mcp
	// serve`, which only the owner can launch, and the daemon's /mcp with
	// that token). The OpenAI endpoint ("openai") is not:
	// its client token is one a program holds, and its turns get the
	// role given to channel openai's user "owner" (guest, read-only,
	// unless `hearth policy role openai owner owner`).
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

// NewEngine loads the stored overrides, roles and grants.
func NewEngine(ctx context.Context, st Store, log *slog.Logger) (*Engine, error) {
	if log == nil {
		log = slog.Default()
	}
	e := &Engine{st: st, log: log, now: time.Now,
		ApprovalTTL: 5 * time.Minute, HookTimeout: 5 * time.Second,
		LocalChannels: []string{"terminal", "ask", "web", "mcp"},
		defaults:      map[string]map[sdk.Effect]sdk.Mode{},
		guards:        map[string]*hookGuard{},
	}
	// `hearth policy set` in another process changes the database; the
	// overrides are read again before each decision (see refresh).
	if sh, ok := st.(SharedStore); ok {
		e.shared = sh.Shared()
	}
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
