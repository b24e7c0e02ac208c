package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// The graph memory's records (mem_entities, mem_relations); the document
// memory's are in memory_docs.go. Package memory gives them their
// meaning; the store only keeps them. Every entry has an owner (Key: the
// scope it belongs to and the plugin that wrote it), and every read and
// bulk change names the owners it may touch (Visible).

// Key is who an entry belongs to: a scope (package scope's names:
// "global", "owner", "user:<channel>/<id>", "chat:<channel>/<chat>") and
// a writer (a plugin id; "" for the owner and Hearth).
type Key struct {
	Scope, Writer string
}

// Visible selects entries by owner: the scopes in Scopes (every scope
// when nil) written by Writer (every writer when nil).
type Visible struct {
	Scopes []string
	Writer *string
}

// All is the Visible of every entry.
var All = Visible{}

// where returns the SQL condition of v on the columns of alias (a table
// name or alias; "" for none) and its arguments. The condition's text is
// the same for every v, so its statement is prepared once.
func (v Visible) where(alias string) (string, []any) {
	if alias != "" {
		alias += "."
	}
	scopes, _ := json.Marshal(v.Scopes)
	writer := ""
	if v.Writer != nil {
		writer = *v.Writer
	}
	return "(? OR " + alias + "scope IN (SELECT value FROM json_each(?))) AND (? OR " + alias + "writer = ?)",
		[]any{v.Scopes == nil, string(scopes), v.Writer == nil, writer}
}

// Triple is one relation to record: Subject Relation Object.
type Triple struct {
	Subject, Relation, Object string
}

// Entity is a remembered thing, with how often it was mentioned.
type Entity struct {
	ID int64 // the row's id, never reused
	Key
	Name     string
	Type     string
	Mentions int
	Purged   bool // purged softly: hidden until mentioned again
}

// Relation links two entities of one owner.
type Relation struct {
	Key
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

// Change says which entities a graph write made live (created,
// mentioned again or restored) and which it took away (deleted or
// purged softly), so that an index of their names can follow.
type Change struct {
	Live []Entity
	Gone []int64 // ids
}

// ErrNoEntity means the named entity is not in the graph memory.
var ErrNoEntity = errors.New("no such entity")

const entityCols = `id, scope, writer, name, type, mention_count, deleted`

func scanEntity(rows *sql.Rows) (e Entity, err error) {
	return e, rows.Scan(&e.ID, &e.Scope, &e.Writer, &e.Name, &e.Type, &e.Mentions, &e.Purged)
}

func scanRelation(rows *sql.Rows) (r Relation, err error) {
	return r, rows.Scan(&r.Scope, &r.Writer, &r.Source, &r.Relation, &r.Target)
}

func jsonList[T any](list []T) string {
	b, _ := json.Marshal(list)
	return string(b)
}

// CommitTriples records triples for k in one transaction: both entities
// of each are mentioned once more (created if new, restored if purged
// softly) and the relation is added (restored if purged softly). It
// returns the entities it touched. It runs three statements however
// many triples there are.
func (s *Store) CommitTriples(ctx context.Context, k Key, triples []Triple) (Change, error) {
	if len(triples) == 0 {
		return Change{}, nil
	}
	mentions := map[string]int{}
	var order []string
	rels := make([][3]string, len(triples))
	for i, t := range triples {
		for _, name := range []string{t.Subject, t.Object} {
			if mentions[name] == 0 {
				order = append(order, name)
			}
			mentions[name]++
		}
		rels[i] = [3]string{t.Subject, t.Relation, t.Object}
	}
	counted := make([][2]any, len(order))
	for i, name := range order {
		counted[i] = [2]any{name, mentions[name]}
	}
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return Change{}, err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, qMention, k.Scope, k.Writer, jsonList(counted)); err != nil {
		return Change{}, err
	}
	if _, err := tx.ExecContext(ctx, qRelate, k.Scope, k.Writer, jsonList(rels)); err != nil {
		return Change{}, err
	}
	if inCommit != nil {
		inCommit()
	}
	var ch Change
	ch.Live, err = queryAll(ctx, tx, scanEntity, `SELECT `+entityCols+` FROM mem_entities
		WHERE scope = ? AND writer = ? AND name IN (SELECT value FROM json_each(?))`, k.Scope, k.Writer, jsonList(order))
	if err != nil {
		return Change{}, err
	}
	return ch, tx.Commit()
}

