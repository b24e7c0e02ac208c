package scope

import (
	"context"
	"sync"
	"testing"
)

func TestBind(t *testing.T) {
	if Current() != Global {
		t.Fatalf("unbound Current = %q", Current())
	}
	g1, g2 := Chat("qq", "group:1"), Chat("qq", "group:2")
	un1 := Bind(g1)
	if Current() != g1 {
		t.Fatalf("Current = %q, want %q", Current(), g1)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // a goroutine started here inherits the binding
		defer wg.Done()
		if c := Current(); c != g1 {
			t.Errorf("new goroutine Current = %q, want %q", c, g1)
		}
		defer Bind(g2)()
		if c := Current(); c != g2 {
			t.Errorf("other goroutine Current = %q", c)
		}
	}()
	wg.Wait()
	un2 := BindContext(context.Background()) // a context without a scope hides the outer binding
	if Current() != Global {
		t.Fatalf("BindContext(no scope) Current = %q", Current())
	}
	un2()
	un3 := BindContext(With(context.Background(), g2))
	if Current() != g2 {
		t.Fatalf("BindContext Current = %q", Current())
	}
	un3()
	if Current() != g1 {
		t.Fatalf("after inner unbind Current = %q", Current())
	}
	un1()
	if Current() != Global || bound.Len() != 0 {
		t.Fatalf("after unbind Current = %q, %d bound", Current(), bound.Len())
	}
	defer Bind("not a scope")()
	if Current() != Global {
		t.Fatalf("invalid binding Current = %q", Current())
	}
}
