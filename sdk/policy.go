package sdk

import (
	"context"
	"fmt"
	"regexp"
	"strings"
)

// Effect says what a tool call does to the world; the host decides from it
// whether to run the call, ask the user first, or refuse. A tool that
// declares no effect counts as EffectWrite.
type Effect string

// The four effects of the PKU harness model, from least to most sensitive.
const (
	EffectRead   Effect = "read"   // only reads
	EffectWrite  Effect = "write"  // changes the user's data or devices
	EffectMoney  Effect = "money"  // spends money
	EffectPublic Effect = "public" // publishes, or speaks for the user to others
)

// Effects returns the four effects in order, in a new slice.
func Effects() []Effect { return []Effect{EffectRead, EffectWrite, EffectMoney, EffectPublic} }

// Valid reports whether e is one of the four effects.
func (e Effect) Valid() bool {
	switch e {
	case EffectRead, EffectWrite, EffectMoney, EffectPublic:
		return true
	}
	return false
}

// Mode is how calls of an effect are authorized.
type Mode string

// The modes.
const (
	ModeAuto Mode = "auto" // run
	ModeAsk  Mode = "ask"  // ask the user first
	ModeOff  Mode = "off"  // refuse
)

// Valid reports whether m is one of the three modes.
func (m Mode) Valid() bool { return m == ModeAuto || m == ModeAsk || m == ModeOff }

// Target is what a call will act on, as the host observed it, shown as the
// title of an approval prompt apart from the model's arguments.
type Target struct {
	Label   string `json:"label"`
	Context string `json:"context,omitempty"`
}

// Assessment is what a ResolveEffect function found: an effect to check in
// addition to the declared one, and optionally the target.
type Assessment struct {
	Effect Effect  `json:"effect"`
	Target *Target `json:"target,omitempty"`
}

// ResolveEffectFunc inspects a call's validated arguments (and whatever
// outside state it needs) and returns the effect the call will really have.
// The host checks it together with ToolDef.Effect, and the stricter
// decision wins; an error refuses the call.
type ResolveEffectFunc func(ctx context.Context, args map[string]any) (Assessment, error)

// Capability is something a plugin needs from the device (PKU harness
// "requires"). A plugin whose requirements are not met is hidden, with the
// reason shown to the user.
type Capability string

// The capabilities of the PKU harness model.
const (
	CapNetwork       Capability = "network"
	CapCampusNetwork Capability = "campus-network"
	CapCampusSession Capability = "campus-session"
	CapNotifications Capability = "notifications"
	CapBackground    Capability = "background"
	CapShell         Capability = "shell"
	CapFilesystem    Capability = "filesystem"
	CapCloud         Capability = "cloud"
	CapPhoneControl  Capability = "phone-control"
	CapOngoing       Capability = "ongoing"
)

// Manifest is the PKU harness plugin manifest in Go. A plugin provides one
// by implementing ManifestProvider; plugins without one get a manifest
// derived from their name, with no requirements and every effect auto.
type Manifest struct {
	// ID must match ^[a-z0-9][a-z0-9_-]{1,40}$, without "__" or a final
	// '_' (HomeAgent's ids like ai_image are valid), and equal the
	// plugin's registered name.
	ID          string `json:"id"`
	Name        string `json:"name"`        // display name, Chinese
	Description string `json:"description"` // one sentence, Chinese
	Version     string `json:"version"`     // semver
	Icon        string `json:"icon,omitempty"`
	// Core plugins are always on and cannot be disabled.
	Core bool `json:"core,omitzero"`
	// Requires lists what the device must provide.
	Requires []Capability `json:"requires,omitempty"`
	// Capabilities are the host capability groups the plugin uses beyond
	// core. Compiled in, Hearth reads CapabilityInjectChannels,
	// CapabilityInjectUser and CapabilityMemoryShared here; a child
	// process declares its groups in plugin.json instead, and what it
	// sends here is ignored.
	Capabilities []string `json:"capabilities,omitempty"`
	// Scopes are the services or hosts the plugin reaches, shown to users.
	Scopes []string `json:"scopes"`
	// DefaultModes is the authorization of each effect unless the user
	// changes it; missing effects are auto.
	DefaultModes map[Effect]Mode `json:"defaultModes,omitempty"`
	// Instructions are appended to the system prompt; InstructionsFunc,
	// when set, computes them instead. Name tools as the model sees them
	// (plugin__tool).
	Instructions     string        `json:"instructions,omitempty"`
	InstructionsFunc func() string `json:"-"`
	// Context, when set, is called before each turn; its text is shown to
	// the model for that turn, marked as data rather than instructions.
	Context func(ctx context.Context, in ContextInput) (string, error) `json:"-"`
	// Contributes declares user-interface contributions (screens,
	// settings, widgets, commands) as free-form data for channels that
	// show them.
	Contributes map[string]any `json:"contributes,omitempty"`
	// I18n holds the English strings.
	I18n *ManifestI18n `json:"i18n,omitempty"`
	// Legacy lists ids this plugin replaces.
	Legacy *Legacy `json:"legacy,omitempty"`
}

