package search

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"slices"
)

// snapshot is what a snapshot file holds: a compacted index (no removed
// documents, nothing outside the segment) and its tag labels.
//
// The file: "HSIX", the format version (uint32), the generation and the
// analyzer's fingerprint (uint64s), all little-endian; then, as unsigned
// varints and length-prefixed bytes: the labels; the documents (id,
// length, tag, zig-zag stamp); the terms (their sorted concatenation, then
// each one's length and document frequency, then the postings bytes and
// each term's share of them); the document-term bytes and each document's
// share; and last a CRC-32C of everything before it.
type snapshot struct {
	gen    uint64
	seg    *segment
	ids    []string
	lens   []uint32
	metas  []Meta
	labels []string
}

func (s *snapshot) encode() []byte {
	seg := s.seg
	p := make([]byte, 0, 64+len(seg.arena)+len(seg.post)+len(seg.docTerms)+8*seg.terms()+24*len(s.ids))
	p = append(p, snapMagic...)
	p = binary.LittleEndian.AppendUint32(p, diskVersion)
	p = binary.LittleEndian.AppendUint64(p, s.gen)
	p = binary.LittleEndian.AppendUint64(p, analyzerPrint())
	p = binary.AppendUvarint(p, uint64(len(s.labels)))
	for _, l := range s.labels {
		p = appendString(p, l)
	}
	p = binary.AppendUvarint(p, uint64(len(s.ids)))
	for i, id := range s.ids {
		p = appendString(p, id)
		p = binary.AppendUvarint(p, uint64(s.lens[i]))
		p = binary.AppendUvarint(p, uint64(s.metas[i].Tag))
		p = binary.AppendVarint(p, s.metas[i].Stamp)
	}
	p = appendString(p, seg.arena)
	p = binary.AppendUvarint(p, uint64(seg.terms()))
	for i := range seg.terms() {
		p = binary.AppendUvarint(p, uint64(seg.termOff[i+1]-seg.termOff[i]))
		p = binary.AppendUvarint(p, uint64(seg.df[i]))
		p = binary.AppendUvarint(p, uint64(seg.postOff[i+1]-seg.postOff[i]))
	}
	p = binary.AppendUvarint(p, uint64(len(seg.post)))
	p = append(p, seg.post...)
	for d := range seg.n {
		p = binary.AppendUvarint(p, uint64(seg.docOff[d+1]-seg.docOff[d]))
	}
	p = binary.AppendUvarint(p, uint64(len(seg.docTerms)))
	p = append(p, seg.docTerms...)
	return binary.LittleEndian.AppendUint32(p, crc32.Checksum(p, castagnoli))
}

