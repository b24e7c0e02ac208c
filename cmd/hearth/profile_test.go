package main

import (
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"syscall"
)

// profileChild profiles this test binary run as the hearth command when
// dir is set (HEARTH_TEST_PROFILE, which BenchmarkServeSSE passes on with
// HEARTH_BENCH_PROFILE): the CPU from start to the returned stop, which
// also writes the allocations (allocs.pprof), and the heap in use, the
// goroutines and the runtime's memory statistics each time the process
// gets SIGUSR1 (heap-N.pprof, goroutine-N.pprof, memstats-N.txt). The production binary has no
// profiling endpoint; this is how the daemon's own costs are looked at.
func profileChild(dir string) (stop func()) {
	if dir == "" {
		return func() {}
	}
	cpu, err := os.Create(filepath.Join(dir, "cpu.pprof"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "profile:", err)
		return func() {}
	}
	if err := pprof.StartCPUProfile(cpu); err != nil {
		fmt.Fprintln(os.Stderr, "profile:", err)
	}
	usr1 := make(chan os.Signal, 1)
	signal.Notify(usr1, syscall.SIGUSR1)
	go func() {
		for i := 1; ; i++ {
			if _, ok := <-usr1; !ok {
				return
			}
			runtime.GC()
			writeProfile(filepath.Join(dir, fmt.Sprintf("heap-%d.pprof", i)), "heap")
			writeProfile(filepath.Join(dir, fmt.Sprintf("goroutine-%d.pprof", i)), "goroutine")
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			os.WriteFile(filepath.Join(dir, fmt.Sprintf("memstats-%d.txt", i)), fmt.Appendf(nil,
				"HeapInuse %d\nHeapAlloc %d\nHeapIdle %d\nHeapReleased %d\nStackInuse %d\nStackSys %d\nMSpanInuse %d\nGCSys %d\nOtherSys %d\nSys %d\nNumGoroutine %d\n",
				ms.HeapInuse, ms.HeapAlloc, ms.HeapIdle, ms.HeapReleased, ms.StackInuse, ms.StackSys, ms.MSpanInuse, ms.GCSys, ms.OtherSys, ms.Sys, runtime.NumGoroutine()), 0o644)
		}
	}()
	return func() {
		signal.Stop(usr1)
		close(usr1)
		pprof.StopCPUProfile()
		cpu.Close()
		writeProfile(filepath.Join(dir, "allocs.pprof"), "allocs")
	}
}

func writeProfile(path, name string) {
	f, err := os.Create(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "profile:", err)
		return
	}
	defer f.Close()
	if err := pprof.Lookup(name).WriteTo(f, 0); err != nil {
		fmt.Fprintln(os.Stderr, "profile:", err)
	}
}