// ContextInput is what Manifest.Context receives.
type ContextInput struct {
	Query string // the user's latest message
}

// ManifestI18n carries translations of a manifest's user-facing strings.
type ManifestI18n struct {
	En *Translation `json:"en,omitempty"`
}

// Translation is the English version of a manifest's strings; missing ones
// fall back to the original.
type Translation struct {
	Name        string                       `json:"name,omitempty"`
	Description string                       `json:"description,omitempty"`
	Tools       map[string]ToolTranslation   `json:"tools,omitempty"`
	Scopes      map[string]string            `json:"scopes,omitempty"`
	Extra       map[string]map[string]string `json:"extra,omitempty"`
	// Preferences translate a PKU plugin's preferences, by name.
	Preferences map[string]PreferenceTranslation `json:"preferences,omitempty"`
	// DataSources translate a PKU plugin's data source titles, by key.
	DataSources map[string]ToolTranslation `json:"dataSources,omitempty"`
}

// PreferenceTranslation is the English title, description and option
// labels (by value) of a preference.
type PreferenceTranslation struct {
	Title       string            `json:"title,omitempty"`
	Description string            `json:"description,omitempty"`
	Options     map[string]string `json:"options,omitempty"`
}

// ToolTranslation is the English title of a tool.
type ToolTranslation struct {
	Title string `json:"title,omitempty"`
}

// Legacy maps old ids onto this plugin.
type Legacy struct {
	PluginIDs []string          `json:"pluginIds,omitempty"`
	Tools     map[string]string `json:"tools,omitempty"` // old "<plugin>.<tool>" -> tool name here
	// Widgets maps old "<plugin>.<widget>" to a widget key of this plugin.
	Widgets map[string]string `json:"widgets,omitempty"`
}

// ManifestProvider is implemented by plugins that declare a manifest.
type ManifestProvider interface {
	Manifest() Manifest
}

var (
	manifestIDPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{1,40}$`)
	semverPattern     = regexp.MustCompile(`^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$`)
)

// Validate checks the manifest's fields and returns the first problem.
func (m Manifest) Validate() error {
	if !manifestIDPattern.MatchString(m.ID) || strings.Contains(m.ID, "__") || strings.HasSuffix(m.ID, "_") {
		return fmt.Errorf("manifest id %q must match %s, without \"__\" or a final '_'", m.ID, manifestIDPattern)
	}
	if strings.TrimSpace(m.Name) == "" {
		return fmt.Errorf("manifest %q: name is empty", m.ID)
	}
	if !semverPattern.MatchString(m.Version) {
		return fmt.Errorf("manifest %q: version %q is not semver (like 1.2.3)", m.ID, m.Version)
	}
	for e, mode := range m.DefaultModes {
		if !e.Valid() {
			return fmt.Errorf("manifest %q: defaultModes has unknown effect %q", m.ID, e)
		}
		if !mode.Valid() {
			return fmt.Errorf("manifest %q: defaultModes[%s] = %q, want auto, ask or off", m.ID, e, mode)
		}
	}
	return nil
}

// Verdict is a decision hook's answer.
type Verdict string

// The verdicts a decision hook can give. Several hooks' verdicts combine
// as deny > ask > allow.
const (
	VerdictAllow Verdict = "allow"
	VerdictAsk   Verdict = "ask"
	VerdictDeny  Verdict = "deny"
)

// HookDecision is a decision hook's verdict and the reason shown to the
// user and the model.
type HookDecision struct {
	Verdict Verdict `json:"verdict"`
	Reason  string  `json:"reason,omitempty"`
}

// DecisionHook is asked about every tool call the policy did not refuse,
// with the call's validated arguments. It fails closed: a hook that returns
// an error, panics, or does not answer before ctx's deadline refuses the
// call.
type DecisionHook func(ctx context.Context, tc *ToolContext, tool string, args map[string]any) (HookDecision, error)