// inCommit, when set (by tests), is called inside CommitTriples's
// transaction once its writes are made, before it commits.
var inCommit func()

// CommitTriples's statements, prepared when the store opens. "WHERE
// true" tells SQLite's parser that ON CONFLICT belongs to the INSERT.
func init() { txQueries = append(txQueries, qMention, qRelate) }

const (
	qMention = `INSERT INTO mem_entities(scope, writer, name, mention_count)
		SELECT ?1, ?2, value->>0, value->>1 FROM json_each(?3) WHERE true
		ON CONFLICT(scope, writer, name) DO UPDATE SET mention_count = mention_count + excluded.mention_count, deleted = 0`
	qRelate = `INSERT INTO mem_relations(scope, writer, source, relation, target)
		SELECT ?1, ?2, value->>0, value->>1, value->>2 FROM json_each(?3) WHERE true
		ON CONFLICT(scope, writer, source, relation, target) DO UPDATE SET deleted = 0`
)

// SetEntityType sets the type of k's entity name; an unknown name is
// ignored.
func (s *Store) SetEntityType(ctx context.Context, k Key, name, typ string) error {
	_, err := s.w.ExecContext(ctx, `UPDATE mem_entities SET type = ? WHERE scope = ? AND writer = ? AND name = ?`,
		typ, k.Scope, k.Writer, name)
	return err
}

// EntitiesByID returns the live entities among ids, in no order.
func (s *Store) EntitiesByID(ctx context.Context, ids []int64) ([]Entity, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	return queryAll(ctx, s.db, scanEntity, `SELECT `+entityCols+` FROM mem_entities
		WHERE id IN (SELECT value FROM json_each(?)) AND deleted = 0`, jsonList(ids))
}

// EntitiesNamed returns the entities v selects named one of names, live
// ones only unless purged is set, ordered by name, scope and writer.
func (s *Store) EntitiesNamed(ctx context.Context, v Visible, names []string, purged bool) ([]Entity, error) {
	if len(names) == 0 {
		return nil, nil
	}
	cond, args := v.where("")
	return queryAll(ctx, s.db, scanEntity, `SELECT `+entityCols+` FROM mem_entities
		WHERE name IN (SELECT value FROM json_each(?)) AND (? OR deleted = 0) AND `+cond+`
		ORDER BY name, scope, writer`, append([]any{jsonList(names), purged}, args...)...)
}

// EachEntity calls fn with every live entity's id, owner and name, in id
// order, until fn returns false; for an index of names to catch up with
// the table.
func (s *Store) EachEntity(ctx context.Context, fn func(e Entity) bool) error {
	rows, err := s.db.QueryContext(ctx, `SELECT id, scope, writer, name FROM mem_entities WHERE deleted = 0 ORDER BY id`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var e Entity
		if err := rows.Scan(&e.ID, &e.Scope, &e.Writer, &e.Name); err != nil {
			return err
		}
		if !fn(e) {
			break
		}
	}
	return rows.Err()
}

// RelationsTouching returns the live relations v selects that one of
// names is either end of, at most fanout (the latest recorded) per name
// and end, in one query. A relation between two of names may come twice.
func (s *Store) RelationsTouching(ctx context.Context, v Visible, names []string, fanout int) ([]Relation, error) {
	if len(names) == 0 {
		return nil, nil
	}
	cond, args := v.where("s")
	half := func(end string) string {
		return `SELECT r.scope, r.writer, r.source, r.relation, r.target FROM json_each(?) f
			JOIN mem_relations r ON r.id IN (SELECT s.id FROM mem_relations s
				WHERE s.` + end + ` = f.value AND s.deleted = 0 AND ` + cond + ` ORDER BY s.id DESC LIMIT ?)`
	}
	list := jsonList(names)
	all := append(append([]any{list}, args...), fanout)
	all = append(append(append(all, list), args...), fanout)
	return queryAll(ctx, s.db, scanRelation, half("source")+` UNION ALL `+half("target"), all...)
}

