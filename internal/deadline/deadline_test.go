package deadline

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// wait returns when ctx ends; the long bound only keeps a broken sweeper
// from hanging the suite.
func wait(t *testing.T, ctx context.Context) {
	t.Helper()
	select {
	case <-ctx.Done():
	case <-time.After(time.Minute):
		t.Fatal("the context never ended")
	}
}

func TestDeadlinePasses(t *testing.T) {
	var s Sweeper
	start := time.Now()
	ctx, cancel := s.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if d, ok := ctx.Deadline(); !ok || d.Before(start.Add(20*time.Millisecond)) {
		t.Fatalf("deadline %v %v", d, ok)
	}
	wait(t, ctx)
	if time.Since(start) < 20*time.Millisecond {
		t.Fatalf("ended after %v, before its deadline", time.Since(start))
	}
	if !errors.Is(ctx.Err(), context.DeadlineExceeded) || context.Cause(ctx) != context.DeadlineExceeded {
		t.Fatalf("err %v, cause %v", ctx.Err(), context.Cause(ctx))
	}
	if n := s.Pending(); n != 0 {
		t.Fatalf("%d deadlines still watched", n)
	}
}

func TestCancelBeforeTheDeadline(t *testing.T) {
	var s Sweeper
	ctx, cancel := s.WithTimeout(context.Background(), time.Hour)
	cancel()
	if !errors.Is(ctx.Err(), context.Canceled) {
		t.Fatalf("err %v", ctx.Err())
	}
	if n := s.Pending(); n != 0 {
		t.Fatalf("%d deadlines still watched", n)
	}
	cancel() // twice is harmless
}

func TestParentEnds(t *testing.T) {
	var s Sweeper
	parent, stop := context.WithCancel(context.Background())
	ctx, cancel := s.WithTimeout(parent, time.Hour)
	defer cancel()
	stop()
	wait(t, ctx)
	if !errors.Is(ctx.Err(), context.Canceled) {
		t.Fatalf("err %v", ctx.Err())
	}
	// A parent with an earlier deadline decides.
	short, stop2 := context.WithTimeout(context.Background(), time.Millisecond)
	defer stop2()
	ctx2, cancel2 := s.WithTimeout(short, time.Hour)
	defer cancel2()
	wait(t, ctx2)
	if !errors.Is(ctx2.Err(), context.DeadlineExceeded) {
		t.Fatalf("err %v", ctx2.Err())
	}
}

func TestEarlierDeadlineAfterALaterOne(t *testing.T) {
	var s Sweeper
	long, cancelLong := s.WithTimeout(context.Background(), time.Hour)
	defer cancelLong()
	short, cancelShort := s.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancelShort()
	wait(t, short)
	if long.Err() != nil {
		t.Fatal("the later deadline ended too")
	}
	// A context derived with a longer timeout ends at this one's deadline
	// (as cancelled, with the deadline as its cause).
	base, cancelBase := s.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancelBase()
	derived, cancelDerived := context.WithTimeout(base, time.Hour)
	defer cancelDerived()
	wait(t, derived)
	if context.Cause(derived) != context.DeadlineExceeded {
		t.Fatalf("derived err %v, cause %v", derived.Err(), context.Cause(derived))
	}
}

func TestManyConcurrently(t *testing.T) {
	var s Sweeper
	var wg sync.WaitGroup
	for i := 0; i < 200; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d := time.Duration(i%7) * time.Millisecond
			ctx, cancel := s.WithTimeout(context.Background(), d+time.Millisecond)
			if i%2 == 0 {
				cancel()
				return
			}
			wait(t, ctx)
			cancel()
			if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
				t.Errorf("err %v", ctx.Err())
			}
		}()
	}
	wg.Wait()
	if n := s.Pending(); n != 0 {
		t.Fatalf("%d deadlines still watched", n)
	}
}
