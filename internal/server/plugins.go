package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/hearth-agent/hearth/internal/channel/terminal"
	"github.com/hearth-agent/hearth/internal/pluginhost"
	"github.com/hearth-agent/hearth/internal/redact"
	"github.com/hearth-agent/hearth/sdk"
)

// The plugin kinds of Plugin.Kind.
const (
	KindBuiltin = "builtin" // compiled into Hearth
	KindProcess = "process" // a child process speaking Hearth's protocol
	KindXbot    = "xbot"    // xbot's stdio protocol, or an xbot script plugin
	KindSO      = "so"      // a HomeAgent .so, run by the .so loader child
)

// The plugin states of Plugin.State.
const (
	StateRunning  = "running"
	StateStarting = "starting"
	StateStopped  = "stopped"
	StateFailed   = "failed"
	StateDisabled = "disabled"
	StateHidden   = "hidden"
)

// stderrLines is how many of a plugin's last stderr lines are shown.
const stderrLines = 50

// Plugin is one plugin as GET /v1/plugins shows it.
type Plugin struct {
	// ID is the name its tools, settings and data are kept under.
	ID string `json:"id"`
	// ManifestID is plugin.json's id when it differs from ID (an xbot id
	// such as com.example.hello).
	ManifestID string `json:"manifest_id,omitempty"`
	Kind       string `json:"kind"`  // builtin, process, xbot, so
	State      string `json:"state"` // running, starting, stopped, failed, disabled, hidden
	// Reason says why the plugin is not running ("" when it is).
	Reason  string `json:"reason,omitempty"`
	Enabled bool   `json:"enabled"`
	// Folder is the plugin's folder (not for built-ins).
	Folder    string `json:"folder,omitempty"`
	PID       int    `json:"pid,omitempty"`
	Restarts  int    `json:"restarts"`
	LastError string `json:"last_error,omitempty"`
	// Stderr is the last lines the process wrote to stderr, with secrets
	// (model keys, secret settings, anything that looks like a key)
	// masked and control characters neutralised.
	Stderr []string     `json:"stderr"`
	Tools  []PluginTool `json:"tools"`
	// Capabilities are the SDK groups beyond core the plugin declared
	// (llm, settings, memory, knowledge); known for folder plugins.
	Capabilities []string `json:"capabilities"`
	// LiveToggle says whether enable and disable take effect at once;
	// false for built-in and .so plugins (at the next start).
	LiveToggle bool `json:"live_toggle"`
}

// PluginTool is one tool a plugin registered.
type PluginTool struct {
	Name        string `json:"name"`  // as the model sees it: plugin__tool
	Local       string `json:"local"` // inside the plugin
	Title       string `json:"title,omitempty"`
	Description string `json:"description"`
	Effect      string `json:"effect"`
}

// PluginList is GET /v1/plugins's answer.
type PluginList struct {
	Plugins []Plugin `json:"plugins"`
}

// PluginAction is the answer to enable, disable and reload.
type PluginAction struct {
	Plugin Plugin `json:"plugin"`
	// Applied is true when the change is in force now.
	Applied bool `json:"applied"`
	// RestartRequired is true when it takes effect at Hearth's next start.
	RestartRequired bool   `json:"restart_required"`
	Message         string `json:"message"`
}

func (s *Server) pluginRoutes() []route {
	return []route{
		{method: "GET", path: "/v1/plugins", summary: "Every plugin: kind, state, why it is not running, stderr tail, tools, capabilities.",
			out: PluginList{}, h: s.listPlugins},
		{method: "GET", path: "/v1/plugins/{id}", summary: "One plugin.", out: Plugin{}, h: s.getPlugin},
		{method: "POST", path: "/v1/plugins/{id}/enable", summary: "Enable a plugin (remembered).", out: PluginAction{},
			h: func(w http.ResponseWriter, r *http.Request) { s.togglePlugin(w, r, true) }},
		{method: "POST", path: "/v1/plugins/{id}/disable", summary: "Disable a plugin (remembered).", out: PluginAction{},
			h: func(w http.ResponseWriter, r *http.Request) { s.togglePlugin(w, r, false) }},
		{method: "POST", path: "/v1/plugins/{id}/reload", summary: "Restart a folder plugin.", out: PluginAction{}, h: s.reloadPlugin},
	}
}

func (s *Server) listPlugins(w http.ResponseWriter, r *http.Request) {
	list, err := s.plugins(r)
	if err != nil {
		s.internalError(w, "listing plugins", err)
		return
	}
	writeJSON(w, http.StatusOK, PluginList{Plugins: list})
}

func (s *Server) getPlugin(w http.ResponseWriter, r *http.Request) {
	p, _, ok := s.findPlugin(w, r)
	if ok {
		writeJSON(w, http.StatusOK, p)
	}
}

