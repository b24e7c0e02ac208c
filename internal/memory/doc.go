package memory

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"sync"

	"github.com/hearth-agent/hearth/internal/scope"
	"github.com/hearth-agent/hearth/internal/search"
	"github.com/hearth-agent/hearth/internal/store"
	"github.com/hearth-agent/hearth/sdk"
)

// DocStore keeps the document memory's documents; *store.Store is the
// one Hearth uses.
type DocStore interface {
	SaveDoc(ctx context.Context, doc store.Doc) (store.Doc, error)
	DeleteDocs(ctx context.Context, v store.Visible, id string) ([]int64, error)
	DocsWithID(ctx context.Context, v store.Visible, id string) ([]store.Doc, error)
	DocsByRID(ctx context.Context, rids []int64) ([]store.Doc, error)
	DocPage(ctx context.Context, v store.Visible, offset, limit int) ([]store.Doc, int, error)
	CountDocs(ctx context.Context, v store.Visible) (int, error)
	DocVersions(ctx context.Context) ([]store.DocVersion, error)
}

var _ DocStore = (*store.Store)(nil)

// Docs is the document memory: short-lived documents (a page the agent
// read, a file the user sent) kept in the store until removed, searched
// through the shared index as "d:<rid>" documents (title and content)
// whose Meta.Stamp is the row's version. It implements scope.Docs.
type Docs struct {
	st   DocStore
	idx  *search.Index
	tags *search.Owners
	mu   sync.Mutex // held across a write and its index update, so they follow in one order
}

var _ scope.Docs = (*Docs)(nil)

// NewDocs returns the document memory kept in st, searched in idx (the
// application's shared index), which it brings up to date: only
// documents whose version the index does not hold are read and indexed
// again, and those gone are dropped.
func NewDocs(ctx context.Context, st DocStore, idx *search.Index) (*Docs, error) {
	d := &Docs{st: st, idx: idx, tags: search.NewOwners(idx, "d")}
	if err := d.reconcile(ctx); err != nil {
		return nil, fmt.Errorf("document memory: indexing: %w", err)
	}
	return d, nil
}

// reconcileBatch is how many changed documents are read at once.
const reconcileBatch = 500

func (d *Docs) reconcile(ctx context.Context) error {
	have := map[int64]search.Meta{}
	var stale []string
	d.idx.Each("d:", func(id string, m search.Meta) bool {
		if n, ok := parseID("d:", id); ok {
			have[n] = m
		} else {
			stale = append(stale, id)
		}
		return true
	})
	for _, m := range have {
		d.tags.Learn(m.Tag)
	}
	versions, err := d.st.DocVersions(ctx)
	if err != nil {
		return err
	}
	var changed []int64
	for _, dv := range versions {
		m, ok := have[dv.RID]
		delete(have, dv.RID)
		if !ok || m.Stamp != dv.Version {
			changed = append(changed, dv.RID)
		}
	}
	for n := range have {
		stale = append(stale, indexID("d:", n))
	}
	for _, id := range stale {
		d.idx.Remove(id)
	}
	for len(changed) > 0 {
		batch := changed[:min(len(changed), reconcileBatch)]
		changed = changed[len(batch):]
		docs, err := d.st.DocsByRID(ctx, batch)
		if err != nil {
			return err
		}
		for _, doc := range docs {
			d.put(doc)
		}
	}
	return nil
}

func (d *Docs) put(doc store.Doc) {
	d.idx.Put(indexID("d:", doc.RID), search.IndexText(doc.Title, doc.Content), search.Meta{Tag: d.tags.Tag(search.Owner(doc.Key)), Stamp: doc.Version})
}

