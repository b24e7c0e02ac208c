package approvals

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/hearth-agent/hearth/internal/policy"
	"github.com/hearth-agent/hearth/sdk"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// events records a broker's events.
type events struct {
	mu  sync.Mutex
	evs []Event
	got chan Event
}

func watch(t *testing.T, b *Broker) *events {
	e := &events{got: make(chan Event, 100)}
	stop := b.Subscribe(func(ev Event) {
		e.mu.Lock()
		e.evs = append(e.evs, ev)
		e.mu.Unlock()
		e.got <- ev
	})
	t.Cleanup(stop)
	return e
}

func (e *events) next(t *testing.T) Event {
	t.Helper()
	return <-e.got
}

func request(id int64) *policy.ApprovalRequest {
	return &policy.ApprovalRequest{ID: id, Tool: "shop__buy", Effect: sdk.EffectMoney, Session: "terminal/chat/1",
		Requests: policy.Requester{Channel: "terminal", User: "owner"}}
}

type result struct {
	answer policy.Answer
	err    error
}

func ask(ctx context.Context, a policy.Approver, req *policy.ApprovalRequest) <-chan result {
	out := make(chan result, 1)
	go func() {
		ans, err := a(ctx, req)
		out <- result{ans, err}
	}()
	return out
}

// A request without a local approver is answered by Decide; the channel
// and chat come from the request's session.
func TestDecideAnswers(t *testing.T) {
	b := New()
	evs := watch(t, b)
	done := ask(context.Background(), b.Approver(nil), request(7))
	ev := evs.next(t)
	if ev.Kind != Requested || ev.Pending.Channel != "terminal" || ev.Pending.ChatID != "chat/1" {
		t.Fatalf("first event %+v", ev)
	}
	if p := b.Pending(); len(p) != 1 || p[0].Request.ID != 7 {
		t.Fatalf("pending %+v", p)
	}
	if err := b.Decide(7, "maybe", "api"); !errors.Is(err, ErrBadAnswer) {
		t.Fatalf("bad answer: %v", err)
	}
	if err := b.Decide(8, policy.AllowOnce, "api"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown id: %v", err)
	}
	if err := b.Decide(7, policy.AllowOnce, "web"); err != nil {
		t.Fatal(err)
	}
	if r := <-done; r.err != nil || r.answer != policy.AllowOnce {
		t.Fatalf("approver returned %+v", r)
	}
	if ev := evs.next(t); ev.Kind != Decided || ev.Answer != "once" || ev.By != "web" {
		t.Fatalf("decided event %+v", ev)
	}
	if err := b.Decide(7, policy.Refuse, "api"); !errors.Is(err, ErrAlreadyDecided) {
		t.Fatalf("second answer: %v", err)
	}
	if len(b.Pending()) != 0 {
		t.Fatal("still pending")
	}
}

// Two channels deciding at once: exactly one wins, the other learns it.
func TestConcurrentDecide(t *testing.T) {
	for i := range 50 {
		b := New()
		evs := watch(t, b)
		done := ask(context.Background(), b.Approver(nil), request(int64(i)))
		evs.next(t)
		var wg sync.WaitGroup
		errs := make([]error, 2)
		answers := []policy.Answer{policy.AllowOnce, policy.Refuse}
		for j := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[j] = b.Decide(int64(i), answers[j], []string{"web", "api"}[j])
			}()
		}
		wg.Wait()
		r := <-done
		won := -1
		for j, err := range errs {
			switch {
			case err == nil:
				if won >= 0 {
					t.Fatal("both answers won")
				}
				won = j
			case !errors.Is(err, ErrAlreadyDecided):
				t.Fatalf("loser got %v", err)
			}
		}
		if won < 0 || r.answer != answers[won] {
			t.Fatalf("errors %v, approver returned %+v", errs, r)
		}
		if ev := evs.next(t); ev.Kind != Decided || ev.Answer != string(answers[won]) {
			t.Fatalf("decided event %+v", ev)
		}
	}
}