// findPlugin finds the plugin {id} names, by ID or manifest id, with its
// folder's Info (nil for built-ins); it has answered 404 or 500 if not ok.
func (s *Server) findPlugin(w http.ResponseWriter, r *http.Request) (Plugin, *pluginhost.Info, bool) {
	id := r.PathValue("id")
	list, infos, err := s.pluginsWithInfo(r)
	if err != nil {
		s.internalError(w, "listing plugins", err)
		return Plugin{}, nil, false
	}
	for i, p := range list {
		if p.ID == id || (p.ManifestID != "" && p.ManifestID == id) {
			return p, infos[i], true
		}
	}
	writeError(w, http.StatusNotFound, "no_plugin", fmt.Sprintf("no plugin %q", id))
	return Plugin{}, nil, false
}

func (s *Server) togglePlugin(w http.ResponseWriter, r *http.Request, on bool) {
	p, info, ok := s.findPlugin(w, r)
	if !ok {
		return
	}
	verb := map[bool]string{true: "enabled", false: "disabled"}[on]
	switch {
	case p.Kind == KindBuiltin && p.Enabled == on:
		writeJSON(w, http.StatusOK, PluginAction{Plugin: p, Applied: true, Message: p.ID + " is already " + verb})
		return
	case p.Kind == KindBuiltin:
		// The kernel cannot stop a compiled-in plugin while it runs, nor
		// start one it skipped: the config decides at start.
		writeError(w, http.StatusConflict, "restart_required", fmt.Sprintf(
			"%s is compiled into Hearth: it is %s by config.json (disabled_plugins, or plugins.<id>.enabled), read at start; "+
				"edit it and restart Hearth to change it", p.ID, map[bool]string{true: "turned off", false: "turned on"}[p.Enabled]))
		return
	case info == nil:
		writeError(w, http.StatusConflict, "not_toggleable", p.ID+" cannot be "+verb+" here")
		return
	}
	// The same path as `hearth plugin enable|disable`: the state is
	// remembered in the store, then the folder is scanned again.
	if err := s.app.Plugins.SetEnabled(r.Context(), info.ID, on); err != nil {
		s.log.Warn("plugin scan after a change", "plugin", p.ID, "err", err)
	}
	after, _, ok := s.findPlugin(w, r)
	if !ok {
		return
	}
	if after.Enabled != on {
		s.internalError(w, "changing a plugin", errors.New("the change was not stored"))
		return
	}
	act := PluginAction{Plugin: after, Applied: true, Message: p.ID + " " + verb}
	writeJSON(w, http.StatusOK, act)
}

func (s *Server) reloadPlugin(w http.ResponseWriter, r *http.Request) {
	p, info, ok := s.findPlugin(w, r)
	if !ok {
		return
	}
	if info == nil {
		writeError(w, http.StatusConflict, "restart_required",
			p.ID+" runs inside Hearth and cannot be restarted alone; restart Hearth to reload it")
		return
	}
	if !p.Enabled {
		writeError(w, http.StatusConflict, "plugin_disabled", p.ID+" is disabled; enable it to start it")
		return
	}
	// The same path as `hearth plugin reload`.
	if err := s.app.Plugins.Reload(r.Context(), info.ID); err != nil {
		s.log.Warn("plugin scan after a reload", "plugin", p.ID, "err", err)
	}
	after, _, ok := s.findPlugin(w, r)
	if ok {
		writeJSON(w, http.StatusOK, PluginAction{Plugin: after, Applied: true, Message: p.ID + " restarted"})
	}
}

// plugins describes every plugin: built-ins, then folder plugins, by id.
func (s *Server) plugins(r *http.Request) ([]Plugin, error) {
	list, _, err := s.pluginsWithInfo(r)
	return list, err
}

