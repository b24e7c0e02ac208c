package store

import (
	"context"
	"database/sql"
	"sync"
	"time"
)

// Checkpoints. In WAL mode a commit appends to the -wal file, and a
// checkpoint copies those pages back into the database and syncs it.
// SQLite runs one by itself in the committing connection each time the
// WAL passes 1,000 pages: that commit, on the one write connection every
// turn queues for, then takes the checkpoint's writes and syncs (7 to 18
// ms against 15 µs for a plain commit), and every turn waiting to store its
// user message waits too. So the write connection leaves checkpoints to a
// connection of their own, which runs a passive checkpoint (one that never
// waits for, or blocks, readers and the writer) checkpointDelay after the
// first write since the last one, and again until one finds nothing new. The write connection keeps a far
// threshold (backstopPages) in case that one cannot keep up.
//
// Nothing about durability changes: a commit is in the WAL either way
// (synchronous=NORMAL: it survives the process being killed, and a power
// loss can take the last commits, as before), and a checkpoint only moves
// it into the main file.

// checkpointDelay gathers a second's writes into one checkpoint; a
// variable so tests can shorten it.
var checkpointDelay = time.Second

// backstopPages is the write connection's wal_autocheckpoint: far past
// SQLite's 1,000, reached only when the checkpointer falls behind (a
// reader holding an old snapshot for long keeps it from finishing).
const backstopPages = 8000

// checkpointer runs the background checkpoints of one store.
type checkpointer struct {
	db    *sql.DB       // its own connection
	nudge chan struct{} // a write happened; one token
	stop  chan struct{}
	done  chan struct{}
	once  sync.Once

	after func(walFrames, checkpointed int, err error) // checkpointHook's, for tests
}

// checkpointHook, when set (tests), is called after each background
// checkpoint of the stores opened meanwhile with SQLite's answer: the
// WAL's frames and how many of them are in the database.
var checkpointHook func(walFrames, checkpointed int, err error)

func newCheckpointer(db *sql.DB) *checkpointer {
	db.SetMaxOpenConns(1)
	c := &checkpointer{db: db, nudge: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{}),
		after: checkpointHook}
	go c.run()
	return c
}

// wrote tells the checkpointer that a write happened. It never blocks.
func (c *checkpointer) wrote() {
	select {
	case c.nudge <- struct{}{}:
	default:
	}
}

func (c *checkpointer) run() {
	defer close(c.done)
	lastFrames, lastDone := -1, -1
	for {
		select {
		case <-c.stop:
			return
		case <-c.nudge:
		}
		t := time.NewTimer(checkpointDelay)
		select {
		case <-c.stop:
			t.Stop()
			return
		case <-t.C:
		}
		frames, done, err := c.checkpoint(context.Background())
		if c.after != nil {
			c.after(frames, done, err)
		}
		// A write is noted when it begins: one that committed after this
		// checkpoint began is found by the next. So after a checkpoint
		// that found anything new, there is one more; one that found the
		// WAL as the last left it ends the round until the next write.
		settled := err == nil && frames == done && frames == lastFrames && done == lastDone
		lastFrames, lastDone = frames, done
		if !settled {
			c.wrote()
		}
	}
}

// checkpoint runs one passive checkpoint. A failure is not kept: the
// next write brings another try, and the backstop remains.
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
