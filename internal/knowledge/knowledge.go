// Package knowledge is the knowledge base: Markdown (.md) and plain-text
// (.txt) files in one folder of the data directory, at any depth
// (<data>/knowledge/recipes/红烧肉.md is the entry "recipes/红烧肉"), which
// the owner may also write and edit by hand. The files are searched with
// the shared index (internal/search), which handles Chinese.
//
// Every entry has a scope and a writer (internal/scope): the owner's
// global entries are the visible tree, and what plugins add lives in
// hidden folders of the same folder (see layout.go). A View decides what a
// caller sees and may change, by scope.View's rule alone: a plugin reads
// the owner's notes only if it declares scope.CapabilityShared.
//
// The folder is watched (fsnotify, a watch per subfolder), so a search
// neither lists nor stats it: a file written, edited or removed by hand
// is picked up by the watcher, not at the next search. Where watching
// fails (no inotify, the watch limit reached) the folder is rescanned
// periodically instead. At Open the index is reconciled with the folder
// in the background by modification time and size (Meta.Stamp), so a
// persisted index is not rebuilt; searches answer from what is ready.
package knowledge

import (
	"errors"
	"fmt"
	"hash/maphash"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hearth-agent/hearth/internal/scope"
	"github.com/hearth-agent/hearth/internal/search"
)

// ErrName is returned for a name that cannot be an entry's.
var ErrName = errors.New("invalid knowledge name")

// ErrNotFound is returned for an entry that does not exist, that the
// caller does not see, or whose file is not a regular file inside the
// folder (a symbolic link leading out of it).
var ErrNotFound = errors.New("no such knowledge entry")

// ErrDenied is returned for a change to an entry the caller sees but did
// not write.
var ErrDenied = errors.New("knowledge entry belongs to another writer")

// maxRead is the most of a file that is indexed or returned.
const maxRead = 4 << 20

// idPrefix starts the shared index's ids of knowledge entries: "k:" and
// the file's path relative to the folder, which names its writer and
// scope (layout.go).
const idPrefix = "k:"

// Options are Open's; nil means the defaults.
type Options struct {
	// Index is the shared index (internal/app's); nil gives the base an
	// index of its own.
	Index *search.Index
	// Rescan is how often the folder is rescanned where it cannot be
	// watched; default one minute.
	Rescan time.Duration
	// Logger logs what the watcher could not do; nil discards.
	Logger *slog.Logger

	noWatch bool // tests: act as if watching failed
}

// Base is the knowledge base in one folder. It implements
// scope.Knowledge.
type Base struct {
	dir   string
	root  *os.Root
	index *search.Index
	log   *slog.Logger

	mu      sync.RWMutex
	entries map[string]*entry // by file, relative and slash-separated
	tags    *search.Owners
	tick    chan struct{} // closed and replaced when the index changed

	stripes [64]sync.Mutex // per file: one update at a time
	seed    maphash.Seed

	ready    chan struct{} // closed when the start-up reconcile is done
	watching atomic.Bool
	stop     chan struct{}
	done     chan struct{}
	closeMu  sync.Once
}

var _ scope.Knowledge = (*Base)(nil)

// entry is what the base keeps about one file besides the index: enough
// to answer a search without reading it.
type entry struct {
	key   Key
	rel   string
	tag   uint32
	size  int64
	mod   time.Time
	title string // "" until known
}

// Open returns the knowledge base kept in dir, creating the folder, and
// starts watching it and reconciling the index with it in the
// background. Close stops that.
func Open(dir string, o *Options) (*Base, error) {
	var opts Options
	if o != nil {
		opts = *o
	}
	if opts.Index == nil {
		opts.Index = search.NewIndex()
	}
	if opts.Rescan <= 0 {
		opts.Rescan = time.Minute
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("creating the knowledge folder: %w", err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("opening the knowledge folder: %w", err)
	}
	k := &Base{
		dir: dir, root: root, index: opts.Index, log: opts.Logger,
		entries: map[string]*entry{}, tags: search.NewOwners(opts.Index, "k"),
		tick: make(chan struct{}), seed: maphash.MakeSeed(),
		ready: make(chan struct{}), stop: make(chan struct{}), done: make(chan struct{}),
	}
	go k.run(opts)
	return k, nil
}

// Dir returns the folder.
func (k *Base) Dir() string { return k.dir }

// Ready is closed once the index has caught up with the folder as it was
// at Open. Searches before that answer from what is indexed so far.
func (k *Base) Ready() <-chan struct{} { return k.ready }

// Watching reports whether the folder is watched; false (after Ready)
// means it is rescanned periodically instead.
func (k *Base) Watching() bool {
	<-k.ready
	return k.watching.Load()
}

// Close stops watching the folder and waits for the watcher to end. The
// base answers no more after it; the shared index keeps its entries.
func (k *Base) Close() error {
	k.closeMu.Do(func() { close(k.stop) })
	<-k.done
	return k.root.Close()
}

// changed wakes those waiting for the index to change.
func (k *Base) changed() {
	k.mu.Lock()
	close(k.tick)
	k.tick = make(chan struct{})
	k.mu.Unlock()
}

// next returns a channel closed at the next change of the index: take it
// before checking a condition, then wait on it.
func (k *Base) next() <-chan struct{} {
	k.mu.RLock()
	defer k.mu.RUnlock()
	return k.tick
}

// tag returns the index tag of entries of writer in sc.
func (k *Base) tag(sc scope.Scope, writer string) uint32 {
	return k.tags.Tag(search.Owner{Scope: string(sc), Writer: writer})
}

// visible reports whether v shows an entry of writer in sc: its own and,
// with AllWriters, anyone's, in the scopes it reads. The owner's notes
// are no exception: a plugin reads them only if it declares
// scope.CapabilityShared (the agent's own recall always does).
func visible(v scope.View, writer string, sc scope.Scope) bool {
	return v.Sees(writer, sc)
}

// stampOf is the Meta.Stamp of a file: its modification time and size.
func stampOf(mod time.Time, size int64) int64 {
	return mod.UnixNano()*1_000_003 + size
}
