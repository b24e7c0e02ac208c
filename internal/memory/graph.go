// Package memory is the agent's memory behind the host's memory
// services (scope.Graph, scope.Docs, scope.Text): the graph memory
// (entities and the relations between them, in the store's mem_entities
// and mem_relations tables), the text memory (the raw conversation log,
// JSON lines in one folder per scope and one file a day), and the
// document memory (short-lived documents in mem_docs). Every entry
// belongs to a scope and a writer; every method takes the caller's
// scope.View and sees, or changes, only what the view allows.
//
// Entity names and documents are searched through the one search.Index
// the application shares between the document memory, the knowledge
// base and recall: entities as "e:<id>" documents, documents as
// "d:<rid>", each tagged with its kind, scope and writer. At start each
// owner brings the index up to its table (only what changed is indexed
// again).
package memory

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/hearth-agent/hearth/internal/scope"
	"github.com/hearth-agent/hearth/internal/search"
	"github.com/hearth-agent/hearth/internal/store"
	"github.com/hearth-agent/hearth/sdk"
)

// MaxDepth bounds Recall's walk.
const MaxDepth = 3

// ErrCriteria is returned by Purge for criteria it does not understand.
var ErrCriteria = errors.New("invalid purge criteria")

// GraphStore keeps the graph memory's records; *store.Store is the one
// Hearth uses. Each write is all or none.
type GraphStore interface {
	CommitTriples(ctx context.Context, k store.Key, triples []store.Triple) (store.Change, error)
	SetEntityType(ctx context.Context, k store.Key, name, typ string) error
	EntitiesByID(ctx context.Context, ids []int64) ([]store.Entity, error)
	EntitiesNamed(ctx context.Context, v store.Visible, names []string, purged bool) ([]store.Entity, error)
	EachEntity(ctx context.Context, fn func(store.Entity) bool) error
	RelationsTouching(ctx context.Context, v store.Visible, names []string, fanout int) ([]store.Relation, error)
	RelationsOf(ctx context.Context, e store.Entity) ([]store.Relation, error)
	CountGraph(ctx context.Context, v store.Visible) (store.GraphCounts, error)
	MergeEntities(ctx context.Context, k store.Key, source, target string) (int, store.Change, error)
	PurgeEntities(ctx context.Context, v store.Visible, f store.EntityFilter, hard bool) ([]store.Entity, error)
	EntityPage(ctx context.Context, v store.Visible, part string, offset, limit int) ([]store.Entity, int, error)
	RelationPage(ctx context.Context, v store.Visible, part string, offset, limit int) ([]store.Relation, int, error)
	DeleteRelation(ctx context.Context, r store.Relation) (bool, error)
}

var _ GraphStore = (*store.Store)(nil)

// Graph is the graph memory. It implements scope.Graph.
type Graph struct {
	st   GraphStore
	idx  *search.Index
	tags *search.Owners
	mu   sync.Mutex // held across a write and its index update, so they follow in one order
}

var _ scope.Graph = (*Graph)(nil)

// NewGraph returns the graph memory kept in st, its entity names
// searched in idx (the application's shared index), which it brings up
// to date: names of entities gone are dropped, those missing added.
func NewGraph(ctx context.Context, st GraphStore, idx *search.Index) (*Graph, error) {
	g := &Graph{st: st, idx: idx, tags: search.NewOwners(idx, "e")}
	if err := g.reconcile(ctx); err != nil {
		return nil, fmt.Errorf("graph memory: indexing names: %w", err)
	}
	return g, nil
}

// reconcile makes the index's "e:" documents the live entities' names.
// An entity's name never changes (a rename is a merge, which makes a new
// entity), so a document present is current.
func (g *Graph) reconcile(ctx context.Context) error {
	have := map[int64]uint32{}
	var stale []string
	g.idx.Each("e:", func(id string, m search.Meta) bool {
		if n, ok := parseID("e:", id); ok {
			have[n] = m.Tag
		} else {
			stale = append(stale, id)
		}
		return true
	})
	for _, tag := range have {
		g.tags.Learn(tag)
	}
	err := g.st.EachEntity(ctx, func(e store.Entity) bool {
		if tag, ok := have[e.ID]; ok {
			delete(have, e.ID)
			if o, ok := g.tags.Of(tag); ok && o == search.Owner(e.Key) {
				return true
			}
		}
		g.put(e)
		return true
	})
	if err != nil {
		return err
	}
	for n := range have {
		stale = append(stale, indexID("e:", n))
	}
	for _, id := range stale {
		g.idx.Remove(id)
	}
	return nil
}

