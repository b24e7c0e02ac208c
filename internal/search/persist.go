package search

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/hearth-agent/hearth/internal/atomicfile"
	"github.com/hearth-agent/hearth/internal/datadir"
)

// An index opened on a folder keeps two files there: a snapshot
// (index.snap), the whole index as of its last compaction, written to a
// temporary file and renamed over the old one; and a log (index.log) of
// the changes since, one checksummed batch per Flush. Both name the
// snapshot's generation, so a log left from before a newer snapshot is
// ignored. A torn or corrupt batch at the log's end (a crash during Flush)
// is cut off: the index is as of the last whole Flush. Flush appends a
// batch while the log is small beside the snapshot; past that it compacts
// the index and writes a new snapshot and an empty log.
const (
	snapName = "index.snap"
	logName  = "index.log"
	lockName = "index.lock"

	snapMagic   = "HSIX"
	logMagic    = "HSLG"
	diskVersion = 1
)

// minLog is the log size under which Flush appends to the log whatever
// the snapshot's size; past it, once the log is a quarter of the
// snapshot, Flush writes a snapshot.
var minLog int64 = 1 << 20

// maxPending is the most unflushed changes kept as log operations; past
// it they are dropped and the next Flush writes a snapshot instead (a
// bulk load would otherwise hold its whole text twice).
var maxPending = 32 << 20

// ErrRebuild is wrapped by Open's error when the files in the folder were
// corrupt or written for another analyzer (Tokens) or format: they are set
// aside (renamed *.bad) and Open returns an empty index beside the error,
// for its owners to fill again from their storage.
var ErrRebuild = errors.New("search index must be rebuilt")

// ErrInUse is wrapped by Open's error when another Open, in this process
// or another, has the folder: one writer at a time, or each would
// overwrite the other's snapshot and log.
var ErrInUse = errors.New("search index is open for writing elsewhere")

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// store is the on-disk side of an index.
type store struct {
	dir      string
	gen      uint64
	log      *os.File
	logSize  int64
	snapSize int64
	pending  []byte // changes since the last Flush, as log operations
	overrun  bool   // pending grew past maxPending and was dropped
	resnap   bool   // the next Flush writes a snapshot
	flushMu  sync.Mutex
	lock     *os.File // index.lock, held from Open to Close
}

// Log operations.
const (
	opTag byte = iota + 1
	opPut
	opRemove
)

// analyzerPrint fingerprints Tokens, so that an index written with other
// terms is rebuilt rather than searched with mismatched ones.
func analyzerPrint() uint64 {
	h := fnv.New64a()
	for _, t := range Tokens("Hearth 记忆 天气预报：明天北京晴 iPhone15 v1.2.3 C++ コーヒー ＡＰＩ Straße ΟΔΟΣ café ① ㎏ x² ❤️ हिन्दी ภาษาไทย running flies") {
		h.Write([]byte(t))
		h.Write([]byte{0})
	}
	return h.Sum64()
}

// Open opens the index kept in folder dir, creating the folder and an
// empty index if there is none. Changes reach the disk on Flush and Close.
// If the files cannot be used, Open returns an empty index and an error
// wrapping ErrRebuild. One Open at a time writes a folder: Open holds an
// exclusive lock of it (index.lock, see datadir.Exclusive) until Close, and
// returns an error wrapping ErrInUse while another process, or another
// Open in this one, holds it; Load reads the folder meanwhile.
func Open(dir string) (*Index, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("opening search index: %w", err)
	}
	lock, held, err := datadir.Exclusive(filepath.Join(dir, lockName))
	if err != nil {
		return nil, fmt.Errorf("locking search index: %w", err)
	}
	if !held {
		return nil, fmt.Errorf("%w: %s", ErrInUse, dir)
	}
	x, err := open(dir, lock)
	if x == nil {
		lock.Close()
	}
	return x, err
}

