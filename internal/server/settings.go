package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"

	"github.com/hearth-agent/hearth/internal/settings"
	"github.com/hearth-agent/hearth/sdk"
)

// Plugin settings (HomeAgent's ConfigDef; what PKU harness calls a
// plugin's preferences is the same thing in Hearth: one registry, a
// namespace per plugin), read and changed by the owner. Secrets are
// write-only: their value and default are never answered.

// apiActor is who the audit log names for a change made through the API.
const apiActor = "api"

// Setting is one setting: its declaration, if its plugin made one, and
// its value.
type Setting struct {
	Key string `json:"key"`
	// Type is string, number, boolean (or options); "" for a key its
	// plugin did not declare. HomeAgent's types are shown as these
	// (settings.UIType): int as number with step 1, bool as boolean,
	// select and password as string (a password is a secret).
	Type        string   `json:"type"`
	Label       string   `json:"label"`
	Description string   `json:"description,omitempty"`
	Category    string   `json:"category,omitempty"`
	Options     []string `json:"options,omitempty"`
	// Min and Max bound a number when they differ; Step is its step.
	Min      *float64 `json:"min,omitempty"`
	Max      *float64 `json:"max,omitempty"`
	Step     *float64 `json:"step,omitempty"`
	Required bool     `json:"required"`
	Secret   bool     `json:"secret"`
	Declared bool     `json:"declared"`
	// Default is the declared default (null for a secret).
	Default any `json:"default"`
	// Value is the value in force, stored or default; always null for a
	// secret.
	Value any `json:"value"`
	// Set is true when a value is stored (not the default).
	Set bool `json:"set"`
}

// PluginSettings is one plugin's settings.
type PluginSettings struct {
	Plugin   string    `json:"plugin"` // "core" for Hearth's own
	Settings []Setting `json:"settings"`
}

// SettingsList is GET /v1/settings's answer.
type SettingsList struct {
	Plugins []PluginSettings `json:"plugins"`
}

// SettingsUpdate is PUT /v1/settings/{plugin}'s body: the keys to change;
// null resets a key to its default (and clears a secret).
type SettingsUpdate struct {
	Values map[string]any `json:"values"`
}

func (s *Server) settingsRoutes() []route {
	return []route{
		{method: "GET", path: "/v1/settings", summary: "Every plugin's settings: declarations and values, secrets masked.",
			out: SettingsList{}, h: s.listSettings},
		{method: "GET", path: "/v1/settings/{plugin}", summary: "One plugin's settings.", out: PluginSettings{}, h: s.getSettings},
		{method: "PUT", path: "/v1/settings/{plugin}", summary: "Change some of a plugin's settings, all or none (422 with a message per invalid key).",
			in: SettingsUpdate{}, out: PluginSettings{}, h: s.putSettings},
		{method: "DELETE", path: "/v1/settings/{plugin}/{key}", summary: "Reset a setting to its default (clears a secret).",
			out: PluginSettings{}, h: s.resetSetting},
	}
}

