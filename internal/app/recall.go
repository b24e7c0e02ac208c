package app

import (
	"github.com/hearth-agent/hearth/internal/kernel"
)

// recaller is the kernel's memory recall over the app's graph memory,
// doc memory and knowledge base, through their scoped services
// (scope.Graph, scope.Docs, scope.Knowledge), read only through the
// view the kernel passes: a group's facts never surface in another
// conversation. Nil when config.json
// turns recall off ("memory": {"recall_tokens": 0}).
func (a *App) recaller() kernel.Recaller {
	if a.Config.RecallTokens() == 0 {
		return nil
	}
	m := a.scopedMemory()
	return &kernel.MemoryRecaller{Graph: m.graph, Docs: m.docs, Knowledge: m.kb}
}
