package store

import (
	"context"
	"database/sql"
	"testing"
	"time"
)

// Every read connection has the smaller page cache; the write connection
// keeps SQLite's default.
func TestReadPoolCacheSize(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var held []*sql.Conn
	defer func() {
		for _, c := range held {
			c.Close()
		}
	}()
	for i := range readConns { // each held, so the next is another connection
		c, err := s.db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, c)
		var kib int
		if err := c.QueryRowContext(ctx, "PRAGMA cache_size").Scan(&kib); err != nil {
			t.Fatal(err)
		}
		if kib != -readCacheKiB {
			t.Errorf("read connection %d: cache_size %d, want %d", i, kib, -readCacheKiB)
		}
	}
	var kib int
	if err := s.w.QueryRowContext(ctx, "PRAGMA cache_size").Scan(&kib); err != nil {
		t.Fatal(err)
	}
	if kib != -2000 {
		t.Errorf("write connection: cache_size %d, want SQLite's default -2000", kib)
	}
}

// Connections left unused past connMaxIdle are closed, and those opened
// after them are as the first were: the read pool's read-only with its
// smaller cache, the write pool's with the statements kept.
func TestIdleConnectionsClosed(t *testing.T) {
	defer func(d time.Duration) { connMaxIdle = d }(connMaxIdle)
	connMaxIdle = time.Millisecond
	ctx := context.Background()
	s, err := Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	sess, err := s.Session(ctx, "web", "1")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AppendMessages(ctx, sess.ID, []Message{{Role: "user", Content: "one"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.RecentMessages(ctx, sess.ID, 10); err != nil {
		t.Fatal(err)
	}
	// database/sql closes them within a second of their idle time.
	for s.db.Stats().OpenConnections+s.w.Stats().OpenConnections > 0 {
		time.Sleep(10 * time.Millisecond)
	}
	if err := s.AppendMessages(ctx, sess.ID, []Message{{Role: "assistant", Content: "two"}}); err != nil {
		t.Fatalf("writing on a new connection: %v", err)
	}
	got, err := s.RecentMessages(ctx, sess.ID, 10)
	if err != nil || len(got) != 2 {
		t.Fatalf("reading on a new connection: %v, %d messages, want 2", err, len(got))
	}
	var kib int
	if err := s.db.QueryRowContext(ctx, "PRAGMA cache_size").Scan(&kib); err != nil || kib != -readCacheKiB {
		t.Errorf("new read connection: cache_size %d (%v), want %d", kib, err, -readCacheKiB)
	}
	if _, err := s.db.ExecContext(ctx, "DELETE FROM messages"); err == nil {
		t.Error("a new read connection wrote")
	}
}
