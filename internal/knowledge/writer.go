package knowledge

import (
	"github.com/hearth-agent/hearth/internal/scope"
	"github.com/hearth-agent/hearth/sdk"
)

// ForWriter returns the SDK's knowledge API for writer acting in Global:
// the seam internal/app uses until the per-call scope adapter of
// internal/scope (the conversation of the running turn) is wired; then
// it is no longer needed.
func (k *Base) ForWriter(writer string) sdk.KnowledgeAPI {
	return fixed{k, scope.For(writer, scope.Global, false)}
}

// fixed is the knowledge base through one view.
type fixed struct {
	k *Base
	v scope.View
}

func (f fixed) Search(query string, topK int) ([]*sdk.Knowledge, error) {
	return f.k.Search(f.v, query, topK)
}
func (f fixed) Add(name, content string) error { return f.k.Add(f.v, name, content) }
func (f fixed) List() ([]string, error)        { return f.k.List(f.v) }
