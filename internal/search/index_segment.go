package search

import (
	"encoding/binary"
	"slices"
	"sort"
	"strings"
)

// A segment is the immutable, compact part of an index: the documents
// numbered below n, as they were at the last compaction. Its terms are
// sorted and concatenated in one string; term i is
// arena[termOff[i]:termOff[i+1]] and its postings are
// post[postOff[i]:postOff[i+1]]: for each document, in increasing order,
// the difference from the previous document number and the term's
// frequency, both as unsigned varints. Each document's distinct terms are
// kept the same way (docTerms[docOff[n]:docOff[n+1]]: increasing term
// numbers as varint differences), for removal and DocTerms. Removed
// documents stay in the postings until the next compaction; the index
// skips them (their length is 0) and keeps the live document frequencies
// beside the segment.
type segment struct {
	n        uint32
	arena    string
	termOff  []uint32 // len terms+1
	postOff  []uint32 // len terms+1
	df       []uint32 // document frequency at compaction
	post     []byte
	docOff   []uint32 // len n+1
	docTerms []byte

	// Skips into long postings, built on load and compaction: term i's
	// are skip[skipOff[i]:skipOff[i+1]], one per skipEvery postings.
	skipOff []uint32
	skip    []skipEntry
}

// skipEntry is where a block of postings starts (off, in the term's
// postings) and the last document number in it.
type skipEntry struct{ last, off uint32 }

// skipEvery is how many postings a skip spans; terms with fewer than two
// blocks have none.
var skipEvery = 64

// skips returns term i's skips (nil for short postings).
func (s *segment) skips(i int) []skipEntry {
	if s.skipOff == nil {
		return nil
	}
	return s.skip[s.skipOff[i]:s.skipOff[i+1]]
}

// buildSkips makes the skips of s.
func (s *segment) buildSkips() {
	s.skipOff = make([]uint32, s.terms()+1)
	s.skip = nil
	buf := make([]posting, 0, skipEvery)
	for t := range s.terms() {
		if int(s.df[t]) >= 2*skipEvery {
			// A skip entry per block of skipEvery postings: its last
			// document and where it starts.
			p := s.postings(t)
			it := postingIter{p: p}
			start := 0
			for block := it.next(buf[:0]); len(block) > 0; block = it.next(buf[:0]) {
				s.skip = append(s.skip, skipEntry{block[len(block)-1].doc, uint32(start)})
				start = len(p) - len(it.p)
			}
		}
		s.skipOff[t+1] = uint32(len(s.skip))
	}
}

func emptySegment() *segment {
	return &segment{termOff: []uint32{0}, postOff: []uint32{0}, docOff: []uint32{0}}
}

func (s *segment) terms() int { return len(s.df) }

func (s *segment) term(i int) string { return s.arena[s.termOff[i]:s.termOff[i+1]] }

// lookup returns the number of term t, or -1.
func (s *segment) lookup(t string) int {
	i := sort.Search(s.terms(), func(i int) bool { return s.term(i) >= t })
	if i < s.terms() && s.term(i) == t {
		return i
	}
	return -1
}

// postings returns the encoded postings of term i.
func (s *segment) postings(i int) []byte { return s.post[s.postOff[i]:s.postOff[i+1]] }

// postingIter decodes encoded postings, in order: each a document
// number, as the gap from the one before, and its term frequency, both
// unsigned varints. Every walk of a segment's postings goes through it,
// a block at a time (a call per posting would cost more than the rest
// of a search's work on it):
//
//	var buf [postingBlock]posting
//	it := postingIter{p: p}
//	for block := it.next(buf[:0]); len(block) > 0; block = it.next(buf[:0]) {
//		for _, e := range block { use(e.doc, e.tf) }
//	}
type postingIter struct {
	p []byte // the postings not decoded yet
	d uint32 // the document number decoded last
}

// postingBlock is how many postings a walk decodes at a time.
const postingBlock = 128

// next appends to buf the next postings, as many as its capacity holds,
// and returns it; empty past the last.
func (it *postingIter) next(buf []posting) []posting {
	p, d := it.p, it.d
	i := 0
	for i < len(p) && len(buf) < cap(buf) {
		var v, tf uint32
		v, i = uvarint(p, i)
		tf, i = uvarint(p, i)
		d += v
		buf = append(buf, posting{d, tf})
	}
	it.p, it.d = p[i:], d
	return buf
}

// eachDocTerm calls fn with each term number of document d.
func (s *segment) eachDocTerm(d uint32, fn func(tid uint32)) {
	p := s.docTerms[s.docOff[d]:s.docOff[d+1]]
	var t uint32
	for len(p) > 0 {
		v, k := binary.Uvarint(p)
		p = p[k:]
		t += uint32(v)
		fn(t)
	}
}

