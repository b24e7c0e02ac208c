package names

import (
	"context"
	"errors"
	"fmt"
	"sort"
)

// The channels Hearth itself opens sessions on. The packages that serve
// them take their names from here, so every one of them is reserved: a
// plugin that owned one could inject into, and read, the owner's
// conversations there.
const (
	ChannelTerminal = "terminal" // hearth chat (internal/channel/terminal)
	ChannelAsk      = "ask"      // hearth ask
	ChannelWeb      = "web"      // the web UI's default channel
	ChannelOpenAI   = "openai"   // the OpenAI-compatible endpoint (internal/server)
	ChannelMCP      = "mcp"      // hearth serve-mcp (internal/mcpserve)
	ChannelSettings = "settings" // settings changes in the audit log
)

// hearthChannels are the channels of the constants above, and the names
// of channels Hearth may serve people on later.
var hearthChannels = map[string]bool{
	ChannelTerminal: true, ChannelAsk: true, ChannelWeb: true, ChannelOpenAI: true,
	ChannelMCP: true, ChannelSettings: true,
	"http": true, "api": true, "serve": true, "scheduler": true, "schedule": true, "cron": true,
}

// ErrChannelTaken means another plugin holds the channel name: it claimed
// the channel first, or it is that plugin's own name.
var ErrChannelTaken = errors.New("channel name is taken")

// HearthChannels returns the channels Hearth itself opens sessions on,
// sorted.
func HearthChannels() []string {
	out := make([]string, 0, len(hearthChannels))
	for n := range hearthChannels {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// IsReservedChannel reports whether no plugin may own the channel name:
// it is one of Hearth's channels or a reserved name.
func IsReservedChannel(name string) bool {
	return hearthChannels[key(name)] || IsReserved(name)
}

// ChannelBinder keeps channel claims across runs (the store): a channel
// name stays its plugin's until that plugin is forgotten.
type ChannelBinder interface {
	// BindChannelName binds the channel name to plugin unless it is bound
	// already, and returns the plugin it is bound to now.
	BindChannelName(ctx context.Context, name, plugin string) (owner string, err error)
	// PluginOwners returns the plugin names bound to installed plugins,
	// in lower case (the values are not used here).
	PluginOwners(ctx context.Context) (map[string]string, error)
}

// SetChannelBinder makes the registry keep its channel claims in b too.
func (r *Registry) SetChannelBinder(b ChannelBinder) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.binder = b
}

// ClaimChannel makes plugin the owner of the channel name until
// ReleaseChannel, and for good with a ChannelBinder. Claiming a channel
// plugin holds already is a no-op. It fails with ErrReserved for a
// reserved channel and with ErrChannelTaken when another plugin claimed
// it (now, or in an earlier run with a binder) or is named so, loaded or
// installed (a channel named after a plugin is that plugin's: the
// sessions (qq, *) belong to the plugin qq).
func (r *Registry) ClaimChannel(ctx context.Context, name, plugin string) error {
	if IsReservedChannel(name) {
		return fmt.Errorf("%w: %q is one of Hearth's channels", ErrReserved, name)
	}
	r.mu.Lock()
	if o, ok := r.chans[key(name)]; ok {
		r.mu.Unlock()
		if key(o) == key(plugin) {
			return nil
		}
		return fmt.Errorf("%w: %q is plugin %q's channel", ErrChannelTaken, name, o)
	}
	if _, ok := r.held[key(name)]; ok && key(name) != key(plugin) {
		r.mu.Unlock()
		return fmt.Errorf("%w: %q is the name of another plugin", ErrChannelTaken, name)
	}
	b := r.binder
	r.mu.Unlock()
	if b != nil && key(name) != key(plugin) {
		bound, err := b.PluginOwners(ctx)
		if err != nil {
			return fmt.Errorf("claim channel %q: %w", name, err)
		}
		if _, ok := bound[key(name)]; ok {
			return fmt.Errorf("%w: %q is the name of an installed plugin", ErrChannelTaken, name)
		}
		owner, err := b.BindChannelName(ctx, name, plugin)
		if err != nil {
			return fmt.Errorf("claim channel %q: %w", name, err)
		}
		if key(owner) != key(plugin) {
			return fmt.Errorf("%w: %q is bound to plugin %q (hearth plugin forget %s frees it)", ErrChannelTaken, name, owner, owner)
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if o, ok := r.chans[key(name)]; ok && key(o) != key(plugin) {
		return fmt.Errorf("%w: %q is plugin %q's channel", ErrChannelTaken, name, o)
	}
	if r.chans == nil {
		r.chans = map[string]string{}
	}
	r.chans[key(name)] = plugin
	return nil
}

// ChannelOwner returns the plugin holding the channel name.
func (r *Registry) ChannelOwner(name string) (plugin string, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	plugin, ok = r.chans[key(name)]
	return plugin, ok
}

// ReleaseChannel gives plugin's channel name back; another plugin's claim
// is left alone.
func (r *Registry) ReleaseChannel(name, plugin string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if o, ok := r.chans[key(name)]; ok && key(o) == key(plugin) {
		delete(r.chans, key(name))
	}
}
