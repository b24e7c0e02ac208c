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
