package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// The graph memory's records (mem_entities, mem_relations) and the
// document memory's (mem_docs). Package memory gives them their meaning;
// the store only keeps them.

// Triple is one relation to record: Subject Relation Object.
type Triple struct {
	Subject, Relation, Object string
}

// Entity is a remembered thing, with how often it was mentioned.
type Entity struct {
	Name     string
	Type     string
	Mentions int
	Purged   bool // purged softly: hidden until mentioned again
}

// Relation links two entities.
type Relation struct {
	Source, Relation, Target string
}

// GraphCounts counts the graph memory's records, live and purged softly.
type GraphCounts struct {
	Entities, Relations             int
	PurgedEntities, PurgedRelations int
}

// EntityFilter selects entities for PurgeEntities. A nil field matches
// every entity; the set ones must all match.
type EntityFilter struct {
	Name     *string // exactly this name
	Type     *string // this type ("" for none)
	Relation *string // in a relation of this kind, either end
}

// ErrNoEntity means the named entity is not in the graph memory.
var ErrNoEntity = errors.New("no such entity")

// CommitTriples records triples in one transaction: both entities of each
// are mentioned once more (created if new, restored if purged softly) and
// the relation is added (restored if purged softly).
func (s *Store) CommitTriples(ctx context.Context, triples []Triple) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, t := range triples {
		for _, name := range []string{t.Subject, t.Object} {
			if _, err := tx.ExecContext(ctx, `INSERT INTO mem_entities(name, mention_count) VALUES (?, 1)
				ON CONFLICT(name) DO UPDATE SET mention_count = mention_count + 1, deleted = 0`, name); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO mem_relations(source, relation, target) VALUES (?, ?, ?)
			ON CONFLICT(source, relation, target) DO UPDATE SET deleted = 0`, t.Subject, t.Relation, t.Object); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// SetEntityType sets an entity's type; an unknown name is ignored.
func (s *Store) SetEntityType(ctx context.Context, name, typ string) error {
	_, err := s.db.ExecContext(ctx, `UPDATE mem_entities SET type = ? WHERE name = ?`, typ, name)
	return err
}

// EntitiesNamedLike returns the live entities whose names contain part,
// compared without regard to case.
func (s *Store) EntitiesNamedLike(ctx context.Context, part string) ([]Entity, error) {
	return queryAll(ctx, s.db, func(rows *sql.Rows) (e Entity, err error) {
		return e, rows.Scan(&e.Name, &e.Type, &e.Mentions)
	}, `SELECT name, type, mention_count FROM mem_entities
		WHERE deleted = 0 AND instr(lower(name), lower(?)) > 0`, part)
}

// Entity returns an entity, live or purged softly; ok is false if there
// is none.
func (s *Store) Entity(ctx context.Context, name string) (e Entity, ok bool, err error) {
	e.Name = name
	err = s.db.QueryRowContext(ctx, `SELECT type, mention_count, deleted FROM mem_entities WHERE name = ?`, name).
		Scan(&e.Type, &e.Mentions, &e.Purged)
	if errors.Is(err, sql.ErrNoRows) {
		return e, false, nil
	}
	return e, err == nil, err
}

// RelationsOf returns the live relations between live entities that name
// is either end of.
func (s *Store) RelationsOf(ctx context.Context, name string) ([]Relation, error) {
	return queryAll(ctx, s.db, func(rows *sql.Rows) (r Relation, err error) {
		return r, rows.Scan(&r.Source, &r.Relation, &r.Target)
	}, `SELECT r.source, r.relation, r.target FROM mem_relations r
		JOIN mem_entities s ON s.name = r.source AND s.deleted = 0
		JOIN mem_entities t ON t.name = r.target AND t.deleted = 0
		WHERE r.deleted = 0 AND (r.source = ? OR r.target = ?)`, name, name)
}

// CountGraph counts the graph memory's records.
func (s *Store) CountGraph(ctx context.Context) (GraphCounts, error) {
	var c GraphCounts
	err := s.db.QueryRowContext(ctx, `SELECT
		(SELECT count(*) FROM mem_entities WHERE deleted = 0),
		(SELECT count(*) FROM mem_relations WHERE deleted = 0),
		(SELECT count(*) FROM mem_entities WHERE deleted = 1),
		(SELECT count(*) FROM mem_relations WHERE deleted = 1)`).
		Scan(&c.Entities, &c.Relations, &c.PurgedEntities, &c.PurgedRelations)
	return c, err
}

// MergeEntities folds source into target in one transaction: source's
// relations move to target (one target already has is kept once), its
// mentions add to target's, target takes its type if it has none, and
// source is removed. It returns how many relations source had, and
// ErrNoEntity if there is no source.
func (s *Store) MergeEntities(ctx context.Context, source, target string) (int, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	var mentions int
	var typ string
	if err := tx.QueryRowContext(ctx, `SELECT mention_count, type FROM mem_entities WHERE name = ?`, source).Scan(&mentions, &typ); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return 0, fmt.Errorf("%w: %q", ErrNoEntity, source)
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

// PurgeEntities removes the live entities f selects, with their
// relations, in one transaction: hard deletes them, soft marks them
// purged (CommitTriples brings them back). It returns how many entities.
func (s *Store) PurgeEntities(ctx context.Context, f EntityFilter, hard bool) (int, error) {
	where := []string{"deleted = 0"}
	var args []any
	if f.Name != nil {
		where, args = append(where, "name = ?"), append(args, *f.Name)
	}
	if f.Type != nil {
		where, args = append(where, "type = ?"), append(args, *f.Type)
	}
	if f.Relation != nil {
		where = append(where, "name IN (SELECT source FROM mem_relations WHERE relation = ? UNION SELECT target FROM mem_relations WHERE relation = ?)")
		args = append(args, *f.Relation, *f.Relation)
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	names, err := queryAll(ctx, tx, func(rows *sql.Rows) (n string, err error) {
		return n, rows.Scan(&n)
	}, `SELECT name FROM mem_entities WHERE `+strings.Join(where, " AND "), args...)
	if err != nil {
		return 0, err
	}
	q1 := `UPDATE mem_entities SET deleted = 1 WHERE name = ?`
	q2 := `UPDATE mem_relations SET deleted = 1 WHERE source = ?1 OR target = ?1`
	if hard {
		q1 = `DELETE FROM mem_entities WHERE name = ?`
		q2 = `DELETE FROM mem_relations WHERE source = ?1 OR target = ?1`
	}
	for _, n := range names {
		if _, err := tx.ExecContext(ctx, q1, n); err != nil {
			return 0, err
		}
		if _, err := tx.ExecContext(ctx, q2, n); err != nil {
			return 0, err
		}
	}
	return len(names), tx.Commit()
}

// EntityPage returns up to limit live entities from offset, most
// mentioned first (then by name), whose names contain part (every one for
// ""), without regard to case, and how many match in all.
func (s *Store) EntityPage(ctx context.Context, part string, offset, limit int) ([]Entity, int, error) {
	const where = `WHERE deleted = 0 AND instr(lower(name), lower(?)) > 0`
	var total int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM mem_entities `+where, part).Scan(&total); err != nil {
		return nil, 0, err
	}
	list, err := queryAll(ctx, s.db, func(rows *sql.Rows) (e Entity, err error) {
		return e, rows.Scan(&e.Name, &e.Type, &e.Mentions)
	}, `SELECT name, type, mention_count FROM mem_entities `+where+`
		ORDER BY mention_count DESC, name LIMIT ? OFFSET ?`, part, limit, offset)
	return list, total, err
}

