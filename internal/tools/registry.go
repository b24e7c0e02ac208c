// Package tools holds Hearth's one tool registry: every registration style
// (HomeAgent ToolDef, typed AddTool, and later xbot and wire plugins) ends
// up as a Tool here, named <plugin>__<tool>, validated against its JSON
// Schema before it runs, and dispatched with a deadline.
package tools

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/hearth-agent/hearth/sdk"
)

// DefaultTimeout bounds a tool call whose tool sets no timeout.
const DefaultTimeout = 30 * time.Second

// Separator joins a plugin's name and a tool's name into the name the model
// sees.
const Separator = "__"

// Errors callers branch on.
var (
	ErrDuplicate   = errors.New("duplicate tool name")
	ErrInvalidName = errors.New("invalid tool name")
	ErrBadSchema   = errors.New("invalid parameter schema")
	ErrUnknownTool = errors.New("unknown tool")
)

// namePattern is the provider limit on function names (OpenAI and every
// compatible server).
var namePattern = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// Tool is one registered tool.
type Tool struct {
	Name    string // the name the model sees: plugin__tool
	Plugin  string // owning plugin
	Local   string // the tool's name inside its plugin
	Def     sdk.ToolDef
	Timeout time.Duration
	Serial  bool
	Handler sdk.RawToolHandler

	// Schema is the parameter schema as sent to the model.
	Schema json.RawMessage

	// Direct handlers are known to return promptly once their context
	// ends (a child plugin's calls, which end with $/cancel), so Invoke
	// calls them on the caller's goroutine instead of handing off to one
	// of their own. They forward the raw arguments, and Registry.Call
	// passes them no decoded map when it can validate without one.
	Direct bool

	resolved *jsonschema.Resolved
	fast     *fastSchema // nil when the schema needs jsonschema-go
}

// ModelName returns the name the model sees for tool local of plugin.
func ModelName(plugin, local string) string { return plugin + Separator + local }

// Registry holds the registered tools. It is safe for concurrent use;
// listing is lock-free for readers after a change.
type Registry struct {
	mu     sync.RWMutex
	byName map[string]*Tool
	sorted []*Tool // rebuilt on every change, never mutated in place
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
	return r.register(plugin, def, h, false)
}

// RegisterDirect is Register for handlers that return promptly once their
// context ends; see Tool.Direct.
func (r *Registry) RegisterDirect(plugin string, def sdk.ToolDef, h sdk.RawToolHandler) (*Tool, error) {
	return r.register(plugin, def, h, true)
}

func (r *Registry) register(plugin string, def sdk.ToolDef, h sdk.RawToolHandler, direct bool) (*Tool, error) {
	if h == nil {
		return nil, fmt.Errorf("tool %q of plugin %q: nil handler", def.Name, plugin)
	}
	if plugin == "" || strings.Contains(plugin, Separator) {
		return nil, fmt.Errorf("%w: plugin name %q must be non-empty and not contain %q", ErrInvalidName, plugin, Separator)
	}
	name := ModelName(plugin, def.Name)
	if def.Name == "" || !namePattern.MatchString(name) {
		return nil, fmt.Errorf("%w: %q must match %s", ErrInvalidName, name, namePattern)
	}
	schema, resolved, fast, err := compileSchema(def.Parameters)
	if err != nil {
		return nil, fmt.Errorf("%w: tool %q: %v", ErrBadSchema, name, err)
	}
	t := &Tool{
		Name: name, Plugin: plugin, Local: def.Name, Def: def,
		Timeout: def.Timeout, Serial: def.Serial, Handler: h,
		Schema: schema, resolved: resolved, fast: fast, Direct: direct,
	}
	if t.Timeout <= 0 {
		t.Timeout = DefaultTimeout
	}
	t.Def.Plugin = plugin

	r.mu.Lock()
	defer r.mu.Unlock()
	if old, dup := r.byName[name]; dup {
		return nil, fmt.Errorf("%w: %q is already registered by plugin %q", ErrDuplicate, name, old.Plugin)
	}
	r.byName[name] = t
	r.rebuild()
	return t, nil
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
}

// Lookup returns the tool the model knows as name.
func (r *Registry) Lookup(name string) (*Tool, bool) {
	r.mu.RLock()
	t, ok := r.byName[name]
	r.mu.RUnlock()
	return t, ok
}

// List returns the registered tools sorted by name, so the list sent to the
// model is stable and prompt caches stay warm. The slice is shared: do not
// modify it.
func (r *Registry) List() []*Tool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.sorted
}

// Len returns the number of registered tools.
func (r *Registry) Len() int {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return len(r.byName)
}

func compileSchema(params map[string]interface{}) (json.RawMessage, *jsonschema.Resolved, *fastSchema, error) {
	if params == nil {
		params = map[string]interface{}{"type": "object", "properties": map[string]interface{}{}}
	}
	if _, ok := params["type"]; !ok {
		cp := make(map[string]interface{}, len(params)+1)
		for k, v := range params {
			cp[k] = v
		}
		cp["type"] = "object"
		params = cp
	}
	if params["type"] != "object" {
		return nil, nil, nil, fmt.Errorf("top-level type must be \"object\", got %v", params["type"])
	}
	raw, err := json.Marshal(params)
	if err != nil {
		return nil, nil, nil, err
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, nil, nil, err
	}
	resolved, err := s.Resolve(nil)
	if err != nil {
		return nil, nil, nil, err
	}
	return raw, resolved, compileFast(&s), nil
}
