package search

import (
	"slices"
	"strings"
	"sync"
)

// Index is a BM25 index of documents by id. It is safe for concurrent use.
//
// Documents are numbered in the order they were added. Those present at
// the last compaction live in an immutable, compact segment (sorted terms,
// varint-coded postings); those added since keep their postings in a small
// map of term to (number, frequency) slices. Removing a document marks its
// number dead (length 0) and lowers the live document frequencies; its
// postings stay in the segment, skipped by searches, until the next
// compaction, which runs when the added and removed documents reach a
// share of the segment (and on Flush when a snapshot is due), and
// renumbers the live documents. A compaction holds up changes, not
// searches: it builds the new segment beside the old one and swaps them.
type Index struct {
	// wmu serialises changes (and compactions, which hold it while they
	// build the new segment under a read lock, so searches go on); mu
	// guards the fields: changes hold both, searches a read lock of mu.
	wmu sync.Mutex
	mu  sync.RWMutex
	seg *segment
	df  []uint32 // live document frequency of the segment's terms

	// The document table, by number: ids[n] == "" and lens[n] == 0 once
	// removed.
	ids   []string
	lens  []uint32
	metas []Meta
	num   map[string]uint32
	live  int
	total int64 // sum of the live documents' lengths

	mem      map[string][]posting // postings of documents numbered seg.n and up
	memTerms [][]string           // their distinct terms, by number - seg.n
	dead     int                  // numbers removed since the last compaction

	tags   map[string]uint32
	labels []string // by tag - 1

	disk *store // nil for an index in memory only
}

type posting struct {
	doc uint32
	tf  uint32
}

// minCompact is the fewest added or removed documents that trigger a
// compaction; below a segment's half they never do.
const minCompact = 4096

// NewIndex returns an empty index in memory.
func NewIndex() *Index {
	return &Index{seg: emptySegment(), num: map[string]uint32{}, mem: map[string][]posting{}, tags: map[string]uint32{}}
}

// Add indexes text under id, replacing what id had, with a zero Meta.
func (x *Index) Add(id, text string) { x.Put(id, text, Meta{}) }

// Put indexes text under id with m, replacing what id had. The empty id
// is not indexed.
func (x *Index) Put(id, text string, m Meta) {
	terms := Tokens(text)
	tf := make(map[string]uint32, len(terms))
	for _, t := range terms {
		tf[t]++
	}
	tf = ownTerms(tf)
	x.wmu.Lock()
	defer x.wmu.Unlock()
	x.mu.Lock()
	x.put(id, uint32(len(terms)), m, tf)
	if x.disk != nil {
		x.disk.logPut(id, uint32(len(terms)), m, tf)
	}
	x.mu.Unlock()
	x.maybeCompact()
}

// ownTerms returns tf keyed by copies of its terms, made in one
// allocation: Tokens's terms may be substrings of the text, and a term
// the index keeps must not keep the whole text alive.
func ownTerms(tf map[string]uint32) map[string]uint32 {
	keys := make([]string, 0, len(tf))
	size := 0
	for t := range tf {
		keys = append(keys, t)
		size += len(t)
	}
	var b strings.Builder
	b.Grow(size)
	for _, t := range keys {
		b.WriteString(t)
	}
	all := b.String()
	out := make(map[string]uint32, len(tf))
	for _, t := range keys {
		out[all[:len(t)]] = tf[t]
		all = all[len(t):]
	}
	return out
}

// put indexes a document of length terms with the term frequencies tf.
func (x *Index) put(id string, length uint32, m Meta, tf map[string]uint32) {
	x.remove(id)
	if id == "" {
		return // "" marks removed numbers; such a document cannot be found
	}
	n := uint32(len(x.ids))
	x.ids = append(x.ids, id)
	x.lens = append(x.lens, length)
	x.metas = append(x.metas, m)
	x.num[id] = n
	x.live++
	x.total += int64(length)
	terms := make([]string, 0, len(tf))
	for t, f := range tf {
		terms = append(terms, t)
		x.mem[t] = append(x.mem[t], posting{n, f})
	}
	x.memTerms = append(x.memTerms, terms)
}

