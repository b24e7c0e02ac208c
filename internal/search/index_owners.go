package search

import (
	"strings"
	"sync"
)

// Owner is whose an indexed document is: a scope and a writer ("" for
// the owner of the data), as the index's owners (the knowledge base,
// the document memory, graph recall) keep them.
type Owner struct {
	Scope, Writer string
}

// Owners keeps the tags of one kind of document ("k" for knowledge
// entries, "d" for documents, "e" for entities): a tag stands for the
// label "kind\x00scope\x00writer", so that one index serves every kind,
// and a filtered search selects the tags a caller may see. It never
// holds its lock while it calls the index. Its methods are safe for
// concurrent use.
type Owners struct {
	idx  *Index
	kind string

	mu      sync.RWMutex
	byTag   map[uint32]Owner
	byOwner map[Owner]uint32
}

// NewOwners returns the tags of documents of kind in idx.
func NewOwners(idx *Index, kind string) *Owners {
	return &Owners{idx: idx, kind: kind, byTag: map[uint32]Owner{}, byOwner: map[Owner]uint32{}}
}

// Tag returns the tag of o's documents.
func (t *Owners) Tag(o Owner) uint32 {
	t.mu.RLock()
	tag, ok := t.byOwner[o]
	t.mu.RUnlock()
	if ok {
		return tag
	}
	tag = t.idx.Tag(t.kind + "\x00" + o.Scope + "\x00" + o.Writer)
	t.mu.Lock()
	t.byOwner[o], t.byTag[tag] = tag, o
	t.mu.Unlock()
	return tag
}

// Learn records whose documents tag marks, read from the index's label
// (a tag a persisted index had before this process); false if tag is of
// another kind, or none.
func (t *Owners) Learn(tag uint32) bool {
	t.mu.RLock()
	_, ok := t.byTag[tag]
	t.mu.RUnlock()
	if ok {
		return true
	}
	kind, rest, ok1 := strings.Cut(t.idx.Label(tag), "\x00")
	sc, wr, ok2 := strings.Cut(rest, "\x00")
	if !ok1 || !ok2 || kind != t.kind {
		return false
	}
	o := Owner{Scope: sc, Writer: wr}
	t.mu.Lock()
	t.byOwner[o], t.byTag[tag] = tag, o
	t.mu.Unlock()
	return true
}

// Of returns whose documents tag marks, if Tag or Learn has seen it.
func (t *Owners) Of(tag uint32) (Owner, bool) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	o, ok := t.byTag[tag]
	return o, ok
}

// Allowed returns the search filter of the documents of this kind whose
// owner sees accepts, as they are now: it calls sees once per owner
// known, and the filter reads only that snapshot (it never calls the
// index, as a filter must not).
func (t *Owners) Allowed(sees func(Owner) bool) func(Meta) bool {
	t.mu.RLock()
	top := uint32(0)
	for tag := range t.byTag {
		top = max(top, tag)
	}
	ok := make([]bool, top+1)
	for tag, o := range t.byTag {
		ok[tag] = sees(o)
	}
	t.mu.RUnlock()
	return func(m Meta) bool { return int(m.Tag) < len(ok) && ok[m.Tag] }
}
