// Package pluginhost loads plugins that live outside the kernel: child
// processes speaking the Hearth plugin protocol (sdk/wire) or xbot's, and
// the MCP servers of config.json (mcp*.go: over stdio or HTTP, through
// the official MCP Go SDK), each supervised (handshake deadline, crash detection by waiting on the
// process, restart with backoff, liveness pings, graceful stop), with its
// tools, stage handlers and hooks withdrawn while it is down.
package pluginhost

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/hearth-agent/hearth/internal/names"
	"github.com/hearth-agent/hearth/sdk"
)

// ManifestFile is the name of a plugin folder's manifest.
const ManifestFile = "plugin.json"

// Manifest is plugin.json: how to run a plugin and what it may use.
type Manifest struct {
	ID          string `json:"id"`
	Name        string `json:"name,omitempty"`
	Version     string `json:"version,omitempty"`
	Description string `json:"description,omitempty"`
	// Runtime is "process" (the Hearth protocol; the default), or
	// "stdio" (also spelled "grpc") for xbot stdio plugins.
	Runtime string `json:"runtime,omitempty"`
	// Executable is xbot's spelling of a program without arguments; it
	// wins over Entry.
	Executable string `json:"executable,omitempty"`
	// Command is the program and its arguments, relative to the plugin
	// folder or on PATH. Entry is the same as one string split on spaces
	// (xbot's spelling); Command wins.
	Command []string `json:"command,omitempty"`
	Entry   string   `json:"entry,omitempty"`
	// Capabilities are the SDK method groups the plugin may call besides
	// core: llm, settings, memory, knowledge. Empty means core only.
	Capabilities []string `json:"capabilities,omitempty"`
	// Env adds variables to the plugin's otherwise minimal environment.
	Env map[string]string `json:"env,omitempty"`
	// Config is passed to the plugin's factory.
	Config map[string]any `json:"config,omitempty"`
	// Timeout is the default deadline of the plugin's tools (Go duration,
	// e.g. "30s").
	Timeout string `json:"timeout,omitempty"`

	// DefaultModes are the plugin's default modes, in force before its
	// process answers; the manifest it sends at initialize can make them
	// stricter, never looser (see policy.go).
	DefaultModes map[sdk.Effect]sdk.Mode `json:"defaultModes,omitempty"`
	// DecisionHook says the plugin guards tool calls with a decision hook:
	// from its start until it is stopped, a call is refused whenever the
	// hook cannot answer. xbot plugins declare it with a PreToolUse hook
	// in contributes.hooks.
	DecisionHook bool `json:"decisionHook,omitempty"`
	// Contributes is xbot's (documentation-only) list of contributions;
	// Hearth reads only contributes.hooks.
	Contributes json.RawMessage `json:"contributes,omitempty"`
	// Web is xbot's web UI block (views for xbot's web front end); Hearth
	// does not host them and says so when the plugin starts.
	Web json.RawMessage `json:"web,omitempty"`
}

// Compiled on first use, not in every start of hearth (and its shim).
var (
	xbotIDPattern = lazyRegexp(`^[a-zA-Z0-9][a-zA-Z0-9._-]{0,127}$`)
	notNameChar   = lazyRegexp(`[^a-z0-9-]+`)
)

// lazyRegexp returns a function that compiles expr on its first call and
// returns the same *regexp.Regexp after.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// Xbot reports whether the plugin speaks xbot's stdio protocol.
func (m *Manifest) Xbot() bool { return m.Runtime == "stdio" || m.Runtime == "grpc" }

// Script reports whether the plugin is an xbot script plugin (runtime
// "script"): a program run on each trigger, with no process between
// runs (see xbotscript.go).
func (m *Manifest) Script() bool { return m.Runtime == "script" }