func (s *Server) listSettings(w http.ResponseWriter, r *http.Request) {
	nss, err := s.app.Settings.Namespaces()
	if err != nil {
		s.internalError(w, "reading settings", err)
		return
	}
	if keys, err := s.app.Settings.Keys(settings.Core, ""); err == nil && len(keys) > 0 {
		nss = append([]string{settings.Core}, nss...)
	}
	out := SettingsList{Plugins: []PluginSettings{}}
	for _, ns := range nss {
		ps, err := s.pluginSettings(r.Context(), ns)
		if err != nil {
			s.internalError(w, "reading settings", err)
			return
		}
		out.Plugins = append(out.Plugins, ps)
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) getSettings(w http.ResponseWriter, r *http.Request) {
	ns, ok := s.settingsNamespace(w, r)
	if !ok {
		return
	}
	s.answerSettings(w, r, ns)
}

func (s *Server) putSettings(w http.ResponseWriter, r *http.Request) {
	ns, ok := s.settingsNamespace(w, r)
	if !ok {
		return
	}
	var req SettingsUpdate
	if !decodeJSON(w, r, &req) {
		return
	}
	if len(req.Values) == 0 {
		writeError(w, http.StatusBadRequest, "no_values", `nothing to change: send {"values": {"key": value}}`)
		return
	}
	values := make(map[string]json.RawMessage, len(req.Values))
	for k, v := range req.Values {
		raw, err := json.Marshal(v)
		if err != nil {
			writeFieldErrors(w, "invalid settings", map[string]string{k: "cannot be encoded as JSON"})
			return
		}
		values[k] = raw
	}
	s.apply(w, r, ns, values)
}

func (s *Server) resetSetting(w http.ResponseWriter, r *http.Request) {
	ns, ok := s.settingsNamespace(w, r)
	if !ok {
		return
	}
	key := r.PathValue("key")
	keys, err := s.app.Settings.Keys(ns, "")
	if err != nil {
		s.internalError(w, "reading settings", err)
		return
	}
	if !slices.Contains(keys, key) {
		writeError(w, http.StatusNotFound, "no_setting", fmt.Sprintf("%s has no setting %q", ns, key))
		return
	}
	s.apply(w, r, ns, map[string]json.RawMessage{key: json.RawMessage("null")})
}

// apply makes the change and answers the namespace's settings, 422 with
// the invalid keys, or 403.
func (s *Server) apply(w http.ResponseWriter, r *http.Request, ns string, values map[string]json.RawMessage) {
	err := s.app.Settings.Apply(r.Context(), apiActor, ns, values)
	var fe settings.FieldErrors
	switch {
	case errors.As(err, &fe):
		writeFieldErrors(w, "invalid settings: nothing was changed", fe)
		return
	case errors.Is(err, settings.ErrForbidden):
		writeError(w, http.StatusForbidden, "forbidden", err.Error())
		return
	case err != nil:
		s.internalError(w, "saving settings", err)
		return
	}
	s.answerSettings(w, r, ns)
}

func (s *Server) answerSettings(w http.ResponseWriter, r *http.Request, ns string) {
	ps, err := s.pluginSettings(r.Context(), ns)
	if err != nil {
		s.internalError(w, "reading settings", err)
		return
	}
	writeJSON(w, http.StatusOK, ps)
}

// settingsNamespace returns {plugin} if it is core, a namespace with
// settings, or a plugin Hearth knows; else it has answered 404.
func (s *Server) settingsNamespace(w http.ResponseWriter, r *http.Request) (string, bool) {
	ns := r.PathValue("plugin")
	if ns == settings.Core {
		return ns, true
	}
	nss, err := s.app.Settings.Namespaces()
	if err != nil {
		s.internalError(w, "reading settings", err)
		return "", false
	}
	if slices.Contains(nss, ns) {
		return ns, true
	}
	if list, err := s.plugins(r); err == nil {
		for _, p := range list {
			if p.ID == ns {
				return ns, true
			}
		}
	}
	writeError(w, http.StatusNotFound, "no_plugin", fmt.Sprintf("no plugin %q has settings", ns))
	return "", false
}

// pluginSettings describes ns's settings: declared and stored keys.
func (s *Server) pluginSettings(ctx context.Context, ns string) (PluginSettings, error) {
	svc := s.app.Settings
	keys, err := svc.Keys(ns, "")
	if err != nil {
		return PluginSettings{}, err
	}
	defs := map[string]*sdk.ConfigDef{}
	for _, d := range svc.Defs(ns, "") {
		defs[d.Key] = d
	}
	out := PluginSettings{Plugin: ns, Settings: make([]Setting, 0, len(keys))}
	for _, k := range keys {
		if ns == settings.Core && k == settings.CoreDataDir {
			continue
		}
		st := Setting{Key: k, Label: k, Secret: svc.Secret(ns, k)}
		if d := defs[k]; d != nil {
			typ, step := settings.UIType(*d) // HomeAgent's int, bool, select, password...
			st.Declared, st.Type, st.Description, st.Category = true, typ, d.Description, d.Category
			st.Options, st.Required = d.Options, d.Required
			if d.DisplayName != "" {
				st.Label = d.DisplayName
			}
			if d.Min != d.Max {
				st.Min, st.Max = &d.Min, &d.Max
			}
			if step > 0 {
				st.Step = &step
			}
			if !st.Secret {
				st.Default = d.Default
			}
		}
		raw, stored, err := s.app.Store.Setting(ctx, ns, k)
		if err != nil {
			return PluginSettings{}, err
		}
		st.Set = stored
		if !st.Secret {
			if !stored {
				raw, stored, err = svc.Value(ns, k)
				if err != nil {
					return PluginSettings{}, err
				}
			}
			if stored {
				_ = json.Unmarshal(raw, &st.Value)
			}
		}
		out.Settings = append(out.Settings, st)
	}
	return out, nil
}