// RelationPage returns up to limit live relations between live entities
// from offset, ordered by source, relation and target, whose kind or
// either end contains part (every one for ""), without regard to case,
// and how many match in all.
func (s *Store) RelationPage(ctx context.Context, part string, offset, limit int) ([]Relation, int, error) {
	const from = `FROM mem_relations r
		JOIN mem_entities s ON s.name = r.source AND s.deleted = 0
		JOIN mem_entities t ON t.name = r.target AND t.deleted = 0
		WHERE r.deleted = 0 AND (instr(lower(r.source), lower(?1)) > 0 OR instr(lower(r.relation), lower(?1)) > 0
			OR instr(lower(r.target), lower(?1)) > 0)`
	var total int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) `+from, part).Scan(&total); err != nil {
		return nil, 0, err
	}
	list, err := queryAll(ctx, s.db, func(rows *sql.Rows) (r Relation, err error) {
		return r, rows.Scan(&r.Source, &r.Relation, &r.Target)
	}, `SELECT r.source, r.relation, r.target `+from+` ORDER BY r.source, r.relation, r.target LIMIT ?2 OFFSET ?3`,
		part, limit, offset)
	return list, total, err
}

// DeleteRelation removes one relation, live or purged softly; ok is false
// if there was none.
func (s *Store) DeleteRelation(ctx context.Context, r Relation) (ok bool, err error) {
	res, err := s.db.ExecContext(ctx, `DELETE FROM mem_relations WHERE source = ? AND relation = ? AND target = ?`,
		r.Source, r.Relation, r.Target)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// Doc is a stored document of the document memory.
type Doc struct {
	ID, Title, Content string
}

// SaveDoc stores doc, replacing the title and content of one with its ID.
func (s *Store) SaveDoc(ctx context.Context, doc Doc) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO mem_docs(id, title, content, created_at) VALUES (?, ?, ?, ?)
		ON CONFLICT(id) DO UPDATE SET title = excluded.title, content = excluded.content`,
		doc.ID, doc.Title, doc.Content, time.Now().UnixMilli())
	return err
}

// DeleteDoc removes a document; an unknown id is not an error.
func (s *Store) DeleteDoc(ctx context.Context, id string) error {
	_, err := s.db.ExecContext(ctx, `DELETE FROM mem_docs WHERE id = ?`, id)
	return err
}

// Doc returns one document; ok is false if there is none.
func (s *Store) Doc(ctx context.Context, id string) (doc Doc, ok bool, err error) {
	doc.ID = id
	err = s.db.QueryRowContext(ctx, `SELECT title, content FROM mem_docs WHERE id = ?`, id).Scan(&doc.Title, &doc.Content)
	if errors.Is(err, sql.ErrNoRows) {
		return doc, false, nil
	}
	return doc, err == nil, err
}

// Docs returns every document.
func (s *Store) Docs(ctx context.Context) ([]Doc, error) {
	return queryAll(ctx, s.db, func(rows *sql.Rows) (d Doc, err error) {
		return d, rows.Scan(&d.ID, &d.Title, &d.Content)
	}, `SELECT id, title, content FROM mem_docs`)
}
