// Package names hands out plugin names. A plugin's name is what its tools
// (<name>__<tool>), stage handlers, decision hooks, policy defaults,
// settings namespace, key-value storage and data folder are kept under, so
// a name has one owner at a time: the first to claim it, in every runtime
// (compiled in, .so, child process, xbot stdio). Names that stand for
// Hearth itself are reserved and never handed out.
//
// Names are compared without regard to case, so two plugins cannot share
// a data folder on a case-insensitive file system either.
package names

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
)

// Errors callers branch on.
var (
	// ErrTaken means another plugin holds the name; the error is a
	// *TakenError naming the owner.
	ErrTaken = errors.New("plugin name is taken")
	// ErrReserved means the name stands for Hearth itself.
	ErrReserved = errors.New("plugin name is reserved")
)

// reserved are the names that mean Hearth itself: its settings namespace
// ("core"), its own tools ("plugins", of plugins__use), the words a user
// or a model would read as Hearth speaking, and the channels Hearth itself
// serves people on (now or in the future), so a plugin never passes for
// one. Chat apps' channels (qq, telegram, ...) are served by channel
// plugins, which are rightly named after them; a plugin's own
// conversation is kept apart from every channel anyway (kernel
// PluginChannel).
var reserved = map[string]bool{
	"core": true, "hearth": true, "plugins": true, "plugin": true, "mcp": true,
	"system": true, "kernel": true, "policy": true, "settings": true,
	"memory": true, "knowledge": true, "llm": true, "user": true, "owner": true,
	"kv": true, "tools": true, "audit": true,

	// Hearth's own channels
	"terminal": true, "ask": true, "web": true, "http": true, "api": true,
	"scheduler": true, "cron": true,
}

// key is the form names are compared in.
func key(name string) string { return strings.ToLower(name) }

// Key returns the form names are compared in (lower case): two names with
// the same key are the same name.
func Key(name string) string { return key(name) }

// IsReserved reports whether name stands for Hearth itself.
func IsReserved(name string) bool { return reserved[key(name)] }

// Reserved returns the reserved names, sorted.
func Reserved() []string {
	out := make([]string, 0, len(reserved))
	for n := range reserved {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// CheckReserved returns an error wrapping ErrReserved if name stands for
// Hearth itself, and nil otherwise.
func CheckReserved(name string) error {
	if IsReserved(name) {
		return fmt.Errorf("%w: %q stands for Hearth itself; give the plugin another id", ErrReserved, name)
	}
	return nil
}

// TakenError says who holds a name.
type TakenError struct {
	Name  string // the name asked for
	Owner string // who holds it, as the holder described itself
}

// Error names the name and its holder.
func (e *TakenError) Error() string {
	return fmt.Sprintf("the plugin name %q is already used by %s", e.Name, e.Owner)
}

// Unwrap returns ErrTaken.
func (e *TakenError) Unwrap() error { return ErrTaken }

// Registry holds the claimed names. The zero value is not usable; call
// New. It is safe for concurrent use.
type Registry struct {
	mu     sync.Mutex
	held   map[string]*Claim
	chans  map[string]string // channel key -> the plugin that claimed it
	binder ChannelBinder     // keeps channel claims across runs; nil: none
}

// New returns an empty registry.
func New() *Registry { return &Registry{held: map[string]*Claim{}} }

// Claim is one held name. Only its holder can give it back.
type Claim struct {
	r     *Registry
	name  string
	owner string
}

// Claim takes name for owner, a description for messages such as
// `the plugin in /home/u/.hearth/plugins/pay (id "pay")`. It fails with
// ErrReserved for a reserved name and with a *TakenError (ErrTaken) when
// another owner holds it, whoever asks.
func (r *Registry) Claim(name, owner string) (*Claim, error) {
	if name == "" {
		return nil, errors.New("empty plugin name")
	}
	if err := CheckReserved(name); err != nil {
		return nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if c, ok := r.held[key(name)]; ok {
		return nil, &TakenError{Name: name, Owner: c.owner}
	}
	if p, ok := r.chans[key(name)]; ok && key(p) != key(name) {
		return nil, &TakenError{Name: name, Owner: fmt.Sprintf("plugin %q, whose channel it is", p)}
	}
	c := &Claim{r: r, name: name, owner: owner}
	r.held[key(name)] = c
	return c, nil
}

// Check reports, without claiming, why name could not be claimed now:
// ErrReserved, a *TakenError, or nil.
func (r *Registry) Check(name string) error {
	if err := CheckReserved(name); err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if c, ok := r.held[key(name)]; ok {
		return &TakenError{Name: name, Owner: c.owner}
	}
	return nil
}

// Owner returns the description of name's holder.
func (r *Registry) Owner(name string) (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c, ok := r.held[key(name)]
	if !ok {
		return "", false
	}
	return c.owner, true
}

// Name returns the claimed name.
func (c *Claim) Name() string { return c.name }

// Owner returns the holder's description.
func (c *Claim) Owner() string { return c.owner }

// Held reports whether the claim still holds its name.
func (c *Claim) Held() bool {
	c.r.mu.Lock()
	defer c.r.mu.Unlock()
	return c.r.held[key(c.name)] == c
}

// Release gives the name back. It is safe to call more than once, and a
// released claim never frees a name someone else has claimed since.
func (c *Claim) Release() {
	if c == nil {
		return
	}
	c.r.mu.Lock()
	defer c.r.mu.Unlock()
	if c.r.held[key(c.name)] == c {
		delete(c.r.held, key(c.name))
	}
}
