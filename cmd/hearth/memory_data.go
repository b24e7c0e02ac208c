package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hearth-agent/hearth/internal/app"
	"github.com/hearth-agent/hearth/internal/memory"
	"github.com/hearth-agent/hearth/internal/scope"
	"github.com/hearth-agent/hearth/sdk"
)

// What `hearth memory` reads and changes, in the owner's view of the
// whole memory (scope.Everything): the document memory (where the
// agent's remembered facts live) and the graph memory's relations. This
// file is the command's one seam onto internal/memory.

// memoryEntry is one entry `hearth memory` shows.
type memoryEntry struct {
	Kind   string   `json:"kind"`            // "doc" or "relation"
	ID     string   `json:"id"`              // a document's id; a relation's "source|relation|target"
	Scope  string   `json:"scope"`           // global, owner, user:..., chat:...
	Writer string   `json:"writer"`          // the plugin that wrote it; "" for the owner and Hearth
	Title  string   `json:"title,omitempty"` // a document's title ("fact" for a remembered fact)
	Text   string   `json:"text"`            // a document's content; a relation as "source relation target"
	Score  float64  `json:"score,omitzero"`  // search: relevance
	Links  []string `json:"links,omitempty"` // show of an entity: its relations
}

// errNoEntry is returned for an id that names nothing.
var errNoEntry = errors.New("no such memory entry")

// memoryData is the memory of an open app as the owner sees it.
type memoryData struct {
	a     *app.App
	scope scope.Scope // only this scope; "" for every one
}

// view is the owner's view, narrowed to d.scope when set.
func (d memoryData) view() scope.View {
	if d.scope == "" {
		return scope.Everything()
	}
	return scope.View{Write: d.scope, Read: []scope.Scope{d.scope}, AllWriters: true}
}

// keep reports whether an entry of scope s is in d's view. Entries the
// memory keeps without a scope (before scoped memory) are Global's.
func (d memoryData) keep(s scope.Scope) bool {
	return d.view().Sees("", s)
}

func relationID(r sdk.Relation) string {
	return r.SourceName + "|" + r.RelationType + "|" + r.TargetName
}

func relationEntry(r sdk.Relation) memoryEntry {
	return memoryEntry{Kind: "relation", ID: relationID(r), Scope: string(scope.Global),
		Text: r.SourceName + " " + r.RelationType + " " + r.TargetName}
}

func docEntry(doc sdk.Doc) memoryEntry {
	return memoryEntry{Kind: "doc", ID: doc.ID, Scope: string(scope.Global), Title: doc.Title, Text: doc.Content, Score: doc.Score}
}

// list returns up to limit documents, then up to limit relations.
func (d memoryData) list(ctx context.Context, limit int) ([]memoryEntry, error) {
	var out []memoryEntry
	if d.keep(scope.Global) {
		docs, err := d.a.Docs.List(ctx)
		if err != nil {
			return nil, fmt.Errorf("reading the document memory: %w", err)
		}
		for _, doc := range docs[:min(len(docs), limit)] {
			out = append(out, docEntry(doc))
		}
		rels, _, err := d.a.Memory.Relations(ctx, "", 0, limit)
		if err != nil {
			return nil, fmt.Errorf("reading the graph memory: %w", err)
		}
		for _, r := range rels {
			out = append(out, relationEntry(r))
		}
	}
	return out, nil
}

// search returns the documents best matching q, then the relations
// whose ends or kind contain one of its words.
func (d memoryData) search(ctx context.Context, q string, limit int) ([]memoryEntry, error) {
	var out []memoryEntry
	if !d.keep(scope.Global) {
		return nil, nil
	}
	for _, doc := range d.a.Docs.Query(q, limit) {
		out = append(out, docEntry(*doc))
	}
	seen := map[string]bool{}
	for _, w := range strings.Fields(q) {
		rels, _, err := d.a.Memory.Relations(ctx, w, 0, limit)
		if err != nil {
			return nil, fmt.Errorf("reading the graph memory: %w", err)
		}
		for _, r := range rels {
			if id := relationID(r); !seen[id] && len(seen) < limit {
				seen[id] = true
				out = append(out, relationEntry(r))
			}
		}
	}
	return out, nil
}

// show returns the document id, or the entity id with its relations.
func (d memoryData) show(ctx context.Context, id string) (memoryEntry, error) {
	if !d.keep(scope.Global) {
		return memoryEntry{}, fmt.Errorf("%w: %q", errNoEntry, id)
	}
	doc, err := d.a.Docs.Get(ctx, id)
	if err == nil {
		return docEntry(doc), nil
	}
	if !errors.Is(err, memory.ErrNoDoc) {
		return memoryEntry{}, err
	}
	e, rels, err := d.a.Memory.Entity(ctx, id)
	if errors.Is(err, memory.ErrNoEntity) {
		return memoryEntry{}, fmt.Errorf("%w: %q (a document id or an entity name; hearth memory search finds them)", errNoEntry, id)
	}
	if err != nil {
		return memoryEntry{}, err
	}
	out := memoryEntry{Kind: "entity", ID: e.Name, Scope: string(scope.Global), Title: e.Type, Text: e.Name}
	for _, r := range rels {
		out.Links = append(out.Links, r.SourceName+" "+r.RelationType+" "+r.TargetName)
	}
	return out, nil
}

// forget deletes the document id, or the relation "source|relation|target",
// or the entity id with its relations; it returns the texts the agent may
// have been shown and no longer is.
func (d memoryData) forget(ctx context.Context, id string) ([]string, error) {
	if !d.keep(scope.Global) {
		return nil, fmt.Errorf("%w: %q", errNoEntry, id)
	}
	if doc, err := d.a.Docs.Get(ctx, id); err == nil {
		if err := d.a.Docs.Delete(ctx, id); err != nil {
			return nil, err
		}
		return []string{doc.Content}, nil
	}
	if parts := strings.Split(id, "|"); len(parts) == 3 {
		r := sdk.Relation{SourceName: parts[0], RelationType: parts[1], TargetName: parts[2]}
		ok, err := d.a.Memory.DeleteRelation(ctx, r)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, fmt.Errorf("%w: %q", errNoEntry, id)
		}
		return []string{relationEntry(r).Text}, nil
	}
	e, err := d.show(ctx, id)
	if err != nil {
		return nil, err
	}
	if err := d.a.Memory.Delete(ctx, id); err != nil {
		return nil, err
	}
	return e.Links, nil
}

// correct replaces the text of the document id, keeping its id and
// title; it returns the old text.
func (d memoryData) correct(ctx context.Context, id, text string) (string, error) {
	if !d.keep(scope.Global) {
		return "", fmt.Errorf("%w: %q", errNoEntry, id)
	}
	doc, err := d.a.Docs.Get(ctx, id)
	if errors.Is(err, memory.ErrNoDoc) {
		return "", fmt.Errorf("%w: %q (correct takes a document id; hearth memory search finds it)", errNoEntry, id)
	}
	if err != nil {
		return "", err
	}
	old := doc.Content
	doc.Content = text
	if err := d.a.Docs.Insert(&doc); err != nil {
		return "", err
	}
	return old, nil
}
