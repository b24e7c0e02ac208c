// Package tools holds Hearth's one tool registry: every registration style
// (HomeAgent ToolDef, typed AddTool, xbot and wire plugins) ends up as a
// Tool here, named <plugin>__<tool> and offered to the model under its own
// name when that is unambiguous (callnames.go). A call of it takes sdk/toolcall's
// path: validated against its JSON Schema before it runs, and run with a
// deadline.
package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/toolcall"
)

// Separator joins a plugin's name and a tool's name into the name the model
// sees.
const Separator = toolcall.Separator

// Errors callers branch on.
var (
	ErrDuplicate   = errors.New("duplicate tool name")
	ErrInvalidName = toolcall.ErrInvalidName
	ErrBadSchema   = errors.New("invalid parameter schema")
	ErrUnknownTool = errors.New("unknown tool")
)

// Tool is one registered tool. Its embedded toolcall.Tool (Name: the
// name the model sees, plugin__tool) validates and invokes its calls.
type Tool struct {
	toolcall.Tool
	Plugin string // owning plugin
	Local  string // the tool's name inside its plugin
	Def    sdk.ToolDef
	Serial bool

	// Schema is the parameter schema as sent to the model.
	Schema json.RawMessage
}

// Registry holds the registered tools. It is safe for concurrent use;
// listing is lock-free for readers after a change.
type Registry struct {
	mu     sync.RWMutex
	byName map[string]*Tool
	sorted []*Tool // never changed in place once handed out

	// handedOut says List or ListNamed returned sorted and sortedNames
	// since they last changed: the next change copies them. Set under the
	// read lock, hence atomic.
	handedOut atomic.Bool

	// The model-facing names (callnames.go), rebuilt with sorted.
	callName    map[*Tool]string
	short       map[string]*Tool   // short name -> tool
	sortedNames []string           // CallName of each of sorted
	groups      map[string][]*Tool // lower-case local name -> the tools that may be short under it (insert.go)
	known       map[string]bool    // plugin ids ever seen or made known, by idKey (callnames.go)

	changed chan struct{} // closed and replaced on every change; see Changed
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{byName: map[string]*Tool{}}
}

// Register adds a tool of plugin. It fails with ErrInvalidName when the
// model-visible name breaks the provider limit, ErrDuplicate when the name
// is taken (never silently shadowing), and ErrBadSchema when def.Parameters
// is not a usable JSON Schema for an object.
func (r *Registry) Register(plugin string, def sdk.ToolDef, h sdk.RawToolHandler) (*Tool, error) {
	return r.RegisterEntry(plugin, Entry{Def: def, Handler: h})
}

// RegisterPrompt is Register for a handler that returns soon after its
// context ends (a child plugin's, see toolcall.Tool.Prompt).
func (r *Registry) RegisterPrompt(plugin string, def sdk.ToolDef, h sdk.RawToolHandler) (*Tool, error) {
	return r.RegisterEntry(plugin, Entry{Def: def, Handler: h, Prompt: true})
}

// RegisterEntry is Register for a whole entry (Bind and Schema too).
func (r *Registry) RegisterEntry(plugin string, e Entry) (*Tool, error) {
	t, err := newTool(plugin, e)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.free(t.Name, ""); err != nil {
		return nil, err
	}
	r.byName[t.Name] = t
	r.insert(t)
	return t, nil
}

// newTool checks def and builds its Tool.
func newTool(plugin string, e Entry) (*Tool, error) {
	def, h := e.Def, e.Handler
	if h == nil {
		return nil, fmt.Errorf("tool %q of plugin %q: nil handler", def.Name, plugin)
	}
	name, err := toolcall.Name(plugin, def.Name)
	if err != nil {
		return nil, err
	}
	var schema *toolcall.Schema
	if e.Schema != nil {
		schema, err = toolcall.Deferred(e.Schema)
	} else {
		schema, err = toolcall.Compile(def.Parameters)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: tool %q: %v", ErrBadSchema, name, err)
	}
	t := &Tool{
		Tool:   toolcall.Tool{Name: name, Params: schema, Timeout: def.Timeout, Handler: h, Prompt: e.Prompt, Bind: e.Bind},
		Plugin: plugin, Local: def.Name, Def: def, Serial: def.Serial, Schema: schema.JSON(),
	}
	if t.Timeout <= 0 {
		t.Timeout = toolcall.DefaultTimeout
	}
	t.Def.Plugin = plugin
	return t, nil
}

