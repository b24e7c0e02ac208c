package tools

import "github.com/hearth-agent/hearth/sdk/toolcall"

// Patch changes some of plugin's tools in one change of the registry: its
// tools named (as plugin registered them) in drop are withdrawn, and
// entries are registered, each replacing plugin's tool of the same name.
// Only entries are built (their schemas compiled), so changing one tool
// of a plugin that has many costs one, where Replace builds them all. An
// entry that cannot be registered is left out and reported, one error
// each.
func (r *Registry) Patch(plugin string, drop []string, entries []Entry) ([]*Tool, []error) {
	var errs []error
	fresh := make([]*Tool, 0, len(entries))
	for _, e := range entries {
		t, err := newTool(plugin, e)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		fresh = append(fresh, t)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, local := range drop {
		name, err := toolcall.Name(plugin, local)
		if err != nil {
			continue // never registered
		}
		if t, ok := r.byName[name]; ok && t.Plugin == plugin {
			delete(r.byName, name)
		}
	}
	added := fresh[:0]
	for _, t := range fresh {
		if err := r.free(t.Name, plugin); err != nil {
			errs = append(errs, err)
			continue
		}
		r.byName[t.Name] = t
		added = append(added, t)
	}
	r.rebuild()
	return added, errs
}
