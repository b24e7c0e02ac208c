package main

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/hearth-agent/hearth/internal/app"
	"github.com/hearth-agent/hearth/internal/settings"
	"github.com/hearth-agent/hearth/sdk"
)

// `hearth plugin --json` and `hearth settings --json`: what the text
// lists show, for scripts.

// pluginEntry is one plugin in `hearth plugin --json`.
type pluginEntry struct {
	// ID is the name Hearth uses for the plugin's tools, settings and
	// data.
	ID string `json:"id"`
	// ManifestID is plugin.json's id where it differs from ID (an xbot
	// id such as com.example.echo-channel).
	ManifestID string `json:"manifest_id,omitempty"`
	// Kind is "builtin" (compiled in), "process", "xbot", "so", "mcp" or
	// "homeagent" (a HomeAgent folder Hearth cannot load).
	Kind    string `json:"kind"`
	Enabled bool   `json:"enabled"`
	// State is the STATE column: "running (restarts 0)", "disabled",
	// "error: ...", "-" when not running in this process.
	State  string   `json:"state"`
	MayUse []string `json:"may_use"`
	// Folder is the plugin's folder; for an MCP server where it is
	// configured; "" for a built-in.
	Folder string `json:"folder"`
}

// pluginsJSON writes `hearth plugin --json`: the built-ins, then the
// plugins of the plugins folder and the MCP servers.
func pluginsJSON(ctx context.Context, a *app.App, cio *cmdIO) int {
	list, err := a.Plugins.List(ctx)
	if err != nil {
		fmt.Fprintf(cio.err, "hearth plugin: %v\n", err)
		return 1
	}
	out := []pluginEntry{}
	for _, name := range sdk.Factories() {
		enabled := !a.Config.BuiltinDisabled(name)
		state := "-"
		switch {
		case !enabled:
			state = "disabled"
		case slices.Contains(a.Kernel.Plugins(), name):
			state = "running"
		}
		out = append(out, pluginEntry{ID: name, Kind: "builtin", Enabled: enabled, State: state, MayUse: []string{"core"}})
	}
	mask := stderrMask(a)
	for _, p := range list {
		groups := []string{"core"}
		if p.Kind == "mcp" {
			groups = []string{}
		} else {
			groups = append(groups, p.Capabilities...)
		}
		id, manifestID := p.ID, ""
		if p.Dir != "" {
			if name := pluginName(p); name != p.ID {
				id, manifestID = name, p.ID
			}
		}
		out = append(out, pluginEntry{ID: id, ManifestID: manifestID, Kind: p.Kind, Enabled: p.Enabled, State: mask(stateCell(p)), MayUse: groups, Folder: pluginWhere(p)})
	}
	return writeJSON(cio.out, out)
}

// settingEntry is one setting in `hearth settings --json`.
type settingEntry struct {
	Key string `json:"key"`
	// Value is the value as stored (JSON), a secret's as the string the
	// text list shows, absent when not set.
	Value  json.RawMessage `json:"value,omitempty"`
	Set    bool            `json:"set"`
	Secret bool            `json:"secret"`
	About  string          `json:"about,omitempty"`
}

// settingsGroup is one plugin's settings in `hearth settings --json`.
type settingsGroup struct {
	Plugin   string         `json:"plugin"`
	Settings []settingEntry `json:"settings"`
}

// settingsJSON writes `hearth settings --json` for namespaces nss (every
// one when nil).
func settingsJSON(svc *settings.Service, nss []string, cio *cmdIO) int {
	fail := func(err error) int {
		fmt.Fprintf(cio.err, "hearth settings: %v\n", err)
		return 1
	}
	if nss == nil {
		var err error
		if nss, err = svc.Namespaces(); err != nil {
			return fail(err)
		}
		if keys, _ := svc.Keys(settings.Core, ""); len(keys) > 0 {
			nss = append([]string{settings.Core}, nss...)
		}
	}
	out := []settingsGroup{}
	for _, ns := range nss {
		keys, err := svc.Keys(ns, "")
		if err != nil {
			return fail(err)
		}
		about := map[string]string{}
		for _, d := range svc.Defs(ns, "") {
			about[d.Key] = joinAbout(d.DisplayName, d.Description)
		}
		g := settingsGroup{Plugin: ns, Settings: []settingEntry{}}
		for _, k := range keys {
			e := settingEntry{Key: k, Secret: svc.Secret(ns, k), About: about[k]}
			raw, ok, err := svc.Value(ns, k)
			if err != nil {
				return fail(err)
			}
			if ok {
				e.Set = true
				e.Value = raw
				if e.Secret || !json.Valid(raw) {
					e.Value, _ = json.Marshal(shown(svc, ns, k, raw))
				}
			}
			g.Settings = append(g.Settings, e)
		}
		out = append(out, g)
	}
	return writeJSON(cio.out, out)
}

// joinAbout is a setting's ABOUT: its display name and description.
func joinAbout(name, desc string) string {
	switch {
	case name == "":
		return desc
	case desc == "":
		return name
	}
	return name + " " + desc
}

// settingsListJSON is `hearth settings [PLUGIN] --json`.
func settingsListJSON(a *app.App, args []string, cio *cmdIO) int {
	switch {
	case len(args) == 0:
		return settingsJSON(a.Settings, nil, cio)
	case len(args) == 1 && args[0] != "get" && args[0] != "set":
		return settingsJSON(a.Settings, args, cio)
	}
	fmt.Fprintf(cio.err, "hearth settings: --json goes with the lists only (hearth settings --json, hearth settings PLUGIN --json)\n")
	return 2
}
