package store

import (
	"context"
	"database/sql"
	"time"
)

// The document memory's records (mem_docs). A document belongs to an
// owner (Key) and has an id of its own, unique per owner; rid is the
// row's id, never reused, and Version grows by one at each change, so an
// index that names a document by its rid can tell from the version
// whether what it holds is current.

// Doc is a stored document of the document memory.
type Doc struct {
	RID int64 // the row's id, never reused
	Key
	ID, Title, Content string
	Version            int64
	Updated            time.Time
}

// DocVersion is a document's row id and version.
type DocVersion struct {
	RID, Version int64
}

const docCols = `rid, scope, writer, id, title, content, version, updated_at`

func scanDoc(rows *sql.Rows) (d Doc, err error) {
	var at int64
	err = rows.Scan(&d.RID, &d.Scope, &d.Writer, &d.ID, &d.Title, &d.Content, &d.Version, &at)
	d.Updated = time.UnixMilli(at)
	return d, err
}

// SaveDoc stores doc for doc.Key, replacing the title and content of the
// owner's document with its ID, and returns it as stored (RID, Version,
// Updated set).
func (s *Store) SaveDoc(ctx context.Context, doc Doc) (Doc, error) {
	now := time.Now().UnixMilli()
	err := s.w.QueryRowContext(ctx, `INSERT INTO mem_docs(scope, writer, id, title, content, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT(scope, writer, id) DO UPDATE SET title = excluded.title, content = excluded.content,
			updated_at = excluded.updated_at, version = version + 1
		RETURNING rid, version`, doc.Scope, doc.Writer, doc.ID, doc.Title, doc.Content, now, now).Scan(&doc.RID, &doc.Version)
	doc.Updated = time.UnixMilli(now)
	return doc, err
}

// DeleteDocs removes the documents v selects with the given id (one per
// owner) and returns their row ids.
func (s *Store) DeleteDocs(ctx context.Context, v Visible, id string) ([]int64, error) {
	cond, args := v.where("")
	return queryAll(ctx, s.w, func(rows *sql.Rows) (rid int64, err error) {
		return rid, rows.Scan(&rid)
	}, `DELETE FROM mem_docs WHERE id = ? AND `+cond+` RETURNING rid`, append([]any{id}, args...)...)
}

// DocsWithID returns the documents v selects with the given id (one per
// owner), ordered by scope and writer.
func (s *Store) DocsWithID(ctx context.Context, v Visible, id string) ([]Doc, error) {
	cond, args := v.where("")
	return queryAll(ctx, s.db, scanDoc, `SELECT `+docCols+` FROM mem_docs WHERE id = ? AND `+cond+`
		ORDER BY scope, writer`, append([]any{id}, args...)...)
}

// DocsByRID returns the documents among rids, in no order, in one query.
func (s *Store) DocsByRID(ctx context.Context, rids []int64) ([]Doc, error) {
	if len(rids) == 0 {
		return nil, nil
	}
	return queryAll(ctx, s.db, scanDoc, `SELECT `+docCols+` FROM mem_docs WHERE rid IN (SELECT value FROM json_each(?))`,
		jsonList(rids))
}

// DocPage returns up to limit documents v selects from offset, ordered
// by id, scope and writer, and how many there are in all.
func (s *Store) DocPage(ctx context.Context, v Visible, offset, limit int) ([]Doc, int, error) {
	total, err := s.CountDocs(ctx, v)
	if err != nil {
		return nil, 0, err
	}
	cond, args := v.where("")
	list, err := queryAll(ctx, s.db, scanDoc, `SELECT `+docCols+` FROM mem_docs WHERE `+cond+`
		ORDER BY id, scope, writer LIMIT ? OFFSET ?`, append(args, limit, offset)...)
	return list, total, err
}

// CountDocs counts the documents v selects.
func (s *Store) CountDocs(ctx context.Context, v Visible) (int, error) {
	cond, args := v.where("")
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM mem_docs WHERE `+cond, args...).Scan(&n)
	return n, err
}

// DocVersions returns every document's row id and version, for an
// index to tell which documents it must add, replace or drop.
func (s *Store) DocVersions(ctx context.Context) ([]DocVersion, error) {
	return queryAll(ctx, s.db, func(rows *sql.Rows) (d DocVersion, err error) {
		return d, rows.Scan(&d.RID, &d.Version)
	}, `SELECT rid, version FROM mem_docs`)
}
