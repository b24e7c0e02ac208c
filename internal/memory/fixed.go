package memory

import (
	"github.com/hearth-agent/hearth/internal/scope"
	"github.com/hearth-agent/hearth/sdk"
)

// Fixed binds the memory services to one view, for callers that name no
// conversation: the SDK's interfaces over scope.Graph, scope.Docs and
// scope.Text with v always. It is the seam the application uses until
// the views come from each call's context (the plumbing's adapters);
// those replace it.
type Fixed struct {
	Graph scope.Graph
	Docs  scope.Docs
	Text  scope.Text
	View  scope.View
}

var (
	_ sdk.MemoryAPI     = Fixed{}
	_ sdk.DocMemoryAPI  = Fixed{}
	_ sdk.TextMemoryAPI = Fixed{}
)

// Recall is scope.Graph.Recall through f.View.
func (f Fixed) Recall(query []string, depth int) ([]sdk.Entity, []sdk.Relation, error) {
	return f.Graph.Recall(f.View, query, depth)
}

// Commit is scope.Graph.Commit through f.View.
func (f Fixed) Commit(triples []sdk.Triple) error { return f.Graph.Commit(f.View, triples) }

// Introspect is scope.Graph.Introspect through f.View.
func (f Fixed) Introspect() (map[string]any, error) { return f.Graph.Introspect(f.View) }

// MergeEntities is scope.Graph.MergeEntities through f.View.
func (f Fixed) MergeEntities(source, target string) (int, error) {
	return f.Graph.MergeEntities(f.View, source, target)
}

// Purge is scope.Graph.Purge through f.View.
func (f Fixed) Purge(criteria map[string]string, mode string) (int, error) {
	return f.Graph.Purge(f.View, criteria, mode)
}

// Query is scope.Docs.Query through f.View.
func (f Fixed) Query(text string, topK int) []*sdk.Doc { return f.Docs.Query(f.View, text, topK) }

// Insert is scope.Docs.Insert through f.View.
func (f Fixed) Insert(doc *sdk.Doc) error { return f.Docs.Insert(f.View, doc) }

// Remove is scope.Docs.Remove through f.View.
func (f Fixed) Remove(id string) { f.Docs.Remove(f.View, id) }

// Stats is scope.Docs.Stats through f.View.
func (f Fixed) Stats() map[string]any { return f.Docs.Stats(f.View) }

// Append is scope.Text.Append through f.View.
func (f Fixed) Append(evt sdk.TextEvent) error { return f.Text.Append(f.View, evt) }
