package sdk

import "fmt"

// This file holds HomeAgent's PluginSDK names that Hearth implements
// with their HomeAgent meaning, or as clear run-time refusals where
// Hearth has no such mechanism, so that HomeAgent plugins compile
// unchanged.

// IOInjector is HomeAgent's input-injection method set. *PluginSDK
// satisfies it; a plugin may hand its PluginSDK to code written against
// it.
type IOInjector interface {
	InjectInterruptText(source, channel, text string)
	InjectText(source, channel, text string)
	InjectTextNoMemory(source, channel, text string)
	InjectInputSync(source, channel, text string) string
	SetToolBlocks(blocks []ContentBlock)
	InjectInputMedia(source, channel, text string, blocks []ContentBlock)
	InjectInputMediaSync(source, channel, text string, blocks []ContentBlock) string
	InjectInterruptMedia(source, channel, text string, blocks []ContentBlock)
	InjectTextOpts(source, channel, text string, opts InjectOptions)
	InjectInterruptTextOpts(source, channel, text string, opts InjectOptions)
	InjectInputSyncOpts(source, channel, text string, opts InjectOptions) string
	InjectInputMediaOpts(source, channel, text string, blocks []ContentBlock, opts InjectOptions)
	InjectInputMediaSyncOpts(source, channel, text string, blocks []ContentBlock, opts InjectOptions) string
	InjectInterruptMediaOpts(source, channel, text string, blocks []ContentBlock, opts InjectOptions)
}

var _ IOInjector = (*PluginSDK)(nil)

// ToolRegistrar is HomeAgent's function type for registering a tool;
// PluginSDK.RegisterTool is one.
type ToolRegistrar func(name string, def ToolDef, handler ToolHandler) error

// StageRegistrar is HomeAgent's function type for registering a stage
// handler in the global scope.
type StageRegistrar func(stage Stage, handler StageHandler)

// APIRegistrar is HomeAgent's function type for registering a plugin API;
// PluginSDK.RegisterPluginAPI is one.
type APIRegistrar func(name string) error

// InputChannelRegistrar is HomeAgent's function type for registering an
// input channel; PluginSDK.RegisterInputChannel is one.
type InputChannelRegistrar func(name string, def ChannelDef) error

// OutputChannelRegistrar is HomeAgent's function type for registering an
// output channel; PluginSDK.RegisterOutputChannel is one.
type OutputChannelRegistrar func(name string, caps int, desc string, def ChannelDef, handler ToolHandler) error

var (
	_ ToolRegistrar          = (*PluginSDK)(nil).RegisterTool
	_ APIRegistrar           = (*PluginSDK)(nil).RegisterPluginAPI
	_ InputChannelRegistrar  = (*PluginSDK)(nil).RegisterInputChannel
	_ OutputChannelRegistrar = (*PluginSDK)(nil).RegisterOutputChannel
)

// IsResponded reports whether a handler has set Response (HomeAgent's).
func (c *StageContext) IsResponded() bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.Response != nil
}

// RunStopHandlers runs and clears the plugin's stop handlers now, last
// registered first, as HomeAgent's does; the host runs whatever is left
// before Stop. Calling it twice runs each handler once.
func (s *PluginSDK) RunStopHandlers() { s.runHandlers(&s.onStop) }

// RunOnRemoveHandlers runs and clears the plugin's remove handlers now,
// last registered first; the host runs whatever is left on uninstall.
func (s *PluginSDK) RunOnRemoveHandlers() { s.runHandlers(&s.onRemove) }

// RegisterPluginAPI is HomeAgent's registration of an API other plugins
// call. Hearth has no plugin-to-plugin API; it returns an error wrapping
// ErrUnavailable.
func (s *PluginSDK) RegisterPluginAPI(name string) error {
	return fmt.Errorf("plugin API %q: plugin-to-plugin APIs: %w", name, ErrUnavailable)
}

// PluginMgrAPI is HomeAgent's plugin manager as a plugin sees it.
type PluginMgrAPI interface {
	ReloadOne(name string) error
	ListLoadedPlugins() []string
	IsPluginDisabled(name string) bool
}

// PluginMgr returns the plugin manager. Hearth does not let a plugin
// manage plugins: ReloadOne returns an error wrapping ErrUnavailable,
// ListLoadedPlugins only the plugin itself, IsPluginDisabled false.
func (s *PluginSDK) PluginMgr() PluginMgrAPI { return noPluginMgr{self: s.name} }

// noPluginMgr is PluginMgr's refusal.
type noPluginMgr struct{ self string }

// ReloadOne refuses.
func (noPluginMgr) ReloadOne(name string) error {
	return fmt.Errorf("reloading plugin %q: %w (use `hearth plugin`)", name, ErrUnavailable)
}

// ListLoadedPlugins returns the calling plugin only.
func (m noPluginMgr) ListLoadedPlugins() []string { return []string{m.self} }

// IsPluginDisabled returns false.
func (noPluginMgr) IsPluginDisabled(string) bool { return false }

// SocialAPI is HomeAgent's read-only social graph.
type SocialAPI interface {
	GetPerson(name string) (*PersonProfile, error)
	GetTrait(name, trait string) (string, bool)
	GetRelations(name string) ([]SocialRelation, error)
	GetNetwork(name string, depth int) ([]*PersonProfile, error)
	ListPersons() ([]string, error)
}

// PersonProfile is a person of the social graph.
type PersonProfile struct {
	Name      string            `json:"name"`
	Traits    map[string]string `json:"traits,omitempty"`
	Relations []SocialRelation  `json:"relations,omitempty"`
}

// SocialRelation is a relation of a person to another.
type SocialRelation struct {
	Person   string `json:"person"`
	Relation string `json:"relation"`
}

// Social returns the social graph. Hearth keeps none: its methods
// return errors wrapping ErrUnavailable (GetTrait reports not found).
func (s *PluginSDK) Social() SocialAPI { return noSocial{} }

// noSocial is Social's refusal.
type noSocial struct{}

func socialErr() error { return fmt.Errorf("social graph: %w", ErrUnavailable) }

// GetPerson refuses.
func (noSocial) GetPerson(string) (*PersonProfile, error) { return nil, socialErr() }

// GetTrait finds nothing.
func (noSocial) GetTrait(string, string) (string, bool) { return "", false }

// GetRelations refuses.
func (noSocial) GetRelations(string) ([]SocialRelation, error) { return nil, socialErr() }

// GetNetwork refuses.
func (noSocial) GetNetwork(string, int) ([]*PersonProfile, error) { return nil, socialErr() }

// ListPersons refuses.
func (noSocial) ListPersons() ([]string, error) { return nil, socialErr() }