// RelationsOf returns the live relations of the entity e (of its owner)
// that e is either end of, ordered.
func (s *Store) RelationsOf(ctx context.Context, e Entity) ([]Relation, error) {
	return queryAll(ctx, s.db, scanRelation, `SELECT scope, writer, source, relation, target FROM mem_relations
		WHERE scope = ?1 AND writer = ?2 AND (source = ?3 OR target = ?3) AND deleted = 0
		ORDER BY source, relation, target`, e.Scope, e.Writer, e.Name)
}

// CountGraph counts the graph memory's records v selects.
func (s *Store) CountGraph(ctx context.Context, v Visible) (GraphCounts, error) {
	var c GraphCounts
	cond, args := v.where("")
	err := s.db.QueryRowContext(ctx, `SELECT
		(SELECT count(*) FILTER (WHERE deleted = 0) FROM mem_entities WHERE `+cond+`),
		(SELECT count(*) FILTER (WHERE deleted = 0) FROM mem_relations WHERE `+cond+`),
		(SELECT count(*) FILTER (WHERE deleted = 1) FROM mem_entities WHERE `+cond+`),
		(SELECT count(*) FILTER (WHERE deleted = 1) FROM mem_relations WHERE `+cond+`)`,
		append(append(append(append([]any{}, args...), args...), args...), args...)...).
		Scan(&c.Entities, &c.Relations, &c.PurgedEntities, &c.PurgedRelations)
	return c, err
}

// MergeEntities folds k's entity source into k's target in one
// transaction: source's relations move to target (one target already
// has is kept once), its mentions add to target's, target takes its type
// if it has none, and source is removed. It returns how many relations
// source had, and ErrNoEntity if k has no source.
func (s *Store) MergeEntities(ctx context.Context, k Key, source, target string) (int, Change, error) {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return 0, Change{}, err
	}
	defer tx.Rollback()
	var id int64
	var mentions int
	var typ string
	err = tx.QueryRowContext(ctx, `SELECT id, mention_count, type FROM mem_entities WHERE scope = ? AND writer = ? AND name = ?`,
		k.Scope, k.Writer, source).Scan(&id, &mentions, &typ)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, Change{}, fmt.Errorf("%w: %q", ErrNoEntity, source)
	}
	if err != nil {
		return 0, Change{}, err
	}
	to := Entity{Key: k, Name: target}
	if err := tx.QueryRowContext(ctx, `INSERT INTO mem_entities(scope, writer, name, type, mention_count) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT(scope, writer, name) DO UPDATE SET mention_count = mention_count + excluded.mention_count, deleted = 0,
		type = CASE WHEN type = '' THEN excluded.type ELSE type END
		RETURNING id, type, mention_count`, k.Scope, k.Writer, target, typ, mentions).Scan(&to.ID, &to.Type, &to.Mentions); err != nil {
		return 0, Change{}, err
	}
	for _, q := range []string{
		`INSERT OR IGNORE INTO mem_relations(scope, writer, source, relation, target, deleted)
			SELECT scope, writer, ?3, relation, target, deleted FROM mem_relations
			WHERE scope = ?1 AND writer = ?2 AND source = ?4 AND target <> ?3`,
		`INSERT OR IGNORE INTO mem_relations(scope, writer, source, relation, target, deleted)
			SELECT scope, writer, source, relation, ?3, deleted FROM mem_relations
			WHERE scope = ?1 AND writer = ?2 AND target = ?4 AND source <> ?3`,
	} {
		if _, err := tx.ExecContext(ctx, q, k.Scope, k.Writer, target, source); err != nil {
			return 0, Change{}, err
		}
	}
	res, err := tx.ExecContext(ctx, `DELETE FROM mem_relations WHERE scope = ?1 AND writer = ?2 AND (source = ?3 OR target = ?3)`,
		k.Scope, k.Writer, source)
	if err != nil {
		return 0, Change{}, err
	}
	moved, _ := res.RowsAffected()
	if _, err := tx.ExecContext(ctx, `DELETE FROM mem_entities WHERE id = ?`, id); err != nil {
		return 0, Change{}, err
	}
	return int(moved), Change{Live: []Entity{to}, Gone: []int64{id}}, tx.Commit()
}

