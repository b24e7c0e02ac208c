package memory

import (
	"context"
	"fmt"
	"strings"

	"github.com/hearth-agent/hearth/internal/scope"
	"github.com/hearth-agent/hearth/internal/store"
	"github.com/hearth-agent/hearth/sdk"
)

// What a person does to the memory (the HTTP API, the CLI): browse it
// page by page, correct an entity, remove what is wrong. Each method
// takes the view it acts through: scope.Everything for the whole memory,
// or one narrowed to a scope (and a writer) to pick one entry of a name
// that several scopes or writers have. The agent's side is scope.Graph
// in graph.go and recall.go.

// Entities returns up to limit live entities v sees from offset whose
// names contain query (every one for ""), most mentioned first, and how
// many match in all.
func (g *Graph) Entities(ctx context.Context, v scope.View, query string, offset, limit int) ([]EntityEntry, int, error) {
	list, total, err := g.st.EntityPage(ctx, sees(v), strings.TrimSpace(query), max(offset, 0), max(limit, 0))
	if err != nil {
		return nil, 0, err
	}
	out := make([]EntityEntry, len(list))
	for i, e := range list {
		out[i] = entityEntry(e)
	}
	return out, total, nil
}

func entityEntry(e store.Entity) EntityEntry {
	return EntityEntry{Entity: sdk.Entity{Name: e.Name, Type: e.Type, MentionCount: e.Mentions}, Owner: owner(e.Key)}
}

func relationEntries(list []store.Relation) []RelationEntry {
	out := make([]RelationEntry, len(list))
	for i, r := range list {
		out[i] = RelationEntry{Relation: sdk.Relation{SourceName: r.Source, RelationType: r.Relation, TargetName: r.Target},
			Owner: owner(r.Key)}
	}
	return out
}

// one returns the one live entity named name that sel selects:
// ErrNoEntity if none, ErrAmbiguous if several.
func (g *Graph) one(ctx context.Context, sel store.Visible, name string) (store.Entity, error) {
	list, err := g.st.EntitiesNamed(ctx, sel, []string{name}, false)
	if err != nil {
		return store.Entity{}, err
	}
	switch len(list) {
	case 0:
		return store.Entity{}, fmt.Errorf("%w: %q", ErrNoEntity, name)
	case 1:
		return list[0], nil
	}
	return store.Entity{}, fmt.Errorf("%w: entity %q", ErrAmbiguous, name)
}

// Entity returns the live entity named name v sees, with its relations
// (sorted): ErrNoEntity if there is none, ErrAmbiguous if several scopes
// or writers have one.
func (g *Graph) Entity(ctx context.Context, v scope.View, name string) (EntityEntry, []RelationEntry, error) {
	e, err := g.one(ctx, sees(v), name)
	if err != nil {
		return EntityEntry{}, nil, err
	}
	rels, err := g.st.RelationsOf(ctx, e)
	if err != nil {
		return EntityEntry{}, nil, err
	}
	return entityEntry(e), relationEntries(rels), nil
}

// Relations returns up to limit live relations v sees from offset whose
// kind or either end contains query, and how many match in all.
func (g *Graph) Relations(ctx context.Context, v scope.View, query string, offset, limit int) ([]RelationEntry, int, error) {
	list, total, err := g.st.RelationPage(ctx, sees(v), strings.TrimSpace(query), max(offset, 0), max(limit, 0))
	if err != nil {
		return nil, 0, err
	}
	return relationEntries(list), total, nil
}

// DeleteRelation removes the relation r wherever v owns it (every scope
// and writer v may change); ok is false if there was none.
func (g *Graph) DeleteRelation(ctx context.Context, v scope.View, r sdk.Relation) (ok bool, err error) {
	names := []string{r.SourceName}
	list, err := g.st.EntitiesNamed(ctx, owns(v), names, true)
	if err != nil {
		return false, err
	}
	for _, e := range list {
		done, err := g.st.DeleteRelation(ctx, store.Relation{Key: e.Key, Source: r.SourceName, Relation: r.RelationType, Target: r.TargetName})
		if err != nil {
			return ok, err
		}
		ok = ok || done
	}
	return ok, nil
}

// SetType sets the type (Person, Location, Concept...) of the entity
// named name v owns: ErrNoEntity if none, ErrAmbiguous if several.
func (g *Graph) SetType(ctx context.Context, v scope.View, name, typ string) error {
	e, err := g.one(ctx, owns(v), name)
	if err != nil {
		return err
	}
	return g.st.SetEntityType(ctx, e.Key, name, strings.TrimSpace(typ))
}

// Rename gives the entity named name v owns a new name, its relations
// and mentions kept. A name another entity of the same scope and writer
// has is refused with ErrExists (merge them instead).
func (g *Graph) Rename(ctx context.Context, v scope.View, name, to string) error {
	to = strings.TrimSpace(to)
	if to == "" {
		return fmt.Errorf("memory: renaming %q to an empty name", name)
	}
	if to == name {
		return nil
	}
	e, err := g.one(ctx, owns(v), name)
	if err != nil {
		return err
	}
	w := e.Writer
	if taken, err := g.st.EntitiesNamed(ctx, store.Visible{Scopes: []string{e.Scope}, Writer: &w}, []string{to}, true); err != nil {
		return err
	} else if len(taken) > 0 {
		return fmt.Errorf("%w: %q", ErrExists, to)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	_, ch, err := g.st.MergeEntities(ctx, e.Key, name, to)
	if err != nil {
		return err
	}
	g.follow(ch)
	return nil
}

// Delete removes the entity named name v owns, and its relations, for
// good: ErrNoEntity if none, ErrAmbiguous if several.
func (g *Graph) Delete(ctx context.Context, v scope.View, name string) error {
	e, err := g.one(ctx, owns(v), name)
	if err != nil {
		return err
	}
	w := e.Writer
	_, err = g.purge(ctx, store.Visible{Scopes: []string{e.Scope}, Writer: &w}, store.EntityFilter{Name: &name}, true)
	return err
}

// PurgeAll removes every live entity v owns with its relations (hard
// deletes them, soft hides them until a Commit mentions them again) and
// returns how many.
func (g *Graph) PurgeAll(ctx context.Context, v scope.View, hard bool) (int, error) {
	return g.purge(ctx, owns(v), store.EntityFilter{}, hard)
}
