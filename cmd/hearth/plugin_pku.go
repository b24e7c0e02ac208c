package main

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/hearth-agent/hearth/internal/pluginhost"
	"github.com/hearth-agent/hearth/sdk/wire"
)

// showPKU prints the PKU harness parts of a plugin's manifest for
// `hearth plugin show`: its preferences (settings <plugin>.<name>), its
// data sources, and the providers, speech and OCR services this host
// loads but does not run yet.
func showPKU(plugin string, m *wire.PKUManifest, line func(k, v string)) {
	if m == nil {
		return
	}
	if len(m.Preferences) > 0 {
		var prefs []string
		for _, name := range slices.Sorted(maps.Keys(m.Preferences)) {
			prefs = append(prefs, fmt.Sprintf("%s.%s (%s, %s)", plugin, name, m.Preferences[name].Title, m.Preferences[name].Kind))
		}
		line("preferences", strings.Join(prefs, ", "))
	}
	if len(m.DataSources) > 0 {
		var ds []string
		for _, key := range slices.Sorted(maps.Keys(m.DataSources)) {
			d := m.DataSources[key]
			ds = append(ds, fmt.Sprintf("%s (%s, tool %s, every %ds)", key, d.Title, d.Tool, d.TTLMS/1000))
		}
		line("data sources", strings.Join(ds, ", "))
	}
	for _, u := range pluginhost.Unsupported(plugin, m) {
		line("unsupported", u)
	}
}