// docTermCount returns how many distinct terms document d has.
func (s *segment) docTermCount(d uint32) int {
	c := 0
	for _, b := range s.docTerms[s.docOff[d]:s.docOff[d+1]] {
		if b < 0x80 {
			c++
		}
	}
	return c
}

// compact merges the segment, the postings of the documents added since
// and the removals into a new segment of the live documents, numbered in
// their old order, with the matching document table. The caller holds
// wmu (and not mu): searches go on while the new segment is built.
func (x *Index) compact() {
	x.mu.RLock()
	c := x.compacted()
	x.mu.RUnlock()
	x.mu.Lock()
	x.seg = c.seg
	x.df = slices.Clone(c.seg.df)
	x.ids, x.lens, x.metas = c.ids, c.lens, c.metas
	for i, id := range c.ids {
		x.num[id] = uint32(i)
	}
	x.mem = map[string][]posting{}
	x.memTerms = nil
	x.dead = 0
	x.mu.Unlock()
}

// compaction is a compacted segment and its document table.
type compaction struct {
	seg   *segment
	ids   []string
	lens  []uint32
	metas []Meta
}

func (x *Index) compacted() compaction {
	old := x.seg
	nb := old.n
	renum := make([]uint32, len(x.ids))
	var ids []string
	var lens []uint32
	var metas []Meta
	for d := range x.ids {
		if x.ids[d] == "" {
			renum[d] = ^uint32(0)
			continue
		}
		renum[d] = uint32(len(ids))
		ids = append(ids, x.ids[d])
		lens = append(lens, x.lens[d])
		metas = append(metas, x.metas[d])
	}
	n := uint32(len(ids))
	// Distinct terms per new document, for the document-term table.
	count := make([]uint32, n+1)
	for d := range x.ids {
		nd := renum[d]
		if nd == ^uint32(0) {
			continue
		}
		if uint32(d) < nb {
			count[nd+1] = uint32(old.docTermCount(uint32(d)))
		} else {
			count[nd+1] = uint32(len(x.memTerms[uint32(d)-nb]))
		}
	}
	for i := 1; i <= int(n); i++ {
		count[i] += count[i-1]
	}
	flat := make([]uint32, count[n])
	fill := slices.Clone(count[:n])

	memKeys := make([]string, 0, len(x.mem))
	for t := range x.mem {
		memKeys = append(memKeys, t)
	}
	slices.Sort(memKeys)

	s := &segment{n: n}
	var arena strings.Builder
	s.termOff = []uint32{0}
	s.postOff = []uint32{0}
	var buf [2 * binary.MaxVarintLen32]byte
	var tid uint32
	emit := func(t string, bi int, mp []posting) {
		start := len(s.post)
		var prev uint32
		var df uint32
		add := func(d, tf uint32) {
			k := binary.PutUvarint(buf[:], uint64(d-prev))
			k += binary.PutUvarint(buf[k:], uint64(tf))
			s.post = append(s.post, buf[:k]...)
			prev = d
			df++
			flat[fill[d]] = tid
			fill[d]++
		}
		if bi >= 0 {
			p := old.postings(bi)
			var d uint32
			for len(p) > 0 {
				v, k := binary.Uvarint(p)
				p = p[k:]
				d += uint32(v)
				tf, k := binary.Uvarint(p)
				p = p[k:]
				if nd := renum[d]; nd != ^uint32(0) {
					add(nd, uint32(tf))
				}
			}
		}
		for _, e := range mp {
			add(renum[e.doc], e.tf)
		}
		if df == 0 {
			s.post = s.post[:start]
			return
		}
		arena.WriteString(t)
		s.termOff = append(s.termOff, uint32(arena.Len()))
		s.postOff = append(s.postOff, uint32(len(s.post)))
		s.df = append(s.df, df)
		tid++
	}
	bi, mi := 0, 0
	for bi < old.terms() || mi < len(memKeys) {
		switch {
		case mi == len(memKeys) || (bi < old.terms() && old.term(bi) < memKeys[mi]):
			if x.df[bi] > 0 {
				emit(old.term(bi), bi, nil)
			}
			bi++
		case bi == old.terms() || memKeys[mi] < old.term(bi):
			emit(memKeys[mi], -1, x.mem[memKeys[mi]])
			mi++
		default:
			emit(memKeys[mi], bi, x.mem[memKeys[mi]])
			bi++
			mi++
		}
	}
	s.arena = arena.String()
	s.docOff = make([]uint32, n+1)
	for d := uint32(0); d < n; d++ {
		var prev uint32
		for _, t := range flat[count[d]:count[d+1]] {
			k := binary.PutUvarint(buf[:], uint64(t-prev))
			s.docTerms = append(s.docTerms, buf[:k]...)
			prev = t
		}
		s.docOff[d+1] = uint32(len(s.docTerms))
	}
	s.post = slices.Clip(s.post)
	s.docTerms = slices.Clip(s.docTerms)
	s.buildSkips()
	return compaction{s, ids, lens, metas}
}
