// Package memory is the agent's memory behind the SDK's three memory
// APIs: the graph memory (entities and the relations between them, in the
// store's mem_entities and mem_relations tables), the text memory (the
// raw conversation log, JSON lines in one file a day), and the document
// memory (short-lived documents in mem_docs, searched with the shared BM25
// index that handles Chinese).
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

// MaxDepth bounds Recall's walk.
const MaxDepth = 3

// ErrCriteria is returned by Purge for criteria it does not understand.
var ErrCriteria = errors.New("invalid purge criteria")

// GraphStore keeps the graph memory's records; *store.Store is the one
// Hearth uses. Each write is all or none.
type GraphStore interface {
	// CommitTriples mentions both entities of each triple once more
	// (creating or restoring them) and adds (or restores) the relation.
	CommitTriples(ctx context.Context, triples []store.Triple) error
	// SetEntityType sets an entity's type; an unknown name is ignored.
	SetEntityType(ctx context.Context, name, typ string) error
	// EntitiesNamedLike returns the live entities whose names contain
	// part, without regard to case.
	EntitiesNamedLike(ctx context.Context, part string) ([]store.Entity, error)
	// Entity returns an entity; ok is false if there is none.
	Entity(ctx context.Context, name string) (e store.Entity, ok bool, err error)
	// RelationsOf returns the live relations between live entities that
	// name is either end of.
	RelationsOf(ctx context.Context, name string) ([]store.Relation, error)
	// CountGraph counts the records, live and purged softly.
	CountGraph(ctx context.Context) (store.GraphCounts, error)
	// MergeEntities folds source into target and returns how many
	// relations source had; store.ErrNoEntity if there is no source.
	MergeEntities(ctx context.Context, source, target string) (int, error)
	// PurgeEntities removes (hard) or marks purged (soft) the live
	// entities f selects, with their relations, and returns how many.
	PurgeEntities(ctx context.Context, f store.EntityFilter, hard bool) (int, error)
	// EntityPage returns a page of the live entities whose names contain
	// part, most mentioned first, and how many match.
	EntityPage(ctx context.Context, part string, offset, limit int) ([]store.Entity, int, error)
	// RelationPage returns a page of the live relations that contain part
	// in their kind or either end, and how many match.
	RelationPage(ctx context.Context, part string, offset, limit int) ([]store.Relation, int, error)
	// DeleteRelation removes one relation; ok is false if there was none.
	DeleteRelation(ctx context.Context, r store.Relation) (ok bool, err error)
}

var _ GraphStore = (*store.Store)(nil)

// Graph is the graph memory. It implements sdk.MemoryAPI.
type Graph struct{ st GraphStore }

var _ sdk.MemoryAPI = (*Graph)(nil)

// NewGraph returns the graph memory kept in st.
func NewGraph(st GraphStore) *Graph { return &Graph{st: st} }

// Commit records triples: both entities are mentioned once more (created
// if new, restored if purged softly) and the relation is added.
func (g *Graph) Commit(triples []sdk.Triple) error {
	recs := make([]store.Triple, len(triples))
	for i, t := range triples {
		s, r, o := strings.TrimSpace(t.Subject), strings.TrimSpace(t.Relation), strings.TrimSpace(t.Object)
		if s == "" || r == "" || o == "" {
			return fmt.Errorf("memory: a triple needs a subject, a relation and an object: %+v", t)
		}
		recs[i] = store.Triple{Subject: s, Relation: r, Object: o}
	}
	return g.st.CommitTriples(context.Background(), recs)
}

// SetType sets an entity's type (Person, Location, Concept...), which
// triples do not carry.
func (g *Graph) SetType(name, typ string) error {
	return g.st.SetEntityType(context.Background(), name, typ)
}

