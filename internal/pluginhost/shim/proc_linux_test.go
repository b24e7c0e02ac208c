//go:build linux

package shim

import (
	"os"
	"strconv"
	"testing"
)

func TestParseStat(t *testing.T) {
	tests := []struct {
		in   string
		want Proc
		ok   bool
	}{
		{"42 (sleep) S 7 42 7 0 -1", Proc{PPid: 7, Sid: 7, State: 'S'}, true},
		{"43 (a) Z (b) R 1 9 9 0", Proc{PPid: 1, Sid: 9, State: 'R'}, true},
		{"48 (two  spaces) S 1 2 3 4\n", Proc{PPid: 1, Sid: 3, State: 'S'}, true},
		{"49 (x) S 5 6 8\n", Proc{PPid: 5, Sid: 8, State: 'S'}, true},
		{"44 (x) Z 3", Proc{}, false},
		{"46 (x) S 3 4", Proc{}, false},
		{"47 (x) S 3 4 s", Proc{}, false},
		{"50 (x) SS 3 4 5", Proc{}, false},
		{"45 (broken", Proc{}, false},
		{"", Proc{}, false},
	}
	for _, tt := range tests {
		t.Run(strconv.Quote(tt.in), func(t *testing.T) {
			got, ok := parseStat([]byte(tt.in))
			if ok != tt.ok || (ok && got != tt.want) {
				t.Errorf("parseStat(%q) = %+v, %v; want %+v, %v", tt.in, got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestReadProcSelf(t *testing.T) {
	p, ok := ReadProc(os.Getpid())
	if !ok {
		t.Fatal("ReadProc(self) failed")
	}
	// The state is the main thread's: running, or asleep while the test
	// runs on another thread; never a zombie's (what the shim asks).
	if p.Pid != os.Getpid() || p.PPid != os.Getppid() || (p.State != 'R' && p.State != 'S') {
		t.Errorf("ReadProc(self) = %+v; want pid %d, ppid %d, state R or S", p, os.Getpid(), os.Getppid())
	}
	if _, ok := ReadProc(-1); ok {
		t.Error("ReadProc(-1) succeeded")
	}
}