// decodeSnapshot decodes and checks a snapshot file without its checksum:
// every offset in bounds, terms sorted, each term's postings increasing
// documents of positive frequency matching its document frequency, and
// each document's terms increasing and matching the postings' counts, so
// that searching, removing and compacting can trust it.
func decodeSnapshot(body []byte) (*snapshot, error) {
	if len(body) < 24 || string(body[:4]) != snapMagic {
		return nil, errors.New("not a search snapshot")
	}
	if v := binary.LittleEndian.Uint32(body[4:]); v != diskVersion {
		return nil, fmt.Errorf("search snapshot format %d, want %d", v, diskVersion)
	}
	if binary.LittleEndian.Uint64(body[16:]) != analyzerPrint() {
		return nil, errors.New("search snapshot made with another analyzer")
	}
	s := &snapshot{gen: binary.LittleEndian.Uint64(body[8:])}
	r := reader{b: body[24:]}
	nl := r.count(1)
	s.labels = make([]string, 0, nl)
	labels := make(map[string]bool, nl)
	for range nl {
		l := r.string()
		if labels[l] {
			r.fail("repeated label")
		}
		labels[l] = true
		s.labels = append(s.labels, l)
	}
	nd := r.count(4)
	s.ids = make([]string, 0, nd)
	s.lens = make([]uint32, 0, nd)
	s.metas = make([]Meta, 0, nd)
	seen := make(map[string]bool, nd)
	for range nd {
		id := r.string()
		if id == "" || seen[id] {
			r.fail("empty or repeated document id")
		}
		seen[id] = true
		s.ids = append(s.ids, id)
		s.lens = append(s.lens, r.uint32())
		s.metas = append(s.metas, Meta{Tag: r.uint32(), Stamp: r.varint()})
	}
	seg := &segment{n: uint32(len(s.ids))}
	s.seg = seg
	seg.arena = r.string()
	nt := r.count(3)
	seg.termOff = make([]uint32, 1, nt+1)
	seg.postOff = make([]uint32, 1, nt+1)
	seg.df = make([]uint32, 0, nt)
	var to, po uint64
	for range nt {
		// Each share is checked before it is added, so a sum cannot wrap
		// around (a share of 2^64-1 would bring it back to the start).
		dt := r.uvarint()
		seg.df = append(seg.df, r.uint32())
		dp := r.uvarint()
		if dt > uint64(len(seg.arena))-to || dp > 1<<32-1-po {
			r.fail("term offsets out of range")
		}
		to, po = to+dt, po+dp
		seg.termOff = append(seg.termOff, uint32(to))
		seg.postOff = append(seg.postOff, uint32(po))
	}
	seg.post = r.bytes()
	if r.err == nil && (po != uint64(len(seg.post)) || to != uint64(len(seg.arena))) {
		r.fail("postings or terms length mismatch")
	}
	seg.docOff = make([]uint32, 1, int(seg.n)+1)
	var do uint64
	for range seg.n {
		dd := r.uvarint()
		if dd > 1<<32-1-do {
			r.fail("document offsets out of range")
		}
		do += dd
		seg.docOff = append(seg.docOff, uint32(do))
	}
	seg.docTerms = r.bytes()
	if r.err == nil && (do != uint64(len(seg.docTerms)) || len(r.b) != 0) {
		r.fail("document terms length mismatch")
	}
	if r.err != nil {
		return nil, fmt.Errorf("search snapshot: %w", r.err)
	}
	if err := seg.check(); err != nil {
		return nil, fmt.Errorf("search snapshot: %w", err)
	}
	for d, n := range s.lens {
		if uint32(seg.docTermCount(uint32(d))) > n {
			return nil, errors.New("search snapshot: document shorter than its terms")
		}
	}
	seg.buildSkips()
	return s, nil
}

// check verifies a decoded segment's structure (see decodeSnapshot).
func (s *segment) check() error {
	for i := 1; i < s.terms(); i++ {
		if s.term(i-1) >= s.term(i) {
			return errors.New("terms not sorted")
		}
	}
	if s.terms() > 0 && s.term(0) == "" {
		return errors.New("empty term")
	}
	perTerm := make([]uint32, s.terms())
	for i := range s.terms() {
		r := reader{b: s.postings(i)}
		var d uint64
		var c uint32
		for len(r.b) > 0 {
			delta := r.uvarint()
			tf := r.uvarint()
			if r.err != nil || tf == 0 || tf > 1<<32-1 || (c > 0 && delta == 0) {
				return errors.New("bad postings")
			}
			d += delta
			if d >= uint64(s.n) {
				return errors.New("posting beyond the documents")
			}
			c++
		}
		if c != s.df[i] || c == 0 {
			return errors.New("postings do not match document frequency")
		}
	}
	for d := range s.n {
		r := reader{b: s.docTerms[s.docOff[d]:s.docOff[d+1]]}
		var t uint64
		first := true
		for len(r.b) > 0 {
			delta := r.uvarint()
			if r.err != nil || (!first && delta == 0) {
				return errors.New("bad document terms")
			}
			first = false
			t += delta
			if t >= uint64(s.terms()) {
				return errors.New("document term out of range")
			}
			perTerm[t]++
		}
	}
	if !slices.Equal(perTerm, s.df) {
		return errors.New("document terms do not match postings")
	}
	return nil
}

// install makes the index hold snapshot s.
func (x *Index) install(s *snapshot) {
	x.seg = s.seg
	x.df = slices.Clone(s.seg.df)
	x.ids, x.lens, x.metas = s.ids, s.lens, s.metas
	x.num = make(map[string]uint32, len(s.ids))
	x.live, x.total = len(s.ids), 0
	for i, id := range s.ids {
		x.num[id] = uint32(i)
		x.total += int64(s.lens[i])
	}
	for _, l := range s.labels {
		x.tag(l)
	}
	if x.disk != nil {
		x.disk.gen = s.gen
	}
}
