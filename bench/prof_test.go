package bench

import (
	"context"
	"os"
	"runtime/pprof"

	"github.com/hearth-agent/hearth/sdk/pluginrpc"
)

// serveProfiled serves the echo plugin with a CPU profile written to
// BENCH_CHILD_PROFILE, for looking at the child's side of a call.
func serveProfiled(path string) {
	f, err := os.Create(path)
	if err != nil {
		os.Exit(1)
	}
	pprof.StartCPUProfile(f)
	pluginrpc.ServeConn(context.Background(), os.Stdin, os.Stdout, newEcho, nil)
	pprof.StopCPUProfile()
	f.Close()
	os.Exit(0)
}
