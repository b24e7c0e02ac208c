package tools

import (
	"slices"
	"sort"
	"strings"

	"github.com/hearth-agent/hearth/internal/names"
)

// insert adds t, already in r.byName, to the sorted list and its names
// without rebuilding them: a child plugin registers its tools one message
// at a time, and rebuilding after each made registering n tools cost
// O(n² log n). The result is the state rebuild would compute (see
// TestInsertMatchesRebuild): t goes into its place in the sorted slice,
// a copy of it if readers were handed it (see handedOut), and only the names that t can
// change are recomputed, those of the tools sharing its local name (see
// callnames.go). A tool of a plugin the registry does not know yet
// rebuilds everything, since a new known id can take short names from
// other plugins' tools; that happens once per plugin. r.mu is held.
func (r *Registry) insert(t *Tool) {
	if r.callName == nil || !r.known[names.Key(t.Plugin)] {
		r.rebuild()
		return
	}
	i := sort.Search(len(r.sorted), func(i int) bool { return r.sorted[i].Name >= t.Name })
	list, callNames := r.sorted, r.sortedNames
	if r.handedOut.Swap(false) {
		// A reader may hold them: change copies. (Cloning at every
		// insert copied the list n times for n tools registered one by
		// one: a quarter of a 1,000-tool handshake's registry time.)
		list, callNames = slices.Clone(list), slices.Clone(callNames)
	}
	list = slices.Insert(list, i, t)
	callNames = slices.Insert(callNames, i, t.Name)
	r.callName[t] = t.Name
	if ShortAllowed(t.Plugin, t.Local, r.knownIDs()) {
		key := strings.ToLower(t.Local)
		group := append(r.groups[key], t)
		r.groups[key] = group
		switch len(group) {
		case 1: // the only one: offered under its own name
			r.callName[t] = t.Local
			r.short[t.Local] = t
			callNames[i] = t.Local
		case 2: // the one that was alone loses its short name
			u := group[0]
			delete(r.short, u.Local)
			r.callName[u] = u.Name
			j := sort.Search(len(list), func(j int) bool { return list[j].Name >= u.Name })
			callNames[j] = u.Name
		}
	}
	r.sorted, r.sortedNames = list, callNames
	r.signal()
}

// knownIDs returns the ids of the known plugins; r.mu is held.
func (r *Registry) knownIDs() []string {
	ids := make([]string, 0, len(r.known))
	for id := range r.known {
		ids = append(ids, id)
	}
	return ids
}
