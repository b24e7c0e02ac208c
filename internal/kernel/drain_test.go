package kernel

import (
	"context"
	"errors"
	"testing"

	"github.com/hearth-agent/hearth/internal/llm"
	"github.com/hearth-agent/hearth/sdk"
)

// heldProvider answers "done" once release is closed.
type heldProvider struct{ release chan struct{} }

func (p heldProvider) Chat(ctx context.Context, _ *llm.Request, _ func(llm.Delta)) (*llm.Response, error) {
	select {
	case <-p.release:
		return &llm.Response{Content: "done", FinishReason: "stop"}, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func TestDrainWaitsForTurns(t *testing.T) {
	release := make(chan struct{})
	k := New(heldProvider{release}, nil, nil)
	defer k.Close()
	if err := k.Drain(context.Background()); err != nil {
		t.Fatalf("idle kernel: %v", err)
	}
	done := k.Submit(Input{Injection: sdk.Injection{Channel: "c", ChatID: "1", Text: "hi"}})

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := k.Drain(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("drain with a turn running and a cancelled context: %v", err)
	}
	drained := make(chan error, 1)
	go func() { drained <- k.Drain(context.Background()) }()
	close(release)
	if out := <-done; out.Err != nil {
		t.Fatal(out.Err)
	}
	if err := <-drained; err != nil {
		t.Fatal(err)
	}
}

// A session is idle when its caller hears the outcome: resetting it at
// once is not refused as busy.
func TestResetRightAfterAnswer(t *testing.T) {
	release := make(chan struct{})
	close(release)
	k := New(heldProvider{release}, nil, nil)
	defer k.Close()
	for i := range 200 {
		in := Input{Injection: sdk.Injection{Channel: "c", ChatID: "1", Text: "hi"}}
		if out := k.Ask(context.Background(), in); out.Err != nil {
			t.Fatal(out.Err)
		}
		if err := k.ResetSession(context.Background(), "c", "1"); err != nil {
			t.Fatalf("reset %d right after the answer: %v", i, err)
		}
	}
}