// PurgeEntities removes the live entities v and f select, with their
// relations, in one transaction: hard deletes them, soft marks them
// purged (CommitTriples brings them back). It returns them.
func (s *Store) PurgeEntities(ctx context.Context, v Visible, f EntityFilter, hard bool) ([]Entity, error) {
	cond, args := v.where("")
	where := []string{"deleted = 0", cond}
	if f.Name != nil {
		where, args = append(where, "name = ?"), append(args, *f.Name)
	}
	if f.Type != nil {
		where, args = append(where, "type = ?"), append(args, *f.Type)
	}
	if f.Relation != nil {
		where = append(where, `EXISTS (SELECT 1 FROM mem_relations r WHERE r.scope = mem_entities.scope
			AND r.writer = mem_entities.writer AND r.relation = ? AND (r.source = mem_entities.name OR r.target = mem_entities.name))`)
		args = append(args, *f.Relation)
	}
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	list, err := queryAll(ctx, tx, scanEntity, `SELECT `+entityCols+` FROM mem_entities WHERE `+strings.Join(where, " AND "), args...)
	if err != nil {
		return nil, err
	}
	q1 := `UPDATE mem_entities SET deleted = 1 WHERE id = ?`
	q2 := `UPDATE mem_relations SET deleted = 1 WHERE scope = ?1 AND writer = ?2 AND (source = ?3 OR target = ?3)`
	if hard {
		q1 = `DELETE FROM mem_entities WHERE id = ?`
		q2 = `DELETE FROM mem_relations WHERE scope = ?1 AND writer = ?2 AND (source = ?3 OR target = ?3)`
	}
	for _, e := range list {
		if _, err := tx.ExecContext(ctx, q1, e.ID); err != nil {
			return nil, err
		}
		if _, err := tx.ExecContext(ctx, q2, e.Scope, e.Writer, e.Name); err != nil {
			return nil, err
		}
	}
	return list, tx.Commit()
}

// EntityPage returns up to limit live entities v selects from offset,
// most mentioned first (then by name, scope and writer), whose names
// contain part (every one for ""), without regard to case, and how many
// match in all.
func (s *Store) EntityPage(ctx context.Context, v Visible, part string, offset, limit int) ([]Entity, int, error) {
	cond, args := v.where("")
	where := `WHERE deleted = 0 AND instr(lower(name), lower(?)) > 0 AND ` + cond
	args = append([]any{part}, args...)
	var total int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM mem_entities `+where, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	list, err := queryAll(ctx, s.db, scanEntity, `SELECT `+entityCols+` FROM mem_entities `+where+`
		ORDER BY mention_count DESC, name, scope, writer LIMIT ? OFFSET ?`, append(args, limit, offset)...)
	return list, total, err
}

// RelationPage returns up to limit live relations v selects from offset,
// ordered by source, relation, target, scope and writer, whose kind or
// either end contains part (every one for ""), without regard to case,
// and how many match in all.
func (s *Store) RelationPage(ctx context.Context, v Visible, part string, offset, limit int) ([]Relation, int, error) {
	cond, args := v.where("")
	from := `FROM mem_relations WHERE deleted = 0 AND (instr(lower(source), lower(?)) > 0 OR instr(lower(relation), lower(?)) > 0
			OR instr(lower(target), lower(?)) > 0) AND ` + cond
	args = append([]any{part, part, part}, args...)
	var total int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) `+from, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	list, err := queryAll(ctx, s.db, scanRelation, `SELECT scope, writer, source, relation, target `+from+`
		ORDER BY source, relation, target, scope, writer LIMIT ? OFFSET ?`, append(args, limit, offset)...)
	return list, total, err
}

// DeleteRelation removes one relation, live or purged softly; ok is false
// if there was none.
func (s *Store) DeleteRelation(ctx context.Context, r Relation) (ok bool, err error) {
	res, err := s.w.ExecContext(ctx, `DELETE FROM mem_relations WHERE scope = ? AND writer = ? AND source = ? AND relation = ? AND target = ?`,
		r.Scope, r.Writer, r.Source, r.Relation, r.Target)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// IntegrityCheck runs SQLite's integrity check on the whole database
// (after a crash, say) and reports whether it found nothing wrong.
func (s *Store) IntegrityCheck(ctx context.Context) (bool, error) {
	var res string
	if err := s.db.QueryRowContext(ctx, `PRAGMA integrity_check(1)`).Scan(&res); err != nil {
		return false, err
	}
	return res == "ok", nil
}
