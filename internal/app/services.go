package app

import (
	"github.com/hearth-agent/hearth/internal/scope"
	"github.com/hearth-agent/hearth/sdk/host"
)

// scoped are the app's memory services in their scoped form: every call
// names the caller's view (package scope).
type scoped struct {
	graph scope.Graph
	text  scope.Text
	docs  scope.Docs
	kb    scope.Knowledge
}

func (a *App) scopedMemory() scoped {
	return scoped{graph: a.Memory, text: a.Text, docs: a.Docs, kb: a.KB}
}

// pluginServices are the host services of the compiled-in
// plugin named plugin: its settings and storage, and memory APIs that
// act as plugin, in the conversation of the turn whose handler makes
// the call (scope.Current, bound by the kernel), seeing other writers'
// entries only when the plugin's manifest declares memory.shared.
func (a *App) pluginServices(plugin string) host.Services {
	m := a.scopedMemory()
	shared := a.Kernel != nil && a.Kernel.Capable(plugin, scope.CapabilityShared)
	return host.Services{LLM: a.Sources, Settings: a.Settings.For(plugin), KV: a.Settings.KV(plugin),
		Memory:     scope.MemoryAPI(m.graph, plugin, shared),
		TextMemory: scope.TextMemoryAPI(m.text, plugin, shared),
		DocMemory:  scope.DocMemoryAPI(m.docs, plugin, shared),
		Knowledge:  scope.KnowledgeAPI(m.kb, plugin, shared)}
}