// open is Open once the folder is locked; the lock goes with the index
// it returns.
func open(dir string, lock *os.File) (*Index, error) {
	for _, name := range []string{snapName, logName} {
		for _, tmp := range atomicfile.Stale(filepath.Join(dir, name)) {
			os.Remove(tmp) // a write a crash cut short
		}
	}
	x := NewIndex()
	x.disk = &store{dir: dir, lock: lock}
	data, err := os.ReadFile(filepath.Join(dir, snapName))
	switch {
	case errors.Is(err, os.ErrNotExist):
		x.disk.resnap = true
		if err := x.Flush(); err != nil {
			return nil, err
		}
		return x, nil
	case err != nil:
		return nil, fmt.Errorf("opening search index: %w", err)
	}
	if err := x.loadSnapshot(data); err != nil {
		return x.rebuild(err)
	}
	x.disk.snapSize = int64(len(data))
	if err := x.replayLog(); err != nil {
		return x.rebuild(err)
	}
	return x, nil
}

// rebuild sets the folder's files aside after err and starts an empty
// index there.
func (x *Index) rebuild(cause error) (*Index, error) {
	dir := x.disk.dir
	if x.disk.log != nil {
		x.disk.log.Close()
	}
	for _, name := range []string{snapName, logName} {
		p := filepath.Join(dir, name)
		if err := os.Rename(p, p+".bad"); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("setting aside %s: %w", p, err)
		}
	}
	y := NewIndex()
	y.disk = &store{dir: dir, resnap: true, lock: x.disk.lock}
	if err := y.Flush(); err != nil {
		return nil, err
	}
	return y, fmt.Errorf("search index in %s: %w: %w", dir, ErrRebuild, cause)
}

func (x *Index) loadSnapshot(data []byte) error {
	if len(data) < 4 {
		return errors.New("snapshot too short")
	}
	body, sum := data[:len(data)-4], binary.LittleEndian.Uint32(data[len(data)-4:])
	if crc32.Checksum(body, castagnoli) != sum {
		return errors.New("snapshot checksum mismatch")
	}
	s, err := decodeSnapshot(body)
	if err != nil {
		return err
	}
	x.install(s)
	return nil
}

// replayLog applies the log's whole batches, cuts off a torn end, and
// keeps the log open for appending.
func (x *Index) replayLog() error {
	p := filepath.Join(x.disk.dir, logName)
	f, err := os.OpenFile(p, os.O_RDWR, 0)
	if errors.Is(err, os.ErrNotExist) {
		return x.newLog()
	}
	if err != nil {
		return fmt.Errorf("opening search log: %w", err)
	}
	data, err := io.ReadAll(f)
	if err != nil {
		f.Close()
		return fmt.Errorf("reading search log: %w", err)
	}
	good, err := x.applyLog(data, x.disk.gen)
	if err != nil {
		f.Close()
		return err
	}
	if good == 0 {
		// Left from before the snapshot (or torn while being created):
		// the snapshot holds all it had.
		f.Close()
		return x.newLog()
	}
	if good < len(data) {
		if err := f.Truncate(int64(good)); err != nil {
			f.Close()
			return fmt.Errorf("cutting torn search log: %w", err)
		}
	}
	if _, err := f.Seek(int64(good), io.SeekStart); err != nil {
		f.Close()
		return fmt.Errorf("seeking search log: %w", err)
	}
	x.disk.log, x.disk.logSize = f, int64(good)
	x.maybeCompact()
	return nil
}

// applyLog applies the whole batches of log data written for snapshot
// generation gen and returns how many bytes they and the header take: 0
// for a log of another generation (or no header), which holds nothing
// the snapshot lacks.
func (x *Index) applyLog(data []byte, gen uint64) (int, error) {
	if len(data) < 16 || string(data[:4]) != logMagic || binary.LittleEndian.Uint32(data[4:]) != diskVersion ||
		binary.LittleEndian.Uint64(data[8:]) != gen {
		return 0, nil
	}
	good := 16
	for rest := data[16:]; len(rest) >= 8; {
		n := binary.LittleEndian.Uint32(rest)
		if uint64(n) > uint64(len(rest)-8) {
			break
		}
		batch := rest[8 : 8+n]
		if crc32.Checksum(batch, castagnoli) != binary.LittleEndian.Uint32(rest[4:]) {
			break
		}
		if err := x.apply(batch); err != nil {
			return 0, err
		}
		good += 8 + int(n)
		rest = rest[8+n:]
	}
	return good, nil
}

