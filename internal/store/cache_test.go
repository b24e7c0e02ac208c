package store

import (
	"context"
	"database/sql"
	"testing"
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