func (g *Graph) put(e store.Entity) {
	g.idx.Put(indexID("e:", e.ID), e.Name, search.Meta{Tag: g.tags.Tag(search.Owner(e.Key)), Stamp: 1})
}

// follow brings the index after a write that made ch.
func (g *Graph) follow(ch store.Change) {
	for _, id := range ch.Gone {
		g.idx.Remove(indexID("e:", id))
	}
	for _, e := range ch.Live {
		if _, ok := g.idx.Meta(indexID("e:", e.ID)); !ok {
			g.put(e)
		}
	}
}

// Commit records triples in v's scope as v's writer: both entities are
// mentioned once more (created if new, restored if purged softly) and
// the relation is added, all or none.
func (g *Graph) Commit(v scope.View, triples []sdk.Triple) error {
	k, err := writes(v)
	if err != nil {
		return fmt.Errorf("memory: %w %q", err, v.Write)
	}
	recs := make([]store.Triple, len(triples))
	for i, t := range triples {
		s, r, o := strings.TrimSpace(t.Subject), strings.TrimSpace(t.Relation), strings.TrimSpace(t.Object)
		if s == "" || r == "" || o == "" {
			return fmt.Errorf("memory: a triple needs a subject, a relation and an object: %+v", t)
		}
		recs[i] = store.Triple{Subject: s, Relation: r, Object: o}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	ch, err := g.st.CommitTriples(context.Background(), k, recs)
	if err != nil {
		return fmt.Errorf("memory: committing: %w", err)
	}
	g.follow(ch)
	return nil
}

// Introspect returns counts of what v sees: entities, relations, and
// those purged softly.
func (g *Graph) Introspect(v scope.View) (map[string]any, error) {
	c, err := g.st.CountGraph(context.Background(), sees(v))
	if err != nil {
		return nil, err
	}
	return map[string]any{"entities": c.Entities, "relations": c.Relations,
		"purged_entities": c.PurgedEntities, "purged_relations": c.PurgedRelations}, nil
}

// MergeEntities folds source into target (two names of one thing) in
// every scope and writer's entries v owns that have source: its
// relations move to target, its mentions add to target's, and source is
// removed. It returns how many of source's relations there were (now
// target's; one target already had is kept once).
func (g *Graph) MergeEntities(v scope.View, source, target string) (int, error) {
	source, target = strings.TrimSpace(source), strings.TrimSpace(target)
	if source == target || source == "" || target == "" {
		return 0, fmt.Errorf("memory: merging %q into %q", source, target)
	}
	ctx := context.Background()
	list, err := g.st.EntitiesNamed(ctx, owns(v), []string{source}, false)
	if err != nil {
		return 0, err
	}
	if len(list) == 0 {
		return 0, fmt.Errorf("memory: %w: %q", ErrNoEntity, source)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	total := 0
	for _, e := range list {
		n, ch, err := g.st.MergeEntities(ctx, e.Key, source, target)
		if err != nil {
			return total, err
		}
		g.follow(ch)
		total += n
	}
	return total, nil
}

// Purge removes the entities v owns matching criteria ("name": exact
// name, "type": entity type, "relation": entities in such a relation),
// with their relations; mode "soft" marks them so Recall skips them and
// Commit brings them back, "hard" deletes them. It returns how many
// entities.
func (g *Graph) Purge(v scope.View, criteria map[string]string, mode string) (int, error) {
	if mode != "soft" && mode != "hard" {
		return 0, fmt.Errorf("%w: mode %q (want soft or hard)", ErrCriteria, mode)
	}
	if len(criteria) == 0 {
		return 0, fmt.Errorf("%w: no criteria (name, type or relation)", ErrCriteria)
	}
	var f store.EntityFilter
	for k, val := range criteria {
		switch k {
		case "name":
			f.Name = &val
		case "type":
			f.Type = &val
		case "relation":
			f.Relation = &val
		default:
			return 0, fmt.Errorf("%w: unknown criterion %q (name, type or relation)", ErrCriteria, k)
		}
	}
	return g.purge(context.Background(), owns(v), f, mode == "hard")
}

func (g *Graph) purge(ctx context.Context, sel store.Visible, f store.EntityFilter, hard bool) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	gone, err := g.st.PurgeEntities(ctx, sel, f, hard)
	if err != nil {
		return 0, err
	}
	for _, e := range gone {
		g.idx.Remove(indexID("e:", e.ID))
	}
	return len(gone), nil
}