// Load reads the index kept in folder dir without changing its files,
// for a process that does not own them (the owner, which opened them with
// Open, writes them meanwhile). Its changes stay in memory: Flush and
// Close do nothing. No index there gives an empty one; files that cannot
// be used give an empty one and an error wrapping ErrRebuild. What the
// owner has not flushed yet is missing: owners catch up by their stamps.
func Load(dir string) (*Index, error) {
	data, err := os.ReadFile(filepath.Join(dir, snapName))
	if errors.Is(err, os.ErrNotExist) {
		return NewIndex(), nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading search index: %w", err)
	}
	x := NewIndex()
	x.disk = &store{dir: dir} // for the snapshot's generation
	err = x.loadSnapshot(data)
	gen := x.disk.gen
	x.disk = nil
	if err == nil {
		var log []byte
		if log, err = os.ReadFile(filepath.Join(dir, logName)); errors.Is(err, os.ErrNotExist) {
			err = nil
		} else if err == nil {
			_, err = x.applyLog(log, gen)
		}
	}
	if err != nil {
		return NewIndex(), fmt.Errorf("search index in %s: %w: %w", dir, ErrRebuild, err)
	}
	return x, nil
}

// newLog replaces the log with an empty one for the current generation.
func (x *Index) newLog() error {
	d := x.disk
	if d.log != nil {
		d.log.Close()
		d.log = nil
	}
	var hdr [16]byte
	copy(hdr[:], logMagic)
	binary.LittleEndian.PutUint32(hdr[4:], diskVersion)
	binary.LittleEndian.PutUint64(hdr[8:], d.gen)
	p := filepath.Join(d.dir, logName)
	if err := atomicfile.WriteFile(p, hdr[:]); err != nil {
		return err
	}
	f, err := os.OpenFile(p, os.O_RDWR|os.O_APPEND, 0)
	if err != nil {
		return fmt.Errorf("opening search log: %w", err)
	}
	d.log, d.logSize = f, int64(len(hdr))
	return nil
}

// Flush writes the changes since the last Flush to the index's folder:
// a log batch while the log is small, else a new snapshot. It does nothing
// for an index made by NewIndex.
func (x *Index) Flush() error {
	d := x.disk
	if d == nil {
		return nil
	}
	d.flushMu.Lock()
	defer d.flushMu.Unlock()
	x.wmu.Lock()
	x.mu.Lock()
	pending, overrun := d.pending, d.overrun
	d.pending, d.overrun = nil, false
	x.mu.Unlock()
	limit := max(minLog, d.snapSize/4)
	if !d.resnap && !overrun && d.log != nil && d.logSize+int64(len(pending)) <= limit {
		x.wmu.Unlock()
		if len(pending) == 0 {
			return nil
		}
		return x.appendLog(pending)
	}
	// A snapshot: compact, copy what later changes would modify in place,
	// and write it without holding up searches and changes.
	if len(x.memTerms) > 0 || x.dead > 0 {
		x.compact()
	}
	img := snapshot{
		gen:    d.gen + 1,
		seg:    x.seg,
		ids:    slices.Clone(x.ids),
		lens:   slices.Clone(x.lens),
		metas:  slices.Clone(x.metas),
		labels: slices.Clone(x.labels),
	}
	x.wmu.Unlock()
	data := img.encode()
	if err := atomicfile.WriteFile(filepath.Join(d.dir, snapName), data); err != nil {
		x.mu.Lock()
		d.resnap = true // the changes are in memory; the next Flush retries
		d.pending = nil
		x.mu.Unlock()
		return err
	}
	d.gen, d.snapSize, d.resnap = img.gen, int64(len(data)), false
	// Changes made while writing are in pending, for the new log.
	return x.newLog()
}

// appendLog writes one batch of pending changes to the log.
func (x *Index) appendLog(pending []byte) error {
	d := x.disk
	rec := make([]byte, 8, 8+len(pending))
	binary.LittleEndian.PutUint32(rec, uint32(len(pending)))
	binary.LittleEndian.PutUint32(rec[4:], crc32.Checksum(pending, castagnoli))
	rec = append(rec, pending...)
	_, err := d.log.Write(rec)
	if err == nil {
		err = d.log.Sync()
	}
	if err != nil {
		// Cut off what may have reached the file; if even that fails, the
		// next Flush writes a snapshot (replay stops at a torn batch).
		x.mu.Lock()
		if d.log.Truncate(d.logSize) != nil {
			d.resnap = true
		} else if _, serr := d.log.Seek(d.logSize, io.SeekStart); serr != nil {
			d.resnap = true
		}
		d.pending = append(pending, d.pending...)
		x.mu.Unlock()
		return fmt.Errorf("writing search log: %w", err)
	}
	d.logSize += int64(len(rec))
	return nil
}

