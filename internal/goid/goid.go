// Package goid tells goroutines apart, for the APIs Hearth implements
// that name no call: HomeAgent's SetToolBlocks and its memory services
// take no context, so the call they belong to is the one whose handler
// runs on the calling goroutine, or on a goroutine that handler started.
// Go offers no goroutine identity of its own; ID reads it from the stack
// header, and Local keeps a value per goroutine for as long as a handler
// runs, inherited by the goroutines it starts. Use them only where no
// context can be passed.
package goid

import (
	"bytes"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	fastgoid "github.com/petermattis/goid"
)

// ID returns the calling goroutine's number, or 0 if it cannot be read.
// Numbers are never reused while the process runs.
//
// It is read from the runtime's goroutine record (petermattis/goid, a few
// nanoseconds) where that agrees with the header of the goroutine's stack
// trace, checked once per process on fresh goroutines (fastAgrees);
// otherwise (a Go release that moved the field, an architecture the
// library reads through the trace anyway) from the trace, which walks
// the whole stack: microseconds, and half of an in-process tool call.
func ID() uint64 {
	if fastAgrees() {
		return uint64(fastgoid.Get())
	}
	return slowID()
}

// fastAgrees reports whether the runtime's record and the stack trace
// give the same number on a few goroutines started for the check (so
// that neither is 1, the main goroutine's, which an offset pointing at
// some other small field could match by chance).
var fastAgrees = sync.OnceValue(func() bool {
	for range 3 {
		ch := make(chan bool)
		go func() {
			id := slowID()
			ch <- id > 1 && uint64(fastgoid.Get()) == id
		}()
		if !<-ch {
			return false
		}
	}
	return true
})

// slowID reads the goroutine's number from the header of its stack trace
// ("goroutine 42 [running]:").
func slowID() uint64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b, ok := bytes.CutPrefix(b, []byte("goroutine "))
	if !ok {
		return 0
	}
	n, _ := number(b)
	return n
}

// number reads the decimal number b starts with, and what follows it.
func number(b []byte) (uint64, []byte) {
	i := 0
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	n, err := strconv.ParseUint(string(b[:i]), 10, 64)
	if err != nil {
		return 0, b
	}
	return n, b[i:]
}

// maxStack bounds the stack traces read to find creators: past it a
// goroutine's creator is not known (a variable so tests can lower it).
var maxStack = 64 << 20

// allSize is where the next read of every goroutine's trace starts: a
// bit more than the last one took, or 1 KiB a goroutine alive if that is
// more. Each read stops the world and walks every goroutine however
// small the buffer, so growing it from 4 KiB by doubling would stop the
// world a dozen times at 10,000 goroutines.
var allSize atomic.Int64

// allReads counts the reads of every goroutine's trace (for tests).
var allReads atomic.Int64

// stack returns the calling goroutine's stack trace, or every
// goroutine's; nil if it would be larger than maxStack.
func stack(all bool) []byte {
	size := 4 << 10
	if all {
		allReads.Add(1)
		size = max(size, int(allSize.Load()), runtime.NumGoroutine()<<10)
	}
	for size = min(size, maxStack); ; size = min(2*size, maxStack) {
		buf := make([]byte, size)
		if n := runtime.Stack(buf, all); n < size {
			if all {
				allSize.Store(int64(n + n/4))
			}
			return buf[:n]
		}
		if size == maxStack {
			return nil
		}
	}
}

var (
	createdIn   = []byte(" in goroutine ")
	originating = []byte("\n[originating from goroutine ")
)

// creatorIn returns the number of the goroutine that created the one
// whose trace is tr (from its "created by f in goroutine N" line), 0 if
// none is named. The line is the goroutine's own, before the ancestors'
// traces GODEBUG=tracebackancestors adds, whose "created by" lines name
// no goroutine.
func creatorIn(tr []byte) uint64 {
	if i := bytes.Index(tr, originating); i >= 0 {
		tr = tr[:i]
	}
	i := bytes.LastIndex(tr, []byte("\ncreated by "))
	if i < 0 {
		return 0
	}
	line := tr[i+1:]
	if j := bytes.IndexByte(line, '\n'); j >= 0 {
		line = line[:j]
	}
	j := bytes.LastIndex(line, createdIn)
	if j < 0 {
		return 0
	}
	n, _ := number(line[j+len(createdIn):])
	return n
}

// ancestorsKept is the process's GODEBUG tracebackancestors setting, as
// the runtime read it at start: how many of a goroutine's ancestors it
// records when the goroutine is created (0: none).
var ancestorsKept = func() int {
	n := 0
	for _, kv := range strings.Split(os.Getenv("GODEBUG"), ",") {
		if v, ok := strings.CutPrefix(kv, "tracebackancestors="); ok {
			n, _ = strconv.Atoi(v) // the last one wins, as in the runtime
		}
	}
	return n
}()

// lineageIn returns the goroutines that started the one whose trace is
// tr, nearest first: its creator, then, when the process runs with
// GODEBUG=tracebackancestors=N, the ancestors the runtime recorded when
// each was created ("[originating from goroutine N]:"), exited ones too.
// It ends with 0 when the first goroutine (main or the runtime's) is
// reached; otherwise the rest is not in tr.
func lineageIn(tr []byte) []uint64 {
	c := creatorIn(tr)
	out := []uint64{c}
	if c == 0 || ancestorsKept <= 0 {
		return out
	}
	k := 0
	for rest := tr; ; {
		i := bytes.Index(rest, originating)
		if i < 0 {
			break
		}
		n, after := number(rest[i+len(originating):])
		if k++; k > 1 { // the first is the creator
			out = append(out, n)
		}
		rest = after
	}
	if k > 0 && k < ancestorsKept { // all recorded: the last has no creator
		out = append(out, 0)
	}
	return out
}

// Creator returns the number of the goroutine that started the calling
// one, 0 for the main goroutine, a runtime one, or when the trace is too
// large to read.
func Creator() uint64 { return creatorIn(stack(false)) }

// lineage is lineageIn of the calling goroutine's trace ([0] when it
// is too large to read).
func lineage() []uint64 { return lineageIn(stack(false)) }

// Creators returns the creator of every goroutine alive (goroutines of
// the runtime itself and main have none); nil when the traces are too
// large to read. It reads every goroutine's stack, stopping the world
// for as long as that takes (70 to 180 ms at 10,000 goroutines on a
// loaded 2-core machine): use it sparingly.
func Creators() map[uint64]uint64 {
	all := lineages()
	if all == nil {
		return nil
	}
	out := make(map[uint64]uint64, len(all))
	for g, l := range all {
		out[g] = l[0]
	}
	return out
}

// lineages returns lineageIn of every goroutine alive, by goroutine
// (see Creators); nil when the traces are too large to read.
func lineages() map[uint64][]uint64 {
	all := stack(true)
	if all == nil {
		return nil
	}
	out := map[uint64][]uint64{}
	for len(all) > 0 {
		tr := all
		if i := bytes.Index(all, []byte("\n\n")); i >= 0 {
			tr, all = all[:i], all[i+2:]
		} else {
			all = nil
		}
		rest, ok := bytes.CutPrefix(tr, []byte("goroutine "))
		if !ok {
			continue
		}
		if g, _ := number(rest); g != 0 {
			out[g] = lineageIn(tr)
		}
	}
	return out
}