// free reports ErrDuplicate when name is registered, unless by plugin
// except (a plugin whose tools are being replaced); r.mu is held.
func (r *Registry) free(name, except string) error {
	if old, dup := r.byName[name]; dup && (except == "" || old.Plugin != except) {
		return fmt.Errorf("%w: %q is already registered by plugin %q", ErrDuplicate, name, old.Plugin)
	}
	return nil
}

// Entry is one tool for Replace.
type Entry struct {
	Def     sdk.ToolDef
	Handler sdk.RawToolHandler
	Prompt  bool // see RegisterPrompt
	// Bind is toolcall.Tool.Bind.
	Bind func(context.Context) (unbind func())
	// Schema, when set, is the JSON of Def's schema as an earlier
	// registration compiled it (Tool.Schema of a plugin's tool kept from
	// its last start): it is compiled at the tool's first call instead of
	// now (toolcall.Deferred), and Def.Parameters is not read.
	Schema json.RawMessage
}

// Replace swaps plugin's tools for entries in one change: a caller that
// lists or looks tools up sees the old set or the new one, never a part of
// either (a server whose tool list changed keeps its tools callable
// throughout). An entry that cannot be registered (a bad name or schema, a
// name another plugin holds, or the same name twice) is left out and
// reported, one error each; the others are registered.
func (r *Registry) Replace(plugin string, entries []Entry) ([]*Tool, []error) {
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
	for name, t := range r.byName {
		if t.Plugin == plugin {
			delete(r.byName, name)
		}
	}
	added := fresh[:0]
	for _, t := range fresh {
		if err := r.free(t.Name, ""); err != nil {
			errs = append(errs, err)
			continue
		}
		r.byName[t.Name] = t
		added = append(added, t)
	}
	r.rebuild()
	return added, errs
}

// RemovePlugin withdraws every tool of plugin and reports how many.
func (r *Registry) RemovePlugin(plugin string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for name, t := range r.byName {
		if t.Plugin == plugin {
			delete(r.byName, name)
			n++
		}
	}
	if n > 0 {
		r.rebuild()
	}
	return n
}

func (r *Registry) rebuild() {
	list := make([]*Tool, 0, len(r.byName))
	for _, t := range r.byName {
		list = append(list, t)
	}
	sort.Slice(list, func(i, j int) bool { return list[i].Name < list[j].Name })
	r.sorted = list
	r.handedOut.Store(false)
	r.callName, r.short = r.callNames(list)
	r.sortedNames = make([]string, len(list))
	for i, t := range list {
		r.sortedNames[i] = r.callName[t]
	}
	r.signal()
}

// signal closes the channel Changed handed out, if any; r.mu is held.
func (r *Registry) signal() {
	if r.changed != nil {
		close(r.changed)
		r.changed = nil
	}
}

// Changed returns a channel that is closed at the next change of the tool
// set (a tool registered, a plugin's tools withdrawn). Watchers take a
// new channel after each change, then List.
func (r *Registry) Changed() <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.changed == nil {
		r.changed = make(chan struct{})
	}
	return r.changed
}

// Lookup returns the tool the model knows as name: its qualified name
// (plugin__tool), which always resolves, or its short name while that is
// the name it is offered under (see CallName).
func (r *Registry) Lookup(name string) (*Tool, bool) {
	r.mu.RLock()
	t, ok := r.byName[name]
	if !ok {
		t, ok = r.short[name]
	}
	r.mu.RUnlock()
	return t, ok
}

// markHandedOut sets handedOut; r.mu is held for reading. Readers that
// find it set (every turn after the first) do not write the shared word.
func (r *Registry) markHandedOut() {
	if !r.handedOut.Load() {
		r.handedOut.Store(true)
	}
}

// List returns the registered tools sorted by name, so the list sent to the
// model is stable and prompt caches stay warm. The slice is shared: do not
// modify it.
func (r *Registry) List() []*Tool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	r.markHandedOut()
	return r.sorted
}

// Len returns the number of registered tools.
func (r *Registry) Len() int {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return len(r.byName)
}
