package memory

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"log/slog"
	"time"

	"github.com/hearth-agent/hearth/internal/search"
	"github.com/hearth-agent/hearth/internal/store"
	"github.com/hearth-agent/hearth/sdk"
)

// Docs is the document memory: short-lived documents (a page the agent
// read, a file the user sent) kept in the store until removed, searched by
// the shared BM25 index. It implements sdk.DocMemoryAPI.
type Docs struct {
	db    *sql.DB
	index *search.Index
}

var _ sdk.DocMemoryAPI = (*Docs)(nil)

// NewDocs returns the document memory kept in st, its index built from
// what st holds.
func NewDocs(st *store.Store) (*Docs, error) {
	d := &Docs{db: st.DB(), index: search.NewIndex()}
	rows, err := d.db.Query(`SELECT id, title, content FROM mem_docs`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id, title, content string
		if err := rows.Scan(&id, &title, &content); err != nil {
			return nil, err
		}
		d.index.Add(id, title+"\n"+content)
	}
	return d, rows.Err()
}

// Insert stores doc (replacing one with its ID); an empty ID is given one.
func (d *Docs) Insert(doc *sdk.Doc) error {
	if doc == nil {
		return fmt.Errorf("document memory: no document")
	}
	if doc.ID == "" {
		var b [8]byte
		rand.Read(b[:])
		doc.ID = hex.EncodeToString(b[:])
	}
	_, err := d.db.ExecContext(context.Background(), `INSERT INTO mem_docs(id, title, content, created_at) VALUES (?, ?, ?, ?)
		ON CONFLICT(id) DO UPDATE SET title = excluded.title, content = excluded.content`,
		doc.ID, doc.Title, doc.Content, time.Now().UnixMilli())
	if err != nil {
		return err
	}
	d.index.Add(doc.ID, doc.Title+"\n"+doc.Content)
	return nil
}

// Remove deletes a document; an unknown id is ignored.
func (d *Docs) Remove(id string) {
	if _, err := d.db.Exec(`DELETE FROM mem_docs WHERE id = ?`, id); err != nil {
		slog.Warn("document memory: remove failed", "id", id, "err", err)
		return
	}
	d.index.Remove(id)
}

// Query returns the topK documents best matching text, with their scores.
func (d *Docs) Query(text string, topK int) []*sdk.Doc {
	if topK <= 0 {
		topK = 5
	}
	var out []*sdk.Doc
	for _, h := range d.index.Search(text, topK) {
		doc := &sdk.Doc{ID: h.ID, Score: h.Score}
		err := d.db.QueryRow(`SELECT title, content FROM mem_docs WHERE id = ?`, h.ID).Scan(&doc.Title, &doc.Content)
		if err != nil {
			continue // removed meanwhile
		}
		out = append(out, doc)
	}
	return out
}

// Stats returns how many documents there are.
func (d *Docs) Stats() map[string]interface{} {
	return map[string]interface{}{"documents": d.index.Len()}
}