// Remove drops id.
func (x *Index) Remove(id string) {
	x.wmu.Lock()
	defer x.wmu.Unlock()
	x.mu.Lock()
	if x.remove(id) && x.disk != nil {
		x.disk.logRemove(id)
	}
	x.mu.Unlock()
	x.maybeCompact()
}

func (x *Index) remove(id string) bool {
	n, ok := x.num[id]
	if !ok {
		return false
	}
	if n < x.seg.n {
		x.seg.eachDocTerm(n, func(t uint32) { x.df[t]-- })
	} else {
		for _, t := range x.memTerms[n-x.seg.n] {
			p := x.mem[t]
			i, _ := slices.BinarySearchFunc(p, n, func(e posting, n uint32) int { return int(int64(e.doc) - int64(n)) })
			p = slices.Delete(p, i, i+1)
			if len(p) == 0 {
				delete(x.mem, t)
			} else {
				x.mem[t] = p
			}
		}
		x.memTerms[n-x.seg.n] = nil
	}
	x.total -= int64(x.lens[n])
	x.ids[n], x.lens[n], x.metas[n] = "", 0, Meta{}
	delete(x.num, id)
	x.live--
	x.dead++
	return true
}

// maybeCompact compacts if enough changed; the caller holds wmu only.
func (x *Index) maybeCompact() {
	changed := len(x.memTerms) + x.dead
	if changed >= minCompact && changed >= int(x.seg.n)/2 {
		x.compact()
	}
}

// Tag returns the number standing for label, the same for the same label
// as long as the index lives, on disk too (an owner keeps, say, "kind,
// scope, writer" in it); never 0, which is the tag of no label.
func (x *Index) Tag(label string) uint32 {
	x.wmu.Lock()
	defer x.wmu.Unlock()
	x.mu.Lock()
	defer x.mu.Unlock()
	if t, ok := x.tags[label]; ok {
		return t
	}
	if x.disk != nil {
		x.disk.logTag(label)
	}
	return x.tag(label)
}

func (x *Index) tag(label string) uint32 {
	if t, ok := x.tags[label]; ok {
		return t
	}
	x.labels = append(x.labels, label)
	t := uint32(len(x.labels))
	x.tags[label] = t
	return t
}

// Label returns the label of tag, "" for 0 or an unknown tag.
func (x *Index) Label(tag uint32) string {
	x.mu.RLock()
	defer x.mu.RUnlock()
	if tag == 0 || int(tag) > len(x.labels) {
		return ""
	}
	return x.labels[tag-1]
}

// Meta returns id's Meta; ok is false if id is not indexed.
func (x *Index) Meta(id string) (m Meta, ok bool) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	n, ok := x.num[id]
	if !ok {
		return Meta{}, false
	}
	return x.metas[n], true
}

// Each calls fn for each document whose id starts with prefix, in no
// order, until fn returns false. fn must not call the index.
func (x *Index) Each(prefix string, fn func(id string, m Meta) bool) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	for id, n := range x.num {
		if strings.HasPrefix(id, prefix) && !fn(id, x.metas[n]) {
			return
		}
	}
}

// Len returns the number of documents.
func (x *Index) Len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.live
}

// DocTerms returns the distinct terms of document id, sorted; nil if id
// is not indexed.
func (x *Index) DocTerms(id string) []string {
	x.mu.RLock()
	defer x.mu.RUnlock()
	n, ok := x.num[id]
	if !ok {
		return nil
	}
	if n >= x.seg.n {
		out := slices.Clone(x.memTerms[n-x.seg.n])
		slices.Sort(out)
		return out
	}
	var out []string
	x.seg.eachDocTerm(n, func(t uint32) { out = append(out, x.seg.term(int(t))) })
	return out // terms are numbered in sorted order
}
