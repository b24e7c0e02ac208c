package app

import (
	"github.com/hearth-agent/hearth/internal/kernel"
	"github.com/hearth-agent/hearth/internal/scope"
)

// recaller is the kernel's memory recall over the app's graph memory,
// doc memory and knowledge base, through their scoped services
// (scope.Graph, scope.Docs, scope.Knowledge); a service that does not
// offer its scoped form is left out, never read unscoped: a group's
// facts must not surface in another conversation. Nil when config.json
// turns recall off ("memory": {"recall_tokens": 0}).
func (a *App) recaller() kernel.Recaller {
	if a.Config.RecallTokens() == 0 {
		return nil
	}
	r := &kernel.MemoryRecaller{}
	r.Graph, _ = any(a.Memory).(scope.Graph)
	r.Docs, _ = any(a.Docs).(scope.Docs)
	r.Knowledge, _ = any(a.KB).(scope.Knowledge)
	if r.Graph == nil && r.Docs == nil && r.Knowledge == nil {
		return nil
	}
	return r
}
