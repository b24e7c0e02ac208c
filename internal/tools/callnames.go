package tools

import (
	"strings"

	"github.com/hearth-agent/hearth/internal/names"
)

// The name the model calls a tool by. A HomeAgent plugin names its tools
// itself (memo_create) and its own prompt text tells the model to call
// them so; xbot plugins match hook payloads against the names they
// registered. So a plugin's tool is offered under its own name, the
// short name, when that is unambiguous, and as <plugin>__<tool>, the
// qualified name, otherwise:
//
//   - a short name is used only when no other registered tool, of any
//     plugin or of Hearth, has the same local name (compared without
//     regard to case); when two share one, both are qualified, so no
//     plugin can take another's name by registering it first or later;
//   - a local name containing the separator (output_send__qq) is never
//     short: it could pass for another plugin's qualified name;
//   - Hearth's own tools (reserved plugin names: plugins__use) and MCP
//     servers' tools (plugins named mcp-<server>) keep the qualified name:
//     Hearth's text names its own tools so, and MCP servers name theirs
//     generically (read_file, search), where a name alone says nothing of
//     whose tool it is;
//   - a local name that is itself a reserved name (hearth, system, ...)
//     stays qualified.
//
// A call by the qualified name always resolves, whatever name is offered.
// The qualified name stays the canonical id: policy rules, approvals, the
// audit log and `hearth policy` key on it. Names are computed when the
// registry changes and only then, so the tool list sent to the model, and
// with it the provider's prompt cache, stays the same between changes.

// MCPPrefix starts the plugin name of every MCP server's tools
// (pluginhost.MCPPrefix); their tools keep qualified names.
const MCPPrefix = "mcp-"

// ShortAllowed reports whether plugin's tool local may be offered under
// its own name at all (before collisions are counted).
func ShortAllowed(plugin, local string) bool {
	return local != "" && !strings.Contains(local, Separator) &&
		!names.IsReserved(plugin) && !strings.HasPrefix(strings.ToLower(plugin), MCPPrefix) &&
		!names.IsReserved(local)
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
