package memory

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"

	"github.com/hearth-agent/hearth/internal/search"
	"github.com/hearth-agent/hearth/internal/store"
	"github.com/hearth-agent/hearth/sdk"
)

// DocStore keeps the document memory's documents; *store.Store is the
// one Hearth uses.
type DocStore interface {
	// SaveDoc stores doc, replacing one with its ID.
	SaveDoc(ctx context.Context, doc store.Doc) error
	// DeleteDoc removes a document; an unknown id is not an error.
	DeleteDoc(ctx context.Context, id string) error
	// Doc returns one document; ok is false if there is none.
	Doc(ctx context.Context, id string) (doc store.Doc, ok bool, err error)
	// Docs returns every document.
	Docs(ctx context.Context) ([]store.Doc, error)
}

var _ DocStore = (*store.Store)(nil)

// Docs is the document memory: short-lived documents (a page the agent
// read, a file the user sent) kept in the store until removed, searched by
// the shared BM25 index. It implements sdk.DocMemoryAPI.
type Docs struct {
	st    DocStore
	index *search.Index
}

var _ sdk.DocMemoryAPI = (*Docs)(nil)

// NewDocs returns the document memory kept in st, its index built from
// what st holds.
func NewDocs(st DocStore) (*Docs, error) {
	d := &Docs{st: st, index: search.NewIndex()}
	all, err := st.Docs(context.Background())
	if err != nil {
		return nil, err
	}
	for _, doc := range all {
		d.index.Add(doc.ID, doc.Title+"\n"+doc.Content)
	}
	return d, nil
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
	if err := d.st.SaveDoc(context.Background(), store.Doc{ID: doc.ID, Title: doc.Title, Content: doc.Content}); err != nil {
		return err
	}
	d.index.Add(doc.ID, doc.Title+"\n"+doc.Content)
	return nil
}

// Remove deletes a document; an unknown id is ignored.
func (d *Docs) Remove(id string) {
	if err := d.st.DeleteDoc(context.Background(), id); err != nil {
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
		rec, ok, err := d.st.Doc(context.Background(), h.ID)
		if err != nil || !ok {
			continue // removed meanwhile
		}
		out = append(out, &sdk.Doc{ID: h.ID, Title: rec.Title, Content: rec.Content, Score: h.Score})
	}
	return out
}

// Stats returns how many documents there are.
func (d *Docs) Stats() map[string]any {
	return map[string]any{"documents": d.index.Len()}
}
