package bench

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

// BenchmarkSideBySide is the one to quote: every transport is started, then
// measured in interleaved rounds (a block of sequential calls, and a block
// of calls from 16 goroutines, from each transport in turn, the order
// rotating every round), so a shared machine's drift, which moves the raw
// pipe alone by 2x between runs, falls on all of them alike. Ratios are to
// the raw pipe. b.N is the number of calls per transport and mode (at
// least 2000); the table goes to stdout. How many transports are alive
// changes the floor itself (with all seven the raw pipe is slower), so
// BENCH_TRANSPORTS can pick some.
//
//	cd bench && go test -run '^$' -bench SideBySide -benchtime 20000x
//	BENCH_TRANSPORTS=child go test -run '^$' -bench SideBySide -benchtime 20000x
//	BENCH_TRANSPORTS=inprocess go test -run '^$' -bench SideBySide -benchtime 20000x
//
// The in-process call is also measured against its own floor (decoding,
// checking and encoding the same call, setupInProcessFloor), printed
// below the table and reported as inprocess-p50-×floor.
func BenchmarkSideBySide(b *testing.B) {
	all := []struct {
		key, name string
		setup     setup
	}{
		{"raw", "raw pipe (floor)", setupRawPipe},
		{"inprocess", "in process", setupInProcess},
		{"floor", "in-process floor (decode, validate, encode)", setupInProcessFloor},
		{"conn", "bare wire.Conn", setupConn},
		{"sdkchild", "child SDK over a bare Conn", setupSDKChild},
		{"child", "Hearth child plugin", setupHearthChild},
		{"goplugin", "go-plugin (net/rpc)", setupGoPlugin},
		{"goplugingrpc", "go-plugin (gRPC)", setupGoPluginGRPC},
		{"mcp", "MCP Go SDK (stdio)", setupMCP},
	}
	// BENCH_TRANSPORTS=raw,child measures only those (the raw pipe always).
	// The in-process floor comes with the in-process call.
	only := os.Getenv("BENCH_TRANSPORTS")
	transports := all[:0:0]
	child, inproc, floor := -1, -1, -1
	for _, t := range all {
		if t.key == "raw" || only == "" || slices.Contains(strings.Split(only, ","), t.key) ||
			t.key == "floor" && slices.Contains(strings.Split(only, ","), "inprocess") {
			switch t.key {
			case "child":
				child = len(transports)
			case "inprocess":
				inproc = len(transports)
			case "floor":
				floor = len(transports)
			}
			transports = append(transports, t)
		}
	}
	type result struct {
		lat   []time.Duration
		calls int
		busy  time.Duration
	}
	calls := make([]caller, len(transports))
	res := make([]result, len(transports))
	for i, t := range transports {
		call, done := t.setup(b)
		defer done()
		calls[i] = call
		for range 200 { // warm up
			if err := call(context.Background()); err != nil {
				b.Fatalf("%s: %v", t.name, err)
			}
		}
	}
	n := max(b.N, 2000)
	const rounds = 20
	per := n / rounds
	ctx := context.Background()
	b.ResetTimer()
	for r := range rounds {
		for j := range transports {
			i := (j + r) % len(transports)
			for range per {
				start := time.Now()
				if err := calls[i](ctx); err != nil {
					b.Fatalf("%s: %v", transports[i].name, err)
				}
				res[i].lat = append(res[i].lat, time.Since(start))
			}
			res[i].busy += parallel(b, calls[i], per)
			res[i].calls += per
		}
	}
	b.StopTimer()

	rawP50 := 0.0
	rawTput := 0.0
	fmt.Fprintf(os.Stdout, "\n| transport | seq p1 | seq p50 | seq p99 | ×raw (p50) | 16 callers | ×raw (throughput) |\n|---|---|---|---|---|---|---|\n")
	for i, t := range transports {
		slices.Sort(res[i].lat)
		p1, p50, p99 := micros(percentile(res[i].lat, 1)), micros(percentile(res[i].lat, 50)), micros(percentile(res[i].lat, 99))
		tput := float64(res[i].calls) / res[i].busy.Seconds()
		if i == 0 {
			rawP50, rawTput = p50, tput
		}
		fmt.Fprintf(os.Stdout, "| %s | %.1f µs | %.1f µs | %.1f µs | %.2f | %.1f k/s | %.2f |\n",
			t.name, p1, p50, p99, p50/rawP50, tput/1e3, tput/rawTput)
	}
	if inproc >= 0 && floor >= 0 {
		// Sorted above. p50: the in-process call has no pipe to make it
		// bimodal.
		x := micros(percentile(res[inproc].lat, 50)) / micros(percentile(res[floor].lat, 50))
		fmt.Fprintf(os.Stdout, "\nin process: %.2f× its floor (p50)\n", x)
		b.ReportMetric(x, "inprocess-p50-×floor")
	}
	if child >= 0 {
		b.ReportMetric(micros(percentile(res[child].lat, 50))/rawP50, "child-p50-×raw")
		b.ReportMetric(float64(res[child].calls)/res[child].busy.Seconds()/rawTput, "child-calls/s-×raw")
	}
}