// Close flushes the index and closes its files. The index must not be
// used after.
func (x *Index) Close() error {
	if x.disk == nil {
		return nil
	}
	err := x.Flush()
	x.disk.flushMu.Lock()
	defer x.disk.flushMu.Unlock()
	if x.disk.log != nil {
		if cerr := x.disk.log.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("closing search log: %w", cerr)
		}
		x.disk.log = nil
	}
	if x.disk.lock != nil {
		x.disk.lock.Close() // releases the folder
		x.disk.lock = nil
	}
	return err
}

// trim drops the pending operations once they are too many to keep.
func (d *store) trim() {
	if len(d.pending) > maxPending {
		d.pending, d.overrun = nil, true
	}
}

// The log* methods add one change to the pending batch; once the batch
// overran (trim), the next Flush writes a snapshot, so they add nothing.

func (d *store) logTag(label string) {
	if d.overrun {
		return
	}
	d.pending = append(d.pending, opTag)
	d.pending = appendString(d.pending, label)
}

func (d *store) logRemove(id string) {
	if d.overrun {
		return
	}
	d.pending = append(d.pending, opRemove)
	d.pending = appendString(d.pending, id)
}

func (d *store) logPut(id string, length uint32, m Meta, tf map[string]uint32) {
	if d.overrun {
		return
	}
	p := append(d.pending, opPut)
	p = appendString(p, id)
	p = binary.AppendUvarint(p, uint64(length))
	p = binary.AppendUvarint(p, uint64(m.Tag))
	p = binary.AppendVarint(p, m.Stamp)
	p = binary.AppendUvarint(p, uint64(len(tf)))
	for t, f := range tf {
		p = appendString(p, t)
		p = binary.AppendUvarint(p, uint64(f))
	}
	d.pending = p
	d.trim()
}

func appendString(p []byte, s string) []byte {
	p = binary.AppendUvarint(p, uint64(len(s)))
	return append(p, s...)
}

// apply replays one log batch.
func (x *Index) apply(batch []byte) error {
	r := reader{b: batch}
	for r.err == nil && len(r.b) > 0 {
		switch op := r.byte(); op {
		case opTag:
			x.tag(r.string())
		case opRemove:
			x.remove(r.string())
		case opPut:
			id := r.string()
			length := r.uint32()
			m := Meta{Tag: r.uint32(), Stamp: r.varint()}
			n := r.count(2)
			tf := make(map[string]uint32, n)
			for range n {
				t := r.string()
				f := r.uint32()
				if t == "" || f == 0 {
					r.fail("bad term")
				}
				tf[t] = f
			}
			if uint32(len(tf)) > length {
				r.fail("document shorter than its terms")
			}
			if r.err == nil {
				x.put(id, length, m, tf)
			}
		default:
			r.fail(fmt.Sprintf("unknown operation %d", op))
		}
	}
	if r.err != nil {
		return fmt.Errorf("search log: %w", r.err)
	}
	return nil
}

// reader decodes the files' varints and strings, remembering the first
// error instead of panicking on short or malformed input.
type reader struct {
	b   []byte
	err error
}

func (r *reader) fail(msg string) {
	if r.err == nil {
		r.err = errors.New(msg)
	}
	r.b = nil
}

func (r *reader) byte() byte {
	if len(r.b) == 0 {
		r.fail("truncated")
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *reader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail("bad varint")
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) varint() int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.fail("bad varint")
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) uint32() uint32 {
	v := r.uvarint()
	if v > 1<<32-1 {
		r.fail("number too large")
		return 0
	}
	return uint32(v)
}

// count reads a number of items each at least min bytes long, refusing
// counts the rest of the input cannot hold.
func (r *reader) count(min int) int {
	v := r.uvarint()
	if v > uint64(len(r.b)/min) {
		r.fail("count too large")
		return 0
	}
	return int(v)
}

func (r *reader) bytes() []byte {
	n := r.uvarint()
	if n > uint64(len(r.b)) {
		r.fail("truncated")
		return nil
	}
	p := r.b[:n:n]
	r.b = r.b[n:]
	return p
}

func (r *reader) string() string { return string(r.bytes()) }
