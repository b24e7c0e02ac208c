package store

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

type checkpointResult struct {
	frames, done int
	err          error
}

// openCheckpointed opens a store whose background checkpoints follow
// every 5 writes and are reported on the channel.
func openCheckpointed(t *testing.T) (*Store, <-chan checkpointResult) {
	t.Helper()
	got := make(chan checkpointResult, 100)
	every, hook := checkpointEvery, checkpointHook
	checkpointEvery, checkpointHook = 5, func(frames, done int, err error) {
		select {
		case got <- checkpointResult{frames, done, err}:
		default:
		}
	}
	t.Cleanup(func() { checkpointEvery, checkpointHook = every, hook })
	s, err := OpenFile(context.Background(), filepath.Join(t.TempDir(), FileName))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, got
}

// The turn's writes leave checkpoints to the background: the write
// connection does not checkpoint at SQLite's 1,000 pages, and the
// checkpointer copies the frames into the database after writes.
func TestCheckpointsInTheBackground(t *testing.T) {
	s, got := openCheckpointed(t)
	ctx := context.Background()
	var pages int
	if err := s.w.QueryRowContext(ctx, "PRAGMA wal_autocheckpoint").Scan(&pages); err != nil {
		t.Fatal(err)
	}
	if pages != backstopPages {
		t.Fatalf("the write connection checkpoints at %d pages, want %d", pages, backstopPages)
	}
	sess, err := s.Session(ctx, "web", "c")
	if err != nil {
		t.Fatal(err)
	}
	for range 20 {
		if err := s.AppendMessages(ctx, sess.ID, []Message{{Role: "user", Content: strings.Repeat("words ", 1000)}}); err != nil {
			t.Fatal(err)
		}
	}
	// The checkpointer runs after writes, by itself...
	for r := range got {
		if r.err != nil {
			t.Fatal(r.err)
		}
		if r.frames > 0 {
			break
		}
	}
	// ...and a checkpoint with the writes done moves all of them.
	frames, done, err := s.ckpt.checkpoint(ctx)
	if err != nil || frames == 0 || done != frames {
		t.Fatalf("checkpoint: %d of %d frames, %v", done, frames, err)
	}
	// What the checkpoint moved is in the database file itself: a copy of
	// the file alone, without its WAL, has the messages.
	db, err := os.ReadFile(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	copyPath := filepath.Join(t.TempDir(), "copy.db")
	if err := os.WriteFile(copyPath, db, 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := OpenFile(ctx, copyPath)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	msgs, err := c.Messages(ctx, sess.ID, 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 20 {
		t.Fatalf("the database file holds %d messages, want 20", len(msgs))
	}
}

// Closing the store stops its checkpointer, also with a checkpoint due.
func TestCloseStopsTheCheckpointer(t *testing.T) {
	s, err := OpenFile(context.Background(), filepath.Join(t.TempDir(), FileName))
	if err != nil {
		t.Fatal(err)
	}
	for range checkpointEvery {
		s.ckpt.wrote()
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	<-s.ckpt.done
}

// BenchmarkAppendTail is the latency of storing one message, as a turn
// does, with the checkpoints in the background (as the store runs) and in
// the committing connection (SQLite's default, at 1,000 pages): p50, p99,
// p99.9 and the worst of b.N writes. Run it with -benchtime 3000x or more,
// so that checkpoints happen.
func BenchmarkAppendTail(b *testing.B) {
	for _, bc := range []struct {
		name     string
		inCommit bool
	}{{"background", false}, {"in-commit", true}} {
		b.Run(bc.name, func(b *testing.B) {
			every := checkpointEvery
			defer func() { checkpointEvery = every }()
			if bc.inCommit {
				checkpointEvery = 1 << 62 // the checkpointer never gets to run
			}
			ctx := context.Background()
			s, err := OpenFile(ctx, filepath.Join(b.TempDir(), FileName))
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			if bc.inCommit {
				if _, err := s.w.ExecContext(ctx, "PRAGMA wal_autocheckpoint=1000"); err != nil {
					b.Fatal(err)
				}
			}
			sess, err := s.Session(ctx, "web", "bench")
			if err != nil {
				b.Fatal(err)
			}
			msg := []Message{{Role: "user", Content: strings.Repeat("hello world ", 40)}}
			var took []time.Duration
			for b.Loop() {
				start := time.Now()
				if err := s.AppendMessages(ctx, sess.ID, msg); err != nil {
					b.Fatal(err)
				}
				took = append(took, time.Since(start))
			}
			slices.Sort(took)
			at := func(p float64) float64 {
				return float64(took[min(len(took)-1, int(p*float64(len(took))))].Microseconds())
			}
			b.ReportMetric(at(0.5), "p50-µs")
			b.ReportMetric(at(0.99), "p99-µs")
			b.ReportMetric(at(0.999), "p99.9-µs")
			b.ReportMetric(float64(took[len(took)-1].Microseconds()), "max-µs")
		})
	}
}
