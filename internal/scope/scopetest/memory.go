// Package scopetest is an in-memory implementation of the scoped memory
// services (scope.Graph, Docs, Text, Knowledge) that keeps the rules of
// package scope and nothing else, for testing the code that picks the
// view of a call: the kernel's bindings, the adapters, the protocol.
package scopetest

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/hearth-agent/hearth/internal/scope"
	"github.com/hearth-agent/hearth/sdk"
)

// Memory is the four services over one table of entries. The zero
// Memory is empty and ready to use.
type Memory struct {
	mu      sync.Mutex
	entries []Entry
	next    int
}

// Entry is one stored entry: a graph entity or relation, a document, a
// text event or a knowledge entry.
type Entry struct {
	Kind   string // "entity", "relation", "doc", "text", "knowledge"
	Scope  scope.Scope
	Writer string
	Key    string // entity name, "source|relation|target", doc id, knowledge name
	Text   string
	Title  string // a document's
}

var (
	_ scope.Graph     = (*Memory)(nil)
	_ scope.Docs      = (*Memory)(nil)
	_ scope.Text      = (*Memory)(nil)
	_ scope.Knowledge = (*Memory)(nil)
)

// Entries returns a copy of every entry, in the order written.
func (m *Memory) Entries() []Entry {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.entries)
}

// put stores an entry, replacing the one of the same kind, key, scope and
// writer.
func (m *Memory) put(v scope.View, kind, key, text string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i, e := range m.entries {
		if e.Kind == kind && e.Key == key && e.Scope == v.Write && e.Writer == v.Writer {
			m.entries[i].Text = text
			return
		}
	}
	m.entries = append(m.entries, Entry{Kind: kind, Scope: v.Write, Writer: v.Writer, Key: key, Text: text})
}

// seen returns the entries of kind v sees that match.
func (m *Memory) seen(v scope.View, kind string, match func(Entry) bool) []Entry {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []Entry
	for _, e := range m.entries {
		if e.Kind == kind && v.Sees(e.Writer, e.Scope) && (match == nil || match(e)) {
			out = append(out, e)
		}
	}
	return out
}

// remove deletes the entries of kind v owns that match, and returns how
// many.
func (m *Memory) remove(v scope.View, kind string, match func(Entry) bool) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	m.entries = slices.DeleteFunc(m.entries, func(e Entry) bool {
		if e.Kind == kind && v.Owns(e.Writer, e.Scope) && match(e) {
			n++
			return true
		}
		return false
	})
	return n
}

// Recall returns the entities whose names contain a query word.
func (m *Memory) Recall(v scope.View, query []string, _ int) ([]sdk.Entity, []sdk.Relation, error) {
	var ents []sdk.Entity
	for _, e := range m.seen(v, "entity", func(e Entry) bool {
		return slices.ContainsFunc(query, func(q string) bool { return q != "" && strings.Contains(e.Key, q) })
	}) {
		ents = append(ents, sdk.Entity{Name: e.Key, Type: e.Text, MentionCount: 1})
	}
	var rels []sdk.Relation
	for _, e := range m.seen(v, "relation", nil) {
		p := strings.SplitN(e.Key, "|", 3)
		if slices.ContainsFunc(ents, func(x sdk.Entity) bool { return x.Name == p[0] || x.Name == p[2] }) {
			rels = append(rels, sdk.Relation{SourceName: p[0], RelationType: p[1], TargetName: p[2]})
		}
	}
	return ents, rels, nil
}

// Commit stores both entities and the relation of each triple.
func (m *Memory) Commit(v scope.View, triples []sdk.Triple) error {
	for _, t := range triples {
		m.put(v, "entity", t.Subject, "")
		m.put(v, "entity", t.Object, "")
		m.put(v, "relation", t.Subject+"|"+t.Relation+"|"+t.Object, "")
	}
	return nil
}

// Introspect counts the entities and relations v sees.
func (m *Memory) Introspect(v scope.View) (map[string]any, error) {
	return map[string]any{"entities": len(m.seen(v, "entity", nil)), "relations": len(m.seen(v, "relation", nil))}, nil
}

// MergeEntities is not kept by this fake beyond removing source.
func (m *Memory) MergeEntities(v scope.View, source, _ string) (int, error) {
	return m.remove(v, "entity", func(e Entry) bool { return e.Key == source }), nil
}

// Purge removes the entities named criteria["name"].
func (m *Memory) Purge(v scope.View, criteria map[string]string, _ string) (int, error) {
	return m.remove(v, "entity", func(e Entry) bool { return e.Key == criteria["name"] }), nil
}

// Query returns the documents containing text.
func (m *Memory) Query(v scope.View, text string, topK int) []*sdk.Doc {
	var out []*sdk.Doc
	for _, e := range m.seen(v, "doc", func(e Entry) bool { return strings.Contains(e.Text, text) }) {
		if topK > 0 && len(out) == topK {
			break
		}
		out = append(out, &sdk.Doc{ID: e.Key, Title: e.Title, Content: e.Text, Score: 1})
	}
	return out
}

// Insert stores doc, giving it an id when it has none.
func (m *Memory) Insert(v scope.View, doc *sdk.Doc) error {
	if doc.ID == "" {
		m.mu.Lock()
		m.next++
		doc.ID = fmt.Sprintf("doc%d", m.next)
		m.mu.Unlock()
	}
	m.put(v, "doc", doc.ID, doc.Content)
	m.mu.Lock()
	defer m.mu.Unlock()
	for i, e := range m.entries {
		if e.Kind == "doc" && e.Key == doc.ID && e.Scope == v.Write && e.Writer == v.Writer {
			m.entries[i].Title = doc.Title
		}
	}
	return nil
}

// Remove deletes the document id v owns.
func (m *Memory) Remove(v scope.View, id string) {
	m.remove(v, "doc", func(e Entry) bool { return e.Key == id })
}

// Stats counts the documents v sees.
func (m *Memory) Stats(v scope.View) map[string]any {
	return map[string]any{"count": len(m.seen(v, "doc", nil))}
}

// Append stores evt.
func (m *Memory) Append(v scope.View, evt sdk.TextEvent) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.entries = append(m.entries, Entry{Kind: "text", Scope: v.Write, Writer: v.Writer, Key: evt.Role, Text: evt.Content})
	return nil
}

// Search returns the knowledge entries containing query, or whose name
// query contains.
func (m *Memory) Search(v scope.View, query string, topK int) ([]*sdk.Knowledge, error) {
	var out []*sdk.Knowledge
	for _, e := range m.seen(v, "knowledge", func(e Entry) bool {
		return strings.Contains(e.Text, query) || strings.Contains(query, e.Key)
	}) {
		if topK > 0 && len(out) == topK {
			break
		}
		out = append(out, &sdk.Knowledge{Name: e.Key, Content: e.Text})
	}
	return out, nil
}

// Add stores the knowledge entry name.
func (m *Memory) Add(v scope.View, name, content string) error {
	m.put(v, "knowledge", name, content)
	return nil
}

// List returns the names of the knowledge entries v sees, sorted.
func (m *Memory) List(v scope.View) ([]string, error) {
	var out []string
	for _, e := range m.seen(v, "knowledge", nil) {
		out = append(out, e.Key)
	}
	slices.Sort(out)
	return out, nil
}