// The local prompt answering first wins; a later Decide is refused, and
// when Decide comes first the local prompt is cancelled.
func TestLocalRacesRemote(t *testing.T) {
	t.Run("local first", func(t *testing.T) {
		b := New()
		evs := watch(t, b)
		local := func(ctx context.Context, req *policy.ApprovalRequest) (policy.Answer, error) {
			return policy.Refuse, nil
		}
		r := <-ask(context.Background(), b.Approver(local), request(1))
		if r.err != nil || r.answer != policy.Refuse {
			t.Fatalf("returned %+v", r)
		}
		evs.next(t)
		if ev := evs.next(t); ev.Kind != Decided || ev.By != "terminal" {
			t.Fatalf("decided event %+v", ev)
		}
		if err := b.Decide(1, policy.AllowOnce, "api"); !errors.Is(err, ErrAlreadyDecided) {
			t.Fatalf("late remote answer: %v", err)
		}
	})
	t.Run("remote first", func(t *testing.T) {
		b := New()
		evs := watch(t, b)
		cancelled := make(chan error, 1)
		local := func(ctx context.Context, req *policy.ApprovalRequest) (policy.Answer, error) {
			<-ctx.Done()
			cancelled <- ctx.Err()
			return "", ctx.Err()
		}
		done := ask(context.Background(), b.Approver(local), request(2))
		evs.next(t)
		if err := b.Decide(2, policy.AllowAlways, "web"); err != nil {
			t.Fatal(err)
		}
		if r := <-done; r.err != nil || r.answer != policy.AllowAlways {
			t.Fatalf("returned %+v", r)
		}
		if err := <-cancelled; !errors.Is(err, context.Canceled) {
			t.Fatalf("local prompt ended with %v", err)
		}
	})
	t.Run("both at once", func(t *testing.T) {
		for i := range 50 {
			b := New()
			evs := watch(t, b)
			start := make(chan struct{})
			local := func(ctx context.Context, req *policy.ApprovalRequest) (policy.Answer, error) {
				<-start
				return policy.Refuse, nil
			}
			done := ask(context.Background(), b.Approver(local), request(int64(i)))
			evs.next(t)
			close(start)
			err := b.Decide(int64(i), policy.AllowOnce, "api")
			r := <-done
			switch {
			case err == nil && r.answer != policy.AllowOnce, err != nil && r.answer != policy.Refuse:
				t.Fatalf("Decide: %v, approver returned %+v", err, r)
			case err != nil && !errors.Is(err, ErrAlreadyDecided):
				t.Fatalf("Decide: %v", err)
			}
			if ev := evs.next(t); ev.Answer != string(r.answer) {
				t.Fatalf("decided event %+v, approver returned %+v", ev, r)
			}
		}
	})
	t.Run("local cannot ask", func(t *testing.T) {
		b := New()
		evs := watch(t, b)
		local := func(ctx context.Context, req *policy.ApprovalRequest) (policy.Answer, error) {
			return "", errors.New("not a terminal")
		}
		done := ask(context.Background(), b.Approver(local), request(3))
		evs.next(t)
		if err := b.Decide(3, policy.AllowOnce, "web"); err != nil {
			t.Fatal(err)
		}
		if r := <-done; r.err != nil || r.answer != policy.AllowOnce {
			t.Fatalf("returned %+v", r)
		}
	})
}

// Cancelling the turn withdraws the request: it is no longer pending, the
// decided event says cancelled, and a later Decide is refused.
func TestCancellationWithdraws(t *testing.T) {
	b := New()
	evs := watch(t, b)
	ctx, cancel := context.WithCancel(context.Background())
	local := func(ctx context.Context, req *policy.ApprovalRequest) (policy.Answer, error) {
		<-ctx.Done()
		return "", ctx.Err()
	}
	done := ask(ctx, b.Approver(local), request(4))
	evs.next(t)
	cancel()
	if r := <-done; !errors.Is(r.err, context.Canceled) {
		t.Fatalf("returned %+v", r)
	}
	if ev := evs.next(t); ev.Kind != Decided || ev.Answer != Cancelled || ev.By != "policy" {
		t.Fatalf("decided event %+v", ev)
	}
	if len(b.Pending()) != 0 {
		t.Fatal("still pending")
	}
	if err := b.Decide(4, policy.AllowOnce, "api"); !errors.Is(err, ErrAlreadyDecided) {
		t.Fatalf("Decide after cancel: %v", err)
	}
}

// An expired request reports Expired.
func TestExpiry(t *testing.T) {
	b := New()
	evs := watch(t, b)
	ctx, cancel := context.WithDeadline(context.Background(), b.now())
	defer cancel()
	done := ask(ctx, b.Approver(nil), request(5))
	if r := <-done; !errors.Is(r.err, context.DeadlineExceeded) {
		t.Fatalf("returned %+v", r)
	}
	evs.next(t)
	if ev := evs.next(t); ev.Answer != Expired {
		t.Fatalf("decided event %+v", ev)
	}
}

func TestNeedsConfirm(t *testing.T) {
	for _, tc := range []struct {
		req  policy.ApprovalRequest
		want bool
	}{
		{policy.ApprovalRequest{Effect: sdk.EffectMoney}, true},
		{policy.ApprovalRequest{Effect: sdk.EffectPublic}, true},
		{policy.ApprovalRequest{Effect: sdk.EffectWrite, Grant: true}, true},
		{policy.ApprovalRequest{Effect: sdk.EffectWrite}, false},
	} {
		if got := NeedsConfirm(&tc.req); got != tc.want {
			t.Errorf("%+v: %v", tc.req, got)
		}
	}
}
