package memory

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/hearth-agent/hearth/internal/store"
	"github.com/hearth-agent/hearth/sdk"
)

// What a person does to the memory through the HTTP API: browse it page
// by page, correct an entity, remove what is wrong. The agent's side is
// the sdk.MemoryAPI methods in graph.go and doc.go.

// Errors the browsing methods return for callers to branch on.
var (
	// ErrNoEntity means the named entity is not in the graph memory.
	ErrNoEntity = errors.New("no such entity")
	// ErrExists means a rename's new name is another entity's: merge
	// them instead.
	ErrExists = errors.New("an entity with that name exists")
	// ErrNoDoc means the document is not in the document memory.
	ErrNoDoc = errors.New("no such document")
)

// Entities returns up to limit live entities from offset whose names
// contain query (every one for ""), most mentioned first, and how many
// match in all.
func (g *Graph) Entities(ctx context.Context, query string, offset, limit int) ([]sdk.Entity, int, error) {
	list, total, err := g.st.EntityPage(ctx, strings.TrimSpace(query), max(offset, 0), max(limit, 0))
	if err != nil {
		return nil, 0, err
	}
	out := make([]sdk.Entity, len(list))
	for i, e := range list {
		out[i] = sdk.Entity{Name: e.Name, Type: e.Type, MentionCount: e.Mentions}
	}
	return out, total, nil
}

// Entity returns a live entity and its live relations (sorted), or
// ErrNoEntity.
func (g *Graph) Entity(ctx context.Context, name string) (sdk.Entity, []sdk.Relation, error) {
	e, ok, err := g.st.Entity(ctx, name)
	if err != nil {
		return sdk.Entity{}, nil, err
	}
	if !ok || e.Purged { // a soft-purged entity is one Recall does not see: neither does this
		return sdk.Entity{}, nil, fmt.Errorf("%w: %q", ErrNoEntity, name)
	}
	rels, err := g.st.RelationsOf(ctx, name)
	if err != nil {
		return sdk.Entity{}, nil, err
	}
	return sdk.Entity{Name: e.Name, Type: e.Type, MentionCount: e.Mentions}, sortRelations(toSDK(rels)), nil
}

// Relations returns up to limit live relations from offset whose kind or
// either end contains query, and how many match in all.
func (g *Graph) Relations(ctx context.Context, query string, offset, limit int) ([]sdk.Relation, int, error) {
	list, total, err := g.st.RelationPage(ctx, strings.TrimSpace(query), max(offset, 0), max(limit, 0))
	if err != nil {
		return nil, 0, err
	}
	return toSDK(list), total, nil
}

// DeleteRelation removes one relation; ok is false if there was none.
func (g *Graph) DeleteRelation(ctx context.Context, r sdk.Relation) (ok bool, err error) {
	return g.st.DeleteRelation(ctx, store.Relation{Source: r.SourceName, Relation: r.RelationType, Target: r.TargetName})
}

// Rename gives an entity a new name, its relations and mentions kept. A
// name another entity has is refused with ErrExists (merge them instead).
func (g *Graph) Rename(ctx context.Context, name, to string) error {
	to = strings.TrimSpace(to)
	if to == "" {
		return fmt.Errorf("memory: renaming %q to an empty name", name)
	}
	if to == name {
		return nil
	}
	if _, _, err := g.Entity(ctx, name); err != nil {
		return err
	}
	if _, ok, err := g.st.Entity(ctx, to); err != nil {
		return err
	} else if ok {
		return fmt.Errorf("%w: %q", ErrExists, to)
	}
	_, err := g.st.MergeEntities(ctx, name, to)
	return err
}

// Delete removes an entity and its relations for good, or ErrNoEntity.
func (g *Graph) Delete(ctx context.Context, name string) error {
	n, err := g.st.PurgeEntities(ctx, store.EntityFilter{Name: &name}, true)
	if err == nil && n == 0 {
		err = fmt.Errorf("%w: %q", ErrNoEntity, name)
	}
	return err
}

// PurgeAll removes every live entity with its relations (hard deletes
// them, soft hides them until a Commit mentions them again) and returns
// how many.
func (g *Graph) PurgeAll(ctx context.Context, hard bool) (int, error) {
	return g.st.PurgeEntities(ctx, store.EntityFilter{}, hard)
}

func toSDK(list []store.Relation) []sdk.Relation {
	out := make([]sdk.Relation, len(list))
	for i, r := range list {
		out[i] = sdk.Relation{SourceName: r.Source, RelationType: r.Relation, TargetName: r.Target}
	}
	return out
}

func sortRelations(rels []sdk.Relation) []sdk.Relation {
	sort.Slice(rels, func(i, j int) bool {
		a, b := rels[i], rels[j]
		return a.SourceName+"\x00"+a.RelationType+"\x00"+a.TargetName < b.SourceName+"\x00"+b.RelationType+"\x00"+b.TargetName
	})
	return rels
}

// List returns every document, sorted by id, without scores.
func (d *Docs) List(ctx context.Context) ([]sdk.Doc, error) {
	all, err := d.st.Docs(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]sdk.Doc, len(all))
	for i, doc := range all {
		out[i] = sdk.Doc{ID: doc.ID, Title: doc.Title, Content: doc.Content}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// Get returns one document, or ErrNoDoc.
func (d *Docs) Get(ctx context.Context, id string) (sdk.Doc, error) {
	doc, ok, err := d.st.Doc(ctx, id)
	if err != nil {
		return sdk.Doc{}, err
	}
	if !ok {
		return sdk.Doc{}, fmt.Errorf("%w: %q", ErrNoDoc, id)
	}
	return sdk.Doc{ID: doc.ID, Title: doc.Title, Content: doc.Content}, nil
}

// Delete removes a document, or returns ErrNoDoc.
func (d *Docs) Delete(ctx context.Context, id string) error {
	if _, err := d.Get(ctx, id); err != nil {
		return err
	}
	if err := d.st.DeleteDoc(ctx, id); err != nil {
		return err
	}
	d.index.Remove(id)
	return nil
}
