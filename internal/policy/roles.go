package policy

import (
	"slices"
	"strings"

	"github.com/hearth-agent/hearth/internal/store"
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

type grantKey struct {
	channel, group string
	role           Role
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