// pluginsWithInfo is plugins with each folder plugin's Info beside it.
func (s *Server) pluginsWithInfo(r *http.Request) ([]Plugin, []*pluginhost.Info, error) {
	k := s.app.Kernel
	loaded, hidden := k.Plugins(), k.Hidden()
	tools := map[string][]PluginTool{}
	for _, t := range k.Tools().List() {
		tools[t.Plugin] = append(tools[t.Plugin], PluginTool{Name: t.Name, Local: t.Local, Title: t.Def.Title,
			Description: t.Def.Description, Effect: string(t.Def.EffectiveEffect())})
	}
	var out []Plugin
	var infos []*pluginhost.Info
	for _, name := range sdk.Factories() {
		p := Plugin{ID: name, Kind: KindBuiltin, Enabled: !s.app.Config.BuiltinDisabled(name)}
		switch reason, isHidden := hidden[name]; {
		case slices.Contains(loaded, name):
			p.State = StateRunning
		case isHidden:
			p.State, p.Reason = StateHidden, reason
		case !p.Enabled:
			p.State, p.Reason = StateDisabled, "disabled in the config (disabled_plugins, or plugins.<id>.enabled)"
		default:
			p.State, p.Reason = StateFailed, "not loaded"
			if owner, ok := k.Names().Owner(name); ok {
				if _, why, cut := strings.Cut(owner, "(not loaded: "); cut {
					p.Reason = "not loaded: " + strings.TrimSuffix(why, ")")
				}
			}
		}
		out = append(out, p)
		infos = append(infos, nil)
	}
	folder, err := s.app.Plugins.List(r.Context())
	if err != nil {
		return nil, nil, err
	}
	mask := s.stderrMask()
	for i := range folder {
		info := &folder[i]
		p := folderPlugin(info, hidden)
		p.Stderr = []string{}
		p.Reason = terminal.SanitizeLine(mask(p.Reason))
		if info.Status != nil {
			st := info.Status
			p.PID, p.Restarts = st.PID, st.Restarts
			p.LastError = terminal.SanitizeLine(mask(st.LastError))
			lines := st.Stderr
			if len(lines) > stderrLines {
				lines = lines[len(lines)-stderrLines:]
			}
			for _, l := range lines {
				p.Stderr = append(p.Stderr, terminal.SanitizeLine(mask(l)))
			}
		}
		out = append(out, p)
		infos = append(infos, info)
	}
	// Plugins loaded into the kernel by other means than a factory or the
	// plugins folder (an embedding program's) are shown as built-ins.
	for _, name := range loaded {
		if !slices.ContainsFunc(out, func(p Plugin) bool { return p.ID == name }) {
			out = append(out, Plugin{ID: name, Kind: KindBuiltin, Enabled: true, State: StateRunning})
			infos = append(infos, nil)
		}
	}
	for i := range out {
		out[i].Tools = tools[out[i].ID]
		if out[i].Tools == nil {
			out[i].Tools = []PluginTool{}
		}
		if out[i].Stderr == nil {
			out[i].Stderr = []string{}
		}
		if out[i].Capabilities == nil {
			out[i].Capabilities = []string{}
		}
	}
	return out, infos, nil
}

// folderPlugin describes a plugin of the plugins folder.
func folderPlugin(info *pluginhost.Info, hidden map[string]string) Plugin {
	p := Plugin{ID: info.ID, Kind: KindProcess, Enabled: info.Enabled, Folder: info.Dir,
		Capabilities: slices.Clone(info.Capabilities), LiveToggle: true}
	if man, err := pluginhost.LoadManifest(info.Dir); err == nil {
		if man.PluginName() != man.ID {
			p.ID, p.ManifestID = man.PluginName(), man.ID
		}
		if man.Xbot() || man.Script() {
			p.Kind = KindXbot
		}
	} else if info.Kind == KindSO {
		p.Kind = KindSO
	}
	st := info.Status
	reason, isHidden := hidden[p.ID]
	switch {
	case info.Error != "":
		p.State, p.Reason = StateFailed, info.Error
	case !info.Enabled:
		p.State, p.Reason = StateDisabled, "disabled (hearth plugin enable "+info.ID+", or POST /v1/plugins/"+info.ID+"/enable)"
	case isHidden:
		p.State, p.Reason = StateHidden, reason
	case st == nil:
		p.State, p.Reason = StateStopped, "not running in this Hearth"
	case st.State == pluginhost.Running || strings.HasPrefix(string(st.State), "loaded"):
		p.State = StateRunning
	case st.State == pluginhost.Starting:
		p.State = StateStarting
	case st.State == pluginhost.Backoff:
		p.State, p.Reason = StateFailed, "crashed; waiting to restart: "+st.LastError
	case st.State == pluginhost.Failed:
		p.State, p.Reason = StateFailed, st.LastError
	default:
		p.State, p.Reason = StateStopped, st.LastError
	}
	return p
}

// stderrMask returns a function masking the secrets a plugin's stderr may
// show: the model sources' keys, every secret setting's value, and
// anything that looks like a key.
func (s *Server) stderrMask() func(string) string {
	var own redact.Secrets
	if nss, err := s.app.Settings.Namespaces(); err == nil {
		for _, ns := range append(nss, "core") {
			keys, err := s.app.Settings.Keys(ns, "")
			if err != nil {
				continue
			}
			for _, k := range keys {
				if !s.app.Settings.Secret(ns, k) {
					continue
				}
				raw, ok, err := s.app.Settings.Value(ns, k)
				var v string
				if err == nil && ok && json.Unmarshal(raw, &v) == nil {
					own.Add(v)
				}
			}
		}
	}
	sources := s.app.Sources.Secrets()
	return func(text string) string { return sources.All(own.String(text)) }
}

// internalError logs err and answers 500 without its text, which may
// name files or values.
func (s *Server) internalError(w http.ResponseWriter, doing string, err error) {
	s.log.Error("api: "+doing, "err", err)
	writeError(w, http.StatusInternalServerError, "internal_error", doing+" failed; see hearth.log")
}
