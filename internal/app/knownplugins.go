package app

import (
	"context"
	"slices"

	"github.com/hearth-agent/hearth/sdk"
)

// knowPlugins makes every plugin Hearth knows of, running or not, known to
// the tool registry (tools.Registry.KnowPlugins), so that no plugin's tool
// takes a short name in another plugin's name space while that one is
// disabled, stopped or not started yet: the built-ins, the names bound to
// plugin folders and the plugins of the tool catalogue. A list that cannot
// be read leaves those out; the registry still knows every plugin that
// registers a tool.
func knowPlugins(ctx context.Context, a *App) {
	ids := sdk.Factories()
	if owners, err := a.Store.PluginOwners(ctx); err == nil {
		for name := range owners {
			ids = append(ids, name)
		}
	}
	if plugins, err := a.Store.CatalogPlugins(ctx); err == nil {
		ids = append(ids, plugins...)
	}
	slices.Sort(ids)
	a.Kernel.Tools().KnowPlugins(slices.Compact(ids)...) // the catalogue has a row per tool
}
