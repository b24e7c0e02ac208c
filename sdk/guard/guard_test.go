package guard

import (
	"context"
	"errors"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestCall(t *testing.T) {
	v, err := Call(context.Background(), time.Second, func(context.Context) (int, error) { return 7, nil })
	if v != 7 || err != nil {
		t.Fatal(v, err)
	}
	_, err = Call(context.Background(), time.Second, func(context.Context) (int, error) { panic("x") })
	if !errors.Is(err, ErrPanic) {
		t.Fatal(err)
	}
	ended := make(chan struct{})
	_, err = Call(context.Background(), 10*time.Millisecond, func(ctx context.Context) (int, error) {
		defer close(ended)
		<-ctx.Done()
		return 0, nil
	})
	if !errors.Is(err, ErrTimeout) {
		t.Fatal(err)
	}
	<-ended
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Call(ctx, time.Second, func(ctx context.Context) (int, error) { <-ctx.Done(); return 0, nil }); !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
}

// TestCallInline checks that CallInline keeps Call's contract for a
// function that returns when its context ends, on the caller's goroutine.
func TestCallInline(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name string
		ctx  context.Context
		d    time.Duration
		fn   func(context.Context) (int, error)
		want int
		err  error
	}{
		{"value", context.Background(), time.Second, func(context.Context) (int, error) { return 7, nil }, 7, nil},
		{"panic", context.Background(), time.Second, func(context.Context) (int, error) { panic("x") }, 0, ErrPanic},
		{"timeout", context.Background(), time.Millisecond, func(ctx context.Context) (int, error) { <-ctx.Done(); return 3, ctx.Err() }, 0, ErrTimeout},
		{"cancelled before", cancelled, time.Second, func(context.Context) (int, error) { panic("must not start") }, 0, context.Canceled},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v, err := CallInline(tc.ctx, tc.d, tc.fn)
			if v != tc.want || !errors.Is(err, tc.err) || (tc.err == nil) != (err == nil) {
				t.Fatalf("got %d, %v; want %d, %v", v, err, tc.want, tc.err)
			}
		})
	}
}
