package policy

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/guard"
)

// Hook is a plugin's decision hook.
type Hook struct {
	Plugin string
	Fn     sdk.DecisionHook
}

// hookGuard stands for the decision hooks of a plugin that is not
// answering (a child process starting, restarting or down): calls its hooks
// would be asked about are held until it is back, or refused.
type hookGuard struct {
	reason string        // why the hooks are not answering, for the refusal
	hold   bool          // wait (up to HookTimeout) for the plugin to come back
	ready  chan struct{} // closed when the plugin is back (or removed)
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