// Recall finds the entities whose names contain one of the query words
// (case-insensitively), then walks their relations, both ways, depth steps
// (1 if depth < 1, at most MaxDepth). It returns the entities reached,
// most mentioned first, and the relations among them.
func (g *Graph) Recall(query []string, depth int) ([]sdk.Entity, []sdk.Relation, error) {
	depth = min(max(depth, 1), MaxDepth)
	ctx := context.Background()
	found := map[string]sdk.Entity{}
	var frontier []string
	for _, q := range query {
		q = strings.TrimSpace(q)
		if q == "" {
			continue
		}
		list, err := g.st.EntitiesNamedLike(ctx, q)
		if err != nil {
			return nil, nil, err
		}
		for _, e := range list {
			if _, ok := found[e.Name]; !ok {
				found[e.Name] = sdk.Entity{Name: e.Name, Type: e.Type, MentionCount: e.Mentions}
				frontier = append(frontier, e.Name)
			}
		}
	}
	relations := map[sdk.Relation]bool{}
	for step := 0; step < depth && len(frontier) > 0; step++ {
		var next []string
		for _, name := range frontier {
			list, err := g.st.RelationsOf(ctx, name)
			if err != nil {
				return nil, nil, err
			}
			for _, rel := range list {
				r := sdk.Relation{SourceName: rel.Source, RelationType: rel.Relation, TargetName: rel.Target}
				relations[r] = true
				for _, other := range []string{r.SourceName, r.TargetName} {
					if _, ok := found[other]; !ok {
						found[other] = sdk.Entity{Name: other}
						next = append(next, other)
					}
				}
			}
		}
		frontier = next
	}
	entities := make([]sdk.Entity, 0, len(found))
	for name, e := range found {
		if e.MentionCount == 0 { // reached by the walk: read it
			rec, ok, err := g.st.Entity(ctx, name)
			if err != nil {
				return nil, nil, err
			}
			if ok {
				e.Type, e.MentionCount = rec.Type, rec.Mentions
			}
		}
		entities = append(entities, e)
	}
	sort.Slice(entities, func(i, j int) bool {
		if entities[i].MentionCount != entities[j].MentionCount {
			return entities[i].MentionCount > entities[j].MentionCount
		}
		return entities[i].Name < entities[j].Name
	})
	rels := make([]sdk.Relation, 0, len(relations))
	for r := range relations {
		rels = append(rels, r)
	}
	sort.Slice(rels, func(i, j int) bool {
		a, b := rels[i], rels[j]
		return a.SourceName+"\x00"+a.RelationType+"\x00"+a.TargetName < b.SourceName+"\x00"+b.RelationType+"\x00"+b.TargetName
	})
	return entities, rels, nil
}

// Introspect returns counts: entities, relations, and those purged
// softly.
func (g *Graph) Introspect() (map[string]any, error) {
	c, err := g.st.CountGraph(context.Background())
	if err != nil {
		return nil, err
	}
	return map[string]any{"entities": c.Entities, "relations": c.Relations,
		"purged_entities": c.PurgedEntities, "purged_relations": c.PurgedRelations}, nil
}

// MergeEntities folds source into target (two names of one thing): its
// relations move to target, its mentions add to target's, and source is
// removed. It returns how many of source's relations there were (now
// target's; one target already had is kept once).
func (g *Graph) MergeEntities(source, target string) (int, error) {
	if source == target || source == "" || target == "" {
		return 0, fmt.Errorf("memory: merging %q into %q", source, target)
	}
	n, err := g.st.MergeEntities(context.Background(), source, target)
	if errors.Is(err, store.ErrNoEntity) {
		return 0, fmt.Errorf("memory: no entity %q", source)
	}
	return n, err
}

// Purge removes the entities matching criteria ("name": exact name,
// "type": entity type, "relation": entities in such a relation), with their
// relations; mode "soft" marks them so Recall skips them and Commit
// brings them back, "hard" deletes them. It returns how many entities.
func (g *Graph) Purge(criteria map[string]string, mode string) (int, error) {
	if mode != "soft" && mode != "hard" {
		return 0, fmt.Errorf("%w: mode %q (want soft or hard)", ErrCriteria, mode)
	}
	if len(criteria) == 0 {
		return 0, fmt.Errorf("%w: no criteria (name, type or relation)", ErrCriteria)
	}
	var f store.EntityFilter
	for k, v := range criteria {
		switch k {
		case "name":
			f.Name = &v
		case "type":
			f.Type = &v
		case "relation":
			f.Relation = &v
		default:
			return 0, fmt.Errorf("%w: unknown criterion %q (name, type or relation)", ErrCriteria, k)
		}
	}
	return g.st.PurgeEntities(context.Background(), f, mode == "hard")
}
