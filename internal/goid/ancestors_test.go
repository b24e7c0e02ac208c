package goid

import (
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// A goroutine's trace with GODEBUG=tracebackancestors=4: its creator
// 20 has exited, and so has 19.
const ancestorsTrace = `goroutine 21 [running]:
main.main.func1.1.1()
	/tmp/tba/main.go:16 +0x4d
created by main.main.func1.1 in goroutine 20
	/tmp/tba/main.go:13 +0x56
[originating from goroutine 20]:
main.main.func1.1(...)
	/tmp/tba/main.go:19 +0x56
created by main.main.func1
	/tmp/tba/main.go:12 +0x56
[originating from goroutine 19]:
main.main.func1(...)
	/tmp/tba/main.go:20 +0x56
created by main.main
	/tmp/tba/main.go:11 +0x5f
[originating from goroutine 1]:
main.main(...)
	/tmp/tba/main.go:21 +0x5f`

func TestLineageIn(t *testing.T) {
	defer func(n int) { ancestorsKept = n }(ancestorsKept)
	if got := creatorIn([]byte(ancestorsTrace)); got != 20 {
		t.Errorf("creator %d, want 20 (the goroutine's own line, not an ancestor's)", got)
	}
	for _, c := range []struct {
		kept int
		want []uint64
	}{
		{0, []uint64{20}},           // not recorded: the rest is read from every goroutine
		{3, []uint64{20, 19, 1}},    // as many as the runtime keeps: there may be more
		{4, []uint64{20, 19, 1, 0}}, // fewer: goroutine 1 has no creator
	} {
		ancestorsKept = c.kept
		if got := lineageIn([]byte(ancestorsTrace)); !slices.Equal(got, c.want) {
			t.Errorf("tracebackancestors=%d: lineage %v, want %v", c.kept, got, c.want)
		}
	}
}

// TestTracebackAncestors runs the checks of ancestorsChecks in a copy
// of the test binary started with GODEBUG=tracebackancestors=16, which
// adds the ancestors' traces to each goroutine's: inheritance still
// holds, and reaches through a goroutine that has exited.
func TestTracebackAncestors(t *testing.T) {
	if os.Getenv("GOID_ANCESTORS_CHILD") == "1" {
		ancestorsChecks(t)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestTracebackAncestors$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), "GOID_ANCESTORS_CHILD=1", "GODEBUG=tracebackancestors=16")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestTracebackAncestors") {
		t.Fatalf("child: %v\n%s", err, out)
	}
}

func ancestorsChecks(t *testing.T) {
	if ancestorsKept != 16 {
		t.Fatalf("ancestorsKept = %d, want 16", ancestorsKept)
	}
	var l Local[string]
	check := func(where, want string, wantState State) {
		t.Helper()
		if v, s := l.Lookup(); v != want || s != wantState {
			t.Errorf("%s: Lookup = %q, %v; want %q, %v", where, v, s, want, wantState)
		}
	}
	release, resumed := make(chan struct{}), make(chan struct{})
	l.Run("turn", func() {
		on(func() { on(func() { check("grandchild", "turn", Live) }) })
		spawner := make(chan uint64)
		during := make(chan struct{})
		go func() { // exits once it started the worker
			go func() {
				defer close(resumed)
				for g := <-spawner; ; runtime.Gosched() {
					if _, alive := Creators()[g]; !alive {
						break
					}
				}
				check("worker of an exited spawner, during the call", "turn", Live)
				close(during)
				<-release
				check("worker of an exited spawner, after the call", "turn", Ended)
			}()
			spawner <- ID()
		}()
		<-during
	})
	on(func() { check("outside the call", "", None) })
	close(release)
	<-resumed
}
