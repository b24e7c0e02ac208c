package app

import (
	"github.com/hearth-agent/hearth/internal/scope"
	"github.com/hearth-agent/hearth/sdk"
)

// The unscoped services stand in, in scopedMemory, for a memory service
// that does not implement its scoped interface yet: they ignore the
// view and act as Hearth did before scopes (one memory shared by every
// plugin and conversation). They exist only so that the services keep
// working whichever order the scoped implementations (internal/memory,
// internal/knowledge) and the per-plugin wiring land in; once every
// service implements its scope interface none of them is used, and this
// file goes.

func asGraph(x any) scope.Graph {
	switch g := x.(type) {
	case scope.Graph:
		return g
	case sdk.MemoryAPI:
		return unscopedGraph{g}
	}
	return nil
}

func asText(x any) scope.Text {
	switch t := x.(type) {
	case scope.Text:
		return t
	case sdk.TextMemoryAPI:
		return unscopedText{t}
	}
	return nil
}

func asDocs(x any) scope.Docs {
	switch d := x.(type) {
	case scope.Docs:
		return d
	case sdk.DocMemoryAPI:
		return unscopedDocs{d}
	}
	return nil
}

func asKnowledge(x any) scope.Knowledge {
	switch k := x.(type) {
	case scope.Knowledge:
		return k
	case sdk.KnowledgeAPI:
		return unscopedKnowledge{k}
	}
	return nil
}

type unscopedGraph struct{ g sdk.MemoryAPI }

func (u unscopedGraph) Recall(_ scope.View, query []string, depth int) ([]sdk.Entity, []sdk.Relation, error) {
	return u.g.Recall(query, depth)
}
func (u unscopedGraph) Commit(_ scope.View, triples []sdk.Triple) error { return u.g.Commit(triples) }
func (u unscopedGraph) Introspect(scope.View) (map[string]any, error)   { return u.g.Introspect() }
func (u unscopedGraph) MergeEntities(_ scope.View, source, target string) (int, error) {
	return u.g.MergeEntities(source, target)
}
func (u unscopedGraph) Purge(_ scope.View, criteria map[string]string, mode string) (int, error) {
	return u.g.Purge(criteria, mode)
}

type unscopedText struct{ t sdk.TextMemoryAPI }

func (u unscopedText) Append(_ scope.View, evt sdk.TextEvent) error { return u.t.Append(evt) }

type unscopedDocs struct{ d sdk.DocMemoryAPI }

func (u unscopedDocs) Query(_ scope.View, text string, topK int) []*sdk.Doc {
	return u.d.Query(text, topK)
}
func (u unscopedDocs) Insert(_ scope.View, doc *sdk.Doc) error { return u.d.Insert(doc) }
func (u unscopedDocs) Remove(_ scope.View, id string)          { u.d.Remove(id) }
func (u unscopedDocs) Stats(scope.View) map[string]any         { return u.d.Stats() }

type unscopedKnowledge struct{ k sdk.KnowledgeAPI }

func (u unscopedKnowledge) Search(_ scope.View, query string, topK int) ([]*sdk.Knowledge, error) {
	return u.k.Search(query, topK)
}
func (u unscopedKnowledge) Add(_ scope.View, name, content string) error {
	return u.k.Add(name, content)
}
func (u unscopedKnowledge) List(scope.View) ([]string, error) { return u.k.List() }
