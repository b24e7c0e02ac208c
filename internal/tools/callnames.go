package tools

import (
	"strings"

	"github.com/hearth-agent/hearth/internal/names"
)

// The name the model calls a tool by. A HomeAgent plugin names its tools
// itself, each starting with its own name (memo_create of plugin memo,
// acp_acp_query of acp: HomeAgent's convention of registering
// name+"_"+tool), and its own prompt text tells the model to call them so.
// Such a tool is offered under that name, the short name, when it is
// unambiguous, and as <plugin>__<tool>, the qualified name, otherwise:
//
//   - a tool may be short only when its local name starts with its
//     plugin's id and "_" ('-' in ids read as '_'), and no other plugin
//     known to this registry has an id that is as long or longer and
//     also starts the name: ai_image_generate is plugin ai_image's (or
//     ai-image's) name space, never plugin ai's, whether or not ai_image
//     is running; when a-b and a_b are both known, neither's tools are
//     short. Known are every plugin that ever registered a tool in this
//     process and those made known with KnowPlugins (installed, named or
//     catalogued plugins);
//   - a short name is used only when no other tool that may be short has
//     the same local name (compared without regard to case); when two
//     share one, both are qualified. Tools that may never be short do not
//     count: a plugin cannot knock another's tool off its short name by
//     registering the same local name;
//   - a local name containing the separator (output_send__qq) is never
//     short: it could pass for another plugin's qualified name;
//   - Hearth's own tools (reserved plugin names: plugins__use) and MCP
//     servers' tools (plugins named mcp-<server>) keep the qualified name.
//
// A call by the qualified name always resolves, whatever name is offered.
// The qualified name stays the canonical id: policy rules, approvals,
// decision hooks (a guard written for bank__pay fails closed, never open),
// the audit log, logs and `hearth policy` key on it. Tool results, events
// and the history carry the name the model is offered. Stage handlers see
// StageName, which no other plugin can change: the name the plugin
// registered for a tool named after its plugin, else the qualified name.
// Names are computed when the registry changes and only then, so the tool
// list sent to the model, and with it the provider's prompt cache, stays
// the same between changes.

// MCPPrefix starts the plugin name of every MCP server's tools
// (pluginhost.MCPPrefix); their tools keep qualified names.
const MCPPrefix = "mcp-"

// idKey is the form of a plugin id that tool names start with: lower
// case, '-' read as '_'.
func idKey(id string) string {
	return strings.ReplaceAll(strings.ToLower(id), "-", "_")
}

// ownPrefixed reports whether local is named after plugin (starts with its
// id and "_") and is of a kind that may be short at all, before other
// plugins are considered.
func ownPrefixed(plugin, local string) bool {
	own := idKey(plugin) + "_"
	return len(local) > len(own) && strings.HasPrefix(strings.ToLower(local), own) &&
		!strings.Contains(local, Separator) &&
		!names.IsReserved(plugin) && !strings.HasPrefix(strings.ToLower(plugin), MCPPrefix)
}

// ShortAllowed reports whether plugin's tool local may be offered under
// its own name at all (before collisions are counted), known being the
// ids of the plugins known (plugin itself may be among them): see the
// rules above.
func ShortAllowed(plugin, local string, known []string) bool {
	if !ownPrefixed(plugin, local) {
		return false
	}
	self, own, lower := names.Key(plugin), idKey(plugin), strings.ToLower(local)
	for _, id := range known {
		k := idKey(id)
		if names.Key(id) != self && len(k) >= len(own) && len(lower) > len(k)+1 && strings.HasPrefix(lower, k+"_") {
			return false
		}
	}
	return true
}

// StageName is the name stage handlers are shown t under: its local name
// when the tool is named after its plugin (ownPrefixed), else its
// qualified name. Unlike the name offered to the model it depends on no
// other plugin, so a plugin's guard on its own tool's name keeps holding
// whatever else is installed.
func StageName(t *Tool) string {
	if ownPrefixed(t.Plugin, t.Local) {
		return t.Local
	}
	return t.Name
}

// KnowPlugins adds ids to the plugins this registry knows of (see the
// rules above): installed plugins that are not running, names bound to
// folders, plugins of the catalogue. Known ids are never forgotten.
func (r *Registry) KnowPlugins(ids ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	added := false
	for _, id := range ids {
		if id == "" || r.known[names.Key(id)] {
			continue
		}
		if r.known == nil {
			r.known = map[string]bool{}
		}
		r.known[names.Key(id)], added = true, true
	}
	if added {
		r.rebuild()
	}
}

// callNames computes the model-facing name of every tool of list: the
// short name where ShortAllowed and unique among those, else the
// qualified name. It returns the names by tool and the short names in
// use. The plugins of list become known; r.mu is held.
func (r *Registry) callNames(list []*Tool) (byTool map[*Tool]string, short map[string]*Tool) {
	if r.known == nil {
		r.known = map[string]bool{}
	}
	for _, t := range list {
		r.known[names.Key(t.Plugin)] = true
	}
	known := r.knownIDs()
	allowed := make(map[*Tool]bool, len(list))
	r.groups = make(map[string][]*Tool, len(list))
	for _, t := range list {
		if ShortAllowed(t.Plugin, t.Local, known) {
			allowed[t] = true
			key := strings.ToLower(t.Local)
			r.groups[key] = append(r.groups[key], t)
		}
	}
	byTool = make(map[*Tool]string, len(list))
	short = map[string]*Tool{}
	for _, t := range list {
		if allowed[t] && len(r.groups[strings.ToLower(t.Local)]) == 1 {
			byTool[t] = t.Local
			short[t.Local] = t
			continue
		}
		byTool[t] = t.Name
	}
	return byTool, short
}

// CallName returns the name the model is offered t under: its short name
// or its qualified name (see the rules above). A tool no longer
// registered gets its qualified name.
func (r *Registry) CallName(t *Tool) string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if n, ok := r.callName[t]; ok {
		return n
	}
	return t.Name
}

// ListNamed is List with each tool's CallName, from one state of the
// registry: names[i] is list[i]'s. Both slices are shared: do not modify
// them.
func (r *Registry) ListNamed() (list []*Tool, callNames []string) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	r.markHandedOut()
	return r.sorted, r.sortedNames
}

// LocalName resolves name, a tool's short or qualified name, to its
// plugin and the name the plugin registered: what a plugin's hooks are
// sent (xbot plugins match on the names they registered).
func (r *Registry) LocalName(name string) (plugin, local string, ok bool) {
	t, ok := r.Lookup(name)
	if !ok {
		return "", "", false
	}
	return t.Plugin, t.Local, true
}

// LookupStage resolves a tool as a stage handler names it: plugin's tool
// whose StageName is name when plugin is set and has one, else what
// Lookup resolves, else the one tool whose StageName is name (none when
// several share it). So a call a handler was shown, or added by its
// stage name, runs the tool it names, never another plugin's tool that is
// offered under the same text.
func (r *Registry) LookupStage(name, plugin string) (*Tool, bool) {
	if plugin != "" {
		r.mu.RLock()
		t, ok := r.byName[plugin+Separator+name]
		r.mu.RUnlock()
		if ok && StageName(t) == name {
			return t, true
		}
	}
	if t, ok := r.Lookup(name); ok {
		return t, true
	}
	var found *Tool
	for _, t := range r.List() {
		if StageName(t) == name {
			if found != nil {
				return nil, false
			}
			found = t
		}
	}
	return found, found != nil
}
