// Package memory is the agent's memory behind the SDK's three memory
// APIs: the graph memory (entities and the relations between them, in the
// store's mem_entities and mem_relations tables), the text memory (the
// raw conversation log, JSON lines in one file a day), and the document
// memory (short-lived documents in mem_docs, searched with the shared BM25
// index that handles Chinese).
package memory

import (
	"context"
	"database/sql"
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

// Graph is the graph memory. It implements sdk.MemoryAPI.
type Graph struct{ db *sql.DB }

var _ sdk.MemoryAPI = (*Graph)(nil)

// NewGraph returns the graph memory kept in st.
func NewGraph(st *store.Store) *Graph { return &Graph{db: st.DB()} }

// Commit records triples: both entities are mentioned once more (created
// if new, restored if purged softly) and the relation is added.
func (g *Graph) Commit(triples []sdk.Triple) error {
	ctx := context.Background()
	tx, err := g.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, t := range triples {
		s, r, o := strings.TrimSpace(t.Subject), strings.TrimSpace(t.Relation), strings.TrimSpace(t.Object)
		if s == "" || r == "" || o == "" {
			return fmt.Errorf("memory: a triple needs a subject, a relation and an object: %+v", t)
		}
		for _, name := range []string{s, o} {
			if _, err := tx.ExecContext(ctx, `INSERT INTO mem_entities(name, mention_count) VALUES (?, 1)
				ON CONFLICT(name) DO UPDATE SET mention_count = mention_count + 1, deleted = 0`, name); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO mem_relations(source, relation, target) VALUES (?, ?, ?)
			ON CONFLICT(source, relation, target) DO UPDATE SET deleted = 0`, s, r, o); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// SetType sets an entity's type (Person, Location, Concept...), which
// triples do not carry.
func (g *Graph) SetType(name, typ string) error {
	_, err := g.db.Exec(`UPDATE mem_entities SET type = ? WHERE name = ?`, typ, name)
	return err
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
		rows, err := g.db.QueryContext(ctx, `SELECT name, type, mention_count FROM mem_entities
			WHERE deleted = 0 AND instr(lower(name), lower(?)) > 0`, q)
		if err != nil {
			return nil, nil, err
		}
		for rows.Next() {
			var e sdk.Entity
			if err := rows.Scan(&e.Name, &e.Type, &e.MentionCount); err != nil {
				rows.Close()
				return nil, nil, err
			}
			if _, ok := found[e.Name]; !ok {
				found[e.Name] = e
				frontier = append(frontier, e.Name)
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, nil, err
		}
	}
	relations := map[sdk.Relation]bool{}
	for step := 0; step < depth && len(frontier) > 0; step++ {
		var next []string
		for _, name := range frontier {
			rows, err := g.db.QueryContext(ctx, `SELECT r.source, r.relation, r.target FROM mem_relations r
				JOIN mem_entities s ON s.name = r.source AND s.deleted = 0
				JOIN mem_entities t ON t.name = r.target AND t.deleted = 0
				WHERE r.deleted = 0 AND (r.source = ? OR r.target = ?)`, name, name)
			if err != nil {
				return nil, nil, err
			}
			for rows.Next() {
				var r sdk.Relation
				if err := rows.Scan(&r.SourceName, &r.RelationType, &r.TargetName); err != nil {
					rows.Close()
					return nil, nil, err
				}
				relations[r] = true
				for _, other := range []string{r.SourceName, r.TargetName} {
					if _, ok := found[other]; !ok {
						found[other] = sdk.Entity{Name: other}
						next = append(next, other)
					}
				}
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return nil, nil, err
			}
		}
		frontier = next
	}
	entities := make([]sdk.Entity, 0, len(found))
	for name, e := range found {
		if e.MentionCount == 0 { // reached by the walk: read it
			if err := g.db.QueryRowContext(ctx, `SELECT type, mention_count FROM mem_entities WHERE name = ?`, name).
				Scan(&e.Type, &e.MentionCount); err != nil && !errors.Is(err, sql.ErrNoRows) {
				return nil, nil, err
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
func (g *Graph) Introspect() (map[string]interface{}, error) {
	var ents, rels, softEnts, softRels int
	err := g.db.QueryRow(`SELECT
		(SELECT count(*) FROM mem_entities WHERE deleted = 0),
		(SELECT count(*) FROM mem_relations WHERE deleted = 0),
		(SELECT count(*) FROM mem_entities WHERE deleted = 1),
		(SELECT count(*) FROM mem_relations WHERE deleted = 1)`).Scan(&ents, &rels, &softEnts, &softRels)
	if err != nil {
		return nil, err
	}
	return map[string]interface{}{"entities": ents, "relations": rels,
		"purged_entities": softEnts, "purged_relations": softRels}, nil
}

// MergeEntities folds source into target (two names of one thing): its
// relations move to target, its mentions add to target's, and source is
// removed. It returns how many of source's relations there were (now
// target's; one target already had is kept once).
func (g *Graph) MergeEntities(source, target string) (int, error) {
	if source == target || source == "" || target == "" {
		return 0, fmt.Errorf("memory: merging %q into %q", source, target)
	}
	ctx := context.Background()
	tx, err := g.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	var mentions int
	var typ string
	if err := tx.QueryRowContext(ctx, `SELECT mention_count, type FROM mem_entities WHERE name = ?`, source).Scan(&mentions, &typ); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return 0, fmt.Errorf("memory: no entity %q", source)
		}
		return 0, err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO mem_entities(name, type, mention_count) VALUES (?, ?, ?)
		ON CONFLICT(name) DO UPDATE SET mention_count = mention_count + excluded.mention_count, deleted = 0,
		type = CASE WHEN type = '' THEN excluded.type ELSE type END`, target, typ, mentions); err != nil {
		return 0, err
	}
	for _, q := range []string{
		`INSERT OR IGNORE INTO mem_relations(source, relation, target, deleted)
			SELECT ?, relation, target, deleted FROM mem_relations WHERE source = ? AND target <> ?`,
		`INSERT OR IGNORE INTO mem_relations(source, relation, target, deleted)
			SELECT source, relation, ?, deleted FROM mem_relations WHERE target = ? AND source <> ?`,
	} {
		if _, err := tx.ExecContext(ctx, q, target, source, target); err != nil {
			return 0, err
		}
	}
	res, err := tx.ExecContext(ctx, `DELETE FROM mem_relations WHERE source = ? OR target = ?`, source, source)
	if err != nil {
		return 0, err
	}
	moved, _ := res.RowsAffected()
	if _, err := tx.ExecContext(ctx, `DELETE FROM mem_entities WHERE name = ?`, source); err != nil {
		return 0, err
	}
	return int(moved), tx.Commit()
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
	var where []string
	var args []any
	for k, v := range criteria {
		switch k {
		case "name":
			where, args = append(where, "name = ?"), append(args, v)
		case "type":
			where, args = append(where, "type = ?"), append(args, v)
		case "relation":
			where = append(where, "name IN (SELECT source FROM mem_relations WHERE relation = ? UNION SELECT target FROM mem_relations WHERE relation = ?)")
			args = append(args, v, v)
		default:
			return 0, fmt.Errorf("%w: unknown criterion %q (name, type or relation)", ErrCriteria, k)
		}
	}
	ctx := context.Background()
	tx, err := g.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, `SELECT name FROM mem_entities WHERE deleted = 0 AND `+strings.Join(where, " AND "), args...)
	if err != nil {
		return 0, err
	}
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			rows.Close()
			return 0, err
		}
		names = append(names, n)
	}
	rows.Close()
	for _, n := range names {
		var q1, q2 string
		if mode == "soft" {
			q1 = `UPDATE mem_entities SET deleted = 1 WHERE name = ?`
			q2 = `UPDATE mem_relations SET deleted = 1 WHERE source = ?1 OR target = ?1`
		} else {
			q1 = `DELETE FROM mem_entities WHERE name = ?`
			q2 = `DELETE FROM mem_relations WHERE source = ?1 OR target = ?1`
		}
		if _, err := tx.ExecContext(ctx, q1, n); err != nil {
			return 0, err
		}
		if _, err := tx.ExecContext(ctx, q2, n); err != nil {
			return 0, err
		}
	}
	return len(names), tx.Commit()
}
