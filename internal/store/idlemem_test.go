package store

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// BenchmarkIdleMemory measures what a burst of reads and writes leaves
// resident once the store is idle again: a database of 3,000 sessions of
// ten 1 KB messages (35 MB; 300 sessions without HEARTH_BENCH_FULL=1, as
// CI runs it once), then each session read and written by eight
// goroutines at once, which uses every read connection. It reports the
// process's anonymous memory (RssAnon, Linux only) after the writes,
// after the burst, and after the pools' idle connections were closed
// (connMaxIdle, shortened to a second here).
func BenchmarkIdleMemory(b *testing.B) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		b.Skip("reads RssAnon from /proc")
	}
	defer func(d time.Duration) { connMaxIdle = d }(connMaxIdle)
	connMaxIdle = time.Second
	sessions := 300
	if os.Getenv("HEARTH_BENCH_FULL") == "1" {
		sessions = 3000
	}
	for range b.N {
		ctx := context.Background()
		s, err := OpenFile(ctx, filepath.Join(b.TempDir(), "x.db"))
		if err != nil {
			b.Fatal(err)
		}
		body := strings.Repeat("x", 1000)
		var ids []int64
		for i := range sessions {
			se, err := s.Session(ctx, "c", strconv.Itoa(i))
			if err != nil {
				b.Fatal(err)
			}
			ids = append(ids, se.ID)
			msgs := make([]Message, 10)
			for j := range msgs {
				msgs[j] = Message{Role: "user", Content: body}
			}
			if err := s.AppendMessages(ctx, se.ID, msgs); err != nil {
				b.Fatal(err)
			}
		}
		written := anonKiB(b)
		var wg sync.WaitGroup
		for g := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := g; i < len(ids); i += 8 {
					if _, err := s.RecentMessages(ctx, ids[i], 50); err != nil {
						b.Error(err)
					}
					if err := s.AppendMessages(ctx, ids[i], []Message{{Role: "assistant", Content: body}}); err != nil {
						b.Error(err)
					}
				}
			}()
		}
		wg.Wait()
		burst := anonKiB(b)
		// database/sql closes them within a second of connMaxIdle; the
		// deadline only keeps a regression from hanging the benchmark.
		for deadline := time.Now().Add(10 * time.Second); s.db.Stats().OpenConnections+s.w.Stats().OpenConnections > 0 && time.Now().Before(deadline); {
			time.Sleep(10 * time.Millisecond)
		}
		b.ReportMetric(float64(written)/1024, "anon-written-MiB")
		b.ReportMetric(float64(burst)/1024, "anon-burst-MiB")
		b.ReportMetric(float64(anonKiB(b))/1024, "anon-idle-MiB")
		s.Close()
	}
	b.ReportMetric(0, "ns/op")
}

// anonKiB is the process's RssAnon.
func anonKiB(tb testing.TB) int {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		tb.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "RssAnon:"); ok {
			n, err := strconv.Atoi(strings.Fields(v)[0])
			if err != nil {
				tb.Fatal(err)
			}
			return n
		}
	}
	tb.Fatal(fmt.Errorf("no RssAnon in /proc/self/status"))
	return 0
}
