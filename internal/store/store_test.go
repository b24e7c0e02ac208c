package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"testing"
	"time"
)

func TestHistorySurvivesReopen(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	sess, err := s.Session(ctx, "terminal", "")
	if err != nil {
		t.Fatal(err)
	}
	calls := `[{"id":"c1","type":"function","function":{"name":"time__now","arguments":"{}"}}]`
	msgs := []Message{
		{Role: "user", Content: "现在几点？"},
		{Role: "assistant", Reasoning: "查时间", ToolCalls: []byte(calls)},
		{Role: "tool", ToolCallID: "c1", Content: `{"time":"12:00"}`},
		{Role: "assistant", Content: "中午十二点。"},
	}
	if err := s.AppendMessages(ctx, sess.ID, msgs); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s, err = Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	again, err := s.Session(ctx, "terminal", "")
	if err != nil || again.ID != sess.ID {
		t.Fatalf("session %+v, %v; want id %d", again, err, sess.ID)
	}
	got, err := s.RecentMessages(ctx, sess.ID, 100)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, msgs) || string(got[1].ToolCalls) != calls {
		t.Fatalf("history %+v, want %+v", got, msgs)
	}
	// A window that would start inside a tool exchange starts at the next user message.
	got, _ = s.RecentMessages(ctx, sess.ID, 3)
	if len(got) != 0 {
		t.Fatalf("window of 3 = %+v, want empty (no user message in it)", got)
	}
	if v, _ := s.SchemaVersion(ctx); v != len(migrations) {
		t.Fatalf("schema version %d", v)
	}
	if _, err := os.Stat(filepath.Join(dir, FileName+"-wal")); err != nil {
		t.Fatalf("no WAL file: %v", err)
	}
}

func TestFutureSchemaRefused(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.w.Exec(`INSERT INTO schema_migrations(version, name) VALUES (999, 'future')`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := Open(ctx, dir); !errors.Is(err, ErrFutureSchema) {
		t.Fatalf("err = %v, want ErrFutureSchema", err)
	}
}

func TestSessionsAreSeparate(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	a, _ := s.Session(ctx, "qq", "group1")
	b, _ := s.Session(ctx, "qq", "group2")
	if a.ID == b.ID {
		t.Fatal("two chats share a session")
	}
	_ = s.AppendMessages(ctx, a.ID, []Message{{Role: "user", Content: "a"}})
	got, _ := s.RecentMessages(ctx, b.ID, 10)
	if len(got) != 0 {
		t.Fatalf("chat 2 sees %v", got)
	}
	if _, err := s.FindSession(ctx, "qq", "nope"); !errors.Is(err, ErrNoSession) {
		t.Fatalf("FindSession = %v", err)
	}
}

// Processes opening a new database at once do not apply a migration twice.
func TestConcurrentOpenMigratesOnce(t *testing.T) {
	dir := t.TempDir()
	errs := make(chan error, 4)
	for range 4 {
		go func() {
			s, err := Open(context.Background(), dir)
			if err == nil {
				err = s.Close()
			}
			errs <- err
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// The read pool is read-only: a write sent there by mistake fails instead
// of bypassing the writer's queue.
func TestReadPoolRefusesWrites(t *testing.T) {
	s, err := Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.db.Exec(`INSERT INTO schema_migrations(version, name) VALUES (998, 'x')`); err == nil {
		t.Fatal("the read pool wrote")
	}
}

// Writes prepared for the first time (a statement made on the write
// pool) while other goroutines keep that pool's one connection busy with
// transactions, which look their statements up: nothing waits for
// anything forever. A statement cache that held its lock while preparing
// deadlocked here (and in the daemon under 200 turns at once).
func TestFirstWritesDuringTransactions(t *testing.T) {
	for round := range 5 {
		s, err := Open(context.Background(), t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		sess, err := s.Session(ctx, "web", "busy")
		if err != nil {
			t.Fatal(err)
		}
		stop := make(chan struct{})
		var wg sync.WaitGroup
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					select {
					case <-stop:
						return
					default:
					}
					if err := s.AppendMessages(ctx, sess.ID, []Message{{Role: "user", Content: "hi"}}); err != nil {
						t.Error(err)
						return
					}
				}
			}()
		}
		for i := range 20 {
			key := fmt.Sprint(round, i)
			if _, err := s.Session(ctx, "web", key); err != nil {
				t.Error(err)
			}
			if err := s.SetSetting(ctx, "p", key, []byte(`1`)); err != nil {
				t.Error(err)
			}
			if err := s.KVSet(ctx, "p", key, []byte(`1`)); err != nil {
				t.Error(err)
			}
			if err := s.SaveTrace(ctx, &Trace{ID: key, Started: time.Now(), Ended: time.Now()}); err != nil {
				t.Error(err)
			}
		}
		close(stop)
		wg.Wait()
		s.Close()
	}
}
