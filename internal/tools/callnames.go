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
//   - a tool is short only when its local name starts with its plugin's
//     name and "_" ('-' in the plugin's name read as '_'): the name then
//     says whose tool it is, no plugin can offer a name that starts with
//     another plugin's name, and the tools of plugins written for Hearth
//     (bank__pay) keep the name their instructions and hooks use;
//   - a short name is used only when no other registered tool, of any
//     plugin or of Hearth, has the same local name (compared without
//     regard to case); when two share one, both are qualified, whichever
//     came first;
//   - a local name containing the separator (output_send__qq) is never
//     short: it could pass for another plugin's qualified name;
//   - Hearth's own tools (reserved plugin names: plugins__use) and MCP
//     servers' tools (plugins named mcp-<server>) keep the qualified name.
//
// A call by the qualified name always resolves, whatever name is offered.
// The qualified name stays the canonical id: policy rules, approvals,
// decision hooks (a guard written for bank__pay fails closed, never open),
// the audit log, logs and `hearth policy` key on it; stage handlers and
// tool results carry the name the model is offered, as HomeAgent's do.
// Names are computed when the registry changes and only then, so the tool
// list sent to the model, and with it the provider's prompt cache, stays
// the same between changes.

// MCPPrefix starts the plugin name of every MCP server's tools
// (pluginhost.MCPPrefix); their tools keep qualified names.
const MCPPrefix = "mcp-"

// ShortAllowed reports whether plugin's tool local may be offered under
// its own name at all (before collisions are counted).
func ShortAllowed(plugin, local string) bool {
	own := strings.ReplaceAll(strings.ToLower(plugin), "-", "_") + "_"
	return len(local) > len(own) && strings.HasPrefix(strings.ToLower(local), own) &&
		!strings.Contains(local, Separator) &&
		!names.IsReserved(plugin) && !strings.HasPrefix(strings.ToLower(plugin), MCPPrefix)
}

// callNames computes the model-facing name of every tool of list: the
// short name where ShortAllowed and unique, else the qualified name. It
// returns the names by tool and the short names in use.
func callNames(list []*Tool) (byTool map[*Tool]string, short map[string]*Tool) {
	count := make(map[string]int, len(list))
	for _, t := range list {
		count[strings.ToLower(t.Local)]++
	}
	byTool = make(map[*Tool]string, len(list))
	short = map[string]*Tool{}
	for _, t := range list {
		if ShortAllowed(t.Plugin, t.Local) && count[strings.ToLower(t.Local)] == 1 {
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
