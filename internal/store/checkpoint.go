package store

import (
	"context"
	"database/sql"
	"sync"
	"sync/atomic"
)

// Checkpoints. In WAL mode a commit appends to the -wal file, and a
// checkpoint copies those pages back into the database and syncs it.
// SQLite runs one by itself in the committing connection each time the
// WAL passes 1,000 pages: that commit, on the one write connection every
// turn queues for, then takes the checkpoint's writes and syncs, and every
// turn waiting to store its user message waits too. So the write
// connection leaves checkpoints to a connection of their own, which runs a
// passive checkpoint (one that never waits for, or blocks, readers and the
// writer) after every checkpointEvery writes, about as often as SQLite
// would (a turn's write is a few pages). The write connection keeps a far
// threshold (backstopPages) in case that one cannot keep up.
//
// Nothing about durability changes: a commit is in the WAL either way
// (synchronous=NORMAL: it survives the process being killed, and a power
// loss can take the last commits, as before), and a checkpoint only moves
// it into the main file; closing the store checkpoints what is left.

// checkpointEvery is how many writes (statements or transactions on the
// write connection) a background checkpoint follows; a variable for tests.
var checkpointEvery int64 = 256

// backstopPages is the write connection's wal_autocheckpoint: far past
// SQLite's 1,000, reached only when the checkpointer falls behind (a
// reader holding an old snapshot for long keeps it from finishing).
const backstopPages = 8000

// checkpointer runs the background checkpoints of one store.
type checkpointer struct {
	db     *sql.DB // its own connection
	every  int64
	writes atomic.Int64
	due    chan struct{} // a checkpoint is due; one token
	stop   chan struct{}
	done   chan struct{}
	once   sync.Once

	after func(walFrames, checkpointed int, err error) // checkpointHook's, for tests
}

// checkpointHook, when set (tests), is called after each background
// checkpoint of the stores opened meanwhile with SQLite's answer: the
// WAL's frames and how many of them are in the database.
var checkpointHook func(walFrames, checkpointed int, err error)

func newCheckpointer(db *sql.DB) *checkpointer {
	db.SetMaxOpenConns(1)
	c := &checkpointer{db: db, every: max(checkpointEvery, 1), due: make(chan struct{}, 1),
		stop: make(chan struct{}), done: make(chan struct{}), after: checkpointHook}
	go c.run()
	return c
}

// wrote counts a write, and makes a checkpoint due every c.every. It
// never blocks.
func (c *checkpointer) wrote() {
	if c.writes.Add(1)%c.every != 0 {
		return
	}
	select {
	case c.due <- struct{}{}:
	default: // one is due already
	}
}

func (c *checkpointer) run() {
	defer close(c.done)
	for {
		select {
		case <-c.stop:
			return
		case <-c.due:
		}
		frames, done, err := c.checkpoint(context.Background())
		if c.after != nil {
			c.after(frames, done, err)
		}
	}
}

// checkpoint runs one passive checkpoint. A failure is not kept: the next
// is due after as many writes again, and the backstop remains.
func (c *checkpointer) checkpoint(ctx context.Context) (walFrames, checkpointed int, err error) {
	var busy int
	err = c.db.QueryRowContext(ctx, "PRAGMA wal_checkpoint(PASSIVE)").Scan(&busy, &walFrames, &checkpointed)
	return walFrames, checkpointed, err
}

// close stops the checkpointer and closes its connection.
func (c *checkpointer) close() error {
	c.once.Do(func() { close(c.stop) })
	<-c.done
	return c.db.Close()
}