// PluginName is the name the plugin's tools, settings, storage and data
// folder are kept under: the id, or for an xbot id like com.example.hello
// a name made of its lowercase letters, digits and dashes
// (com-example-hello). Two ids can give one name (Pay_ and pay); the name
// is what must be unique, and the first plugin to claim it keeps it.
func (m *Manifest) PluginName() string {
	if !m.Xbot() && !m.Script() {
		return m.ID
	}
	n := strings.Trim(notNameChar().ReplaceAllString(strings.ToLower(m.ID), "-"), "-")
	if len(n) > 40 {
		n = strings.Trim(n[len(n)-40:], "-")
	}
	return n
}

// owner describes the plugin of folder dir to another plugin that wants
// its name.
func owner(dir string, m *Manifest) string {
	return fmt.Sprintf("the plugin in %s (id %q)", dir, m.ID)
}

// knownGroups are the capability groups a manifest may declare.
var knownGroups = map[string]bool{"core": true, "llm": true, "settings": true, "settings.core": true,
	"settings.plugins": true, "settings.plugins.write": true, "kv": true, "memory": true, "knowledge": true,
	sdk.CapabilityInjectChannels: true, sdk.CapabilityInjectUser: true, sdk.CapabilityMemoryShared: true}

// LoadManifest reads and checks dir/plugin.json.
func LoadManifest(dir string) (*Manifest, error) {
	path := filepath.Join(dir, ManifestFile)
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseManifest(path, b)
}

// ParseManifest decodes and checks a manifest's content.
func ParseManifest(path string, b []byte) (*Manifest, error) {
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	switch m.Runtime {
	case "", "process":
		if !names.ValidID(m.ID) {
			return nil, fmt.Errorf("%s: id %q must be %s", path, m.ID, names.IDRule)
		}
	case "stdio", "grpc", "script":
		if !xbotIDPattern().MatchString(m.ID) || len(m.PluginName()) < 2 {
			return nil, fmt.Errorf("%s: id %q must match %s", path, m.ID, xbotIDPattern())
		}
	default:
		return nil, fmt.Errorf("%s: runtime %q is not supported (use \"process\", or \"stdio\" or \"script\" for xbot plugins)", path, m.Runtime)
	}
	if err := names.CheckReserved(m.PluginName()); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if strings.HasPrefix(m.PluginName(), MCPPrefix) {
		return nil, fmt.Errorf("%s: id %q: names starting with %q belong to the MCP servers of config.json", path, m.ID, MCPPrefix)
	}
	if len(m.Command) == 0 && m.Executable != "" {
		m.Command = []string{m.Executable}
	}
	if len(m.Command) == 0 && strings.TrimSpace(m.Entry) != "" {
		m.Command = strings.Fields(m.Entry)
	}
	if len(m.Command) == 0 {
		return nil, fmt.Errorf("%s: no command to run (set \"command\")", path)
	}
	for _, g := range m.Capabilities {
		if !knownGroups[g] {
			return nil, fmt.Errorf("%s: unknown capability group %q (known: core, llm, settings, settings.core, settings.plugins, settings.plugins.write, kv, memory, memory.shared, knowledge, input.channels, input.user)", path, g)
		}
	}
	for e, mode := range m.DefaultModes {
		if !e.Valid() || !mode.Valid() {
			return nil, fmt.Errorf("%s: defaultModes: %q: %q: want an effect (read, write, money, public) and a mode (auto, ask, off)", path, e, mode)
		}
	}
	if m.Timeout != "" {
		if d, err := time.ParseDuration(m.Timeout); err != nil || d <= 0 {
			return nil, fmt.Errorf("%s: timeout %q is not a positive Go duration like \"30s\"", path, m.Timeout)
		}
	}
	return &m, nil
}

// ToolTimeout returns the manifest's tool timeout, or 0.
func (m *Manifest) ToolTimeout() time.Duration {
	d, _ := time.ParseDuration(m.Timeout)
	return d
}

// ErrNoManifest means a folder has no plugin.json.
var ErrNoManifest = errors.New("no " + ManifestFile)
