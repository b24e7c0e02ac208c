package search

import (
	"encoding/binary"
	"hash/crc32"
	"os"
	"path/filepath"
	"testing"
)

// Reviewer A (issue 13): a snapshot whose running offsets wrap around
// 2^64 (a term's length of 2^64-1 brings the sum back to 0) passes the
// "within the arena" check at every step, so the terms' offsets go
// backwards and the structure check slices out of range: a corrupted
// file (with its checksum recomputed, as anyone writing it can) must be
// refused, not crash Hearth at start. The fuzzer does not reach it: it
// needs a valid checksum and a 10-byte varint.
func TestSnapshotOffsetsWrapping(t *testing.T) {
	p := []byte(snapMagic)
	p = binary.LittleEndian.AppendUint32(p, diskVersion)
	p = binary.LittleEndian.AppendUint64(p, 1)
	p = binary.LittleEndian.AppendUint64(p, analyzerPrint())
	p = binary.AppendUvarint(p, 0) // no labels
	p = binary.AppendUvarint(p, 1) // one document
	p = appendString(p, "a")
	p = binary.AppendUvarint(p, 5) // length
	p = binary.AppendUvarint(p, 0) // tag
	p = binary.AppendVarint(p, 0)  // stamp
	p = appendString(p, "ab")      // the terms' arena
	p = binary.AppendUvarint(p, 3) // three terms
	for _, dlen := range []uint64{1, 1<<64 - 1, 2} {
		p = binary.AppendUvarint(p, dlen) // length: 0..1, then back to 0, then 0..2
		p = binary.AppendUvarint(p, 1)    // document frequency
		p = binary.AppendUvarint(p, 2)    // postings bytes
	}
	p = appendString(p, "\x00\x01\x00\x01\x00\x01")
	p = binary.AppendUvarint(p, 3) // document 0's share of the document terms
	p = appendString(p, "\x00\x01\x01")
	func() {
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("decodeSnapshot panics: %v", r)
			}
		}()
		if _, err := decodeSnapshot(p); err == nil {
			t.Errorf("decodeSnapshot accepts offsets going backwards")
		}
	}()
	// As a file: Open must start (rebuilding), not crash.
	dir := t.TempDir()
	file := binary.LittleEndian.AppendUint32(p, crc32.Checksum(p, castagnoli))
	if err := os.WriteFile(filepath.Join(dir, snapName), file, 0o600); err != nil {
		t.Fatal(err)
	}
	func() {
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("Open panics on a crafted snapshot: %v", r)
			}
		}()
		x, _ := Open(dir)
		if x != nil {
			x.Close()
		}
	}()
}