// Insert stores doc in v's scope as v's writer, replacing v's document
// with its ID there; an empty ID is given one.
func (d *Docs) Insert(v scope.View, doc *sdk.Doc) error {
	if doc == nil {
		return fmt.Errorf("document memory: no document")
	}
	k, err := writes(v)
	if err != nil {
		return fmt.Errorf("document memory: %w %q", err, v.Write)
	}
	if doc.ID == "" {
		var b [8]byte
		rand.Read(b[:])
		doc.ID = hex.EncodeToString(b[:])
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	rec, err := d.st.SaveDoc(context.Background(), store.Doc{Key: k, ID: doc.ID, Title: doc.Title, Content: doc.Content})
	if err != nil {
		return fmt.Errorf("document memory: saving %q: %w", doc.ID, err)
	}
	d.put(rec)
	return nil
}

// Remove deletes the documents with id that v owns (one per scope it
// reads); an unknown id is ignored.
func (d *Docs) Remove(v scope.View, id string) {
	if _, err := d.remove(context.Background(), v, id); err != nil {
		slog.Warn("document memory: remove failed", "id", id, "err", err)
	}
}

func (d *Docs) remove(ctx context.Context, v scope.View, id string) (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	rids, err := d.st.DeleteDocs(ctx, owns(v), id)
	if err != nil {
		return 0, err
	}
	for _, rid := range rids {
		d.idx.Remove(indexID("d:", rid))
	}
	return len(rids), nil
}

// Query returns the topK documents v sees best matching text, with their
// scores.
func (d *Docs) Query(v scope.View, text string, topK int) []*sdk.Doc {
	list, err := d.QueryEntries(context.Background(), v, text, topK)
	if err != nil {
		slog.Warn("document memory: query failed", "err", err)
	}
	out := make([]*sdk.Doc, len(list))
	for i := range list {
		out[i] = &list[i].Doc
	}
	return out
}

// QueryEntries is Query with each document's owner. The hits are read
// from the store in one query.
func (d *Docs) QueryEntries(ctx context.Context, v scope.View, text string, topK int) ([]DocEntry, error) {
	if topK <= 0 {
		topK = 5
	}
	hits := searchAs(d.idx, v, text, topK, allowed(d.tags, v))
	rids := make([]int64, 0, len(hits))
	for _, h := range hits {
		if n, ok := parseID("d:", h.ID); ok {
			rids = append(rids, n)
		}
	}
	docs, err := d.st.DocsByRID(ctx, rids)
	if err != nil {
		return nil, err
	}
	byRID := make(map[int64]store.Doc, len(docs))
	for _, doc := range docs {
		byRID[doc.RID] = doc
	}
	out := make([]DocEntry, 0, len(hits))
	for _, h := range hits {
		n, _ := parseID("d:", h.ID)
		doc, ok := byRID[n]
		if !ok || !v.Sees(doc.Writer, scope.Scope(doc.Scope)) {
			continue // removed meanwhile
		}
		e := entry(doc)
		e.Score = h.Score
		out = append(out, e)
	}
	return out, nil
}

// searchAs searches idx for v, with the query processing every owner of
// the shared index uses (the knowledge base too): stop words and Chinese
// question words dropped. The owner's and the agent's own views rank
// with search.Index.Query (BM25 over the whole index, then feedback); a
// plugin's view (not AllWriters) is scored with the statistics of the
// documents it sees only (search.Index.SearchWithin), so that its scores
// and the order of its hits tell it nothing about what other writers or
// other scopes stored.
func searchAs(idx *search.Index, v scope.View, text string, k int, allow func(search.Meta) bool) []search.Hit {
	if !v.AllWriters {
		return idx.SearchWithin(text, k, allow)
	}
	return idx.Query(text, k, allow)
}

func entry(doc store.Doc) DocEntry {
	return DocEntry{Doc: sdk.Doc{ID: doc.ID, Title: doc.Title, Content: doc.Content}, Owner: owner(doc.Key)}
}

// Stats returns how many documents v sees.
func (d *Docs) Stats(v scope.View) map[string]any {
	n, err := d.st.CountDocs(context.Background(), sees(v))
	if err != nil {
		slog.Warn("document memory: counting failed", "err", err)
	}
	return map[string]any{"documents": n}
}

// List returns up to limit documents v sees from offset, by id, scope
// and writer, and how many there are in all.
func (d *Docs) List(ctx context.Context, v scope.View, offset, limit int) ([]DocEntry, int, error) {
	list, total, err := d.st.DocPage(ctx, sees(v), max(offset, 0), max(limit, 0))
	if err != nil {
		return nil, 0, err
	}
	out := make([]DocEntry, len(list))
	for i, doc := range list {
		out[i] = entry(doc)
	}
	return out, total, nil
}

// Get returns the document with id v sees: ErrNoDoc if there is none,
// ErrAmbiguous if there are several (narrow the view to a scope and a
// writer).
func (d *Docs) Get(ctx context.Context, v scope.View, id string) (DocEntry, error) {
	list, err := d.st.DocsWithID(ctx, sees(v), id)
	if err != nil {
		return DocEntry{}, err
	}
	switch len(list) {
	case 0:
		return DocEntry{}, fmt.Errorf("%w: %q", ErrNoDoc, id)
	case 1:
		return entry(list[0]), nil
	}
	return DocEntry{}, fmt.Errorf("%w: document %q", ErrAmbiguous, id)
}

// Delete removes the documents with id v owns, or returns ErrNoDoc.
func (d *Docs) Delete(ctx context.Context, v scope.View, id string) error {
	n, err := d.remove(ctx, v, id)
	if err == nil && n == 0 {
		err = fmt.Errorf("%w: %q", ErrNoDoc, id)
	}
	return err
}
