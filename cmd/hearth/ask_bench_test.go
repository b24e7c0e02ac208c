package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkAskFirstRequest runs `hearth ask` as a child process with one
// Go child plugin of many tools installed (HEARTH_BENCH_TOOLS, default
// 1,000 with HEARTH_BENCH_FULL=1, else 50: CI runs it once under -race)
// against a model on loopback, and reports:
//
//   - first-request-ms: the median time from exec to the model receiving
//     the first request, with every tool in it;
//   - wall-ms: the median time the whole command took;
//   - cpu-ms: the median CPU time (user and system) of the hearth process
//     and the plugin processes it ran and reaped, which a loaded machine
//     disturbs less than the times above;
//   - tools: the tools the first request carried.
//
// "wait" forgets the plugin's cached registration before each run, so
// that ask waits for its handshake (the first run after an install or a
// change); "cached" keeps it (pluginhost/offer.go): the plugin starts
// beside the turn. As BenchmarkServeSSE, hearth is this test binary unless
// HEARTH_BENCH_BINARY names a built hearth, which is what to quote; the
// plugin is this test binary either way (realsize_test.go's manyTools).
func BenchmarkAskFirstRequest(b *testing.B) {
	n := 50
	if os.Getenv("HEARTH_BENCH_FULL") == "1" {
		n = 1000
	}
	if v := os.Getenv("HEARTH_BENCH_TOOLS"); v != "" {
		fmt.Sscan(v, &n)
	}
	var first atomic.Int64 // when the current run's first request came, UnixNano
	var tools atomic.Int64
	model := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := time.Now().UnixNano()
		var req struct {
			Tools []json.RawMessage `json:"tools"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		if first.CompareAndSwap(0, got) {
			tools.Store(int64(len(req.Tools)))
		}
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"model\":\"bench\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"}}]}\n\n"+
			"data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"model\":\"bench\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":20,\"completion_tokens\":1}}\n\ndata: [DONE]\n\n")
	}))
	defer model.Close()

	home := b.TempDir()
	dir := filepath.Join(home, "plugins", "many")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		b.Fatal(err)
	}
	manifest := fmt.Sprintf(`{"id": "many", "command": [%q], "env": {"HEARTH_TEST_SERVE_TOOLS": "%d"}}`, os.Args[0], n)
	if err := os.WriteFile(filepath.Join(dir, "plugin.json"), []byte(manifest), 0o600); err != nil {
		b.Fatal(err)
	}
	bin, env := os.Args[0], []string{"HEARTH_TEST_MAIN=1", childRace}
	if p := os.Getenv("HEARTH_BENCH_BINARY"); p != "" {
		bin, env = p, nil
	}
	env = append(env, "PATH="+os.Getenv("PATH"), "HOME="+home, "HEARTH_HOME="+home,
		// A window of 1M tokens: all the tools are in the first request.
		"OPENAI_BASE_URL="+model.URL+"/v1", "OPENAI_API_KEY=sk-bench-0123456789", "HEARTH_MODEL=gpt-4.1")
	ask := func(b *testing.B) (firstReq, wall, cpu time.Duration) {
		first.Store(0)
		cmd := exec.Command(bin, "ask", "hi")
		cmd.Env = env
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		start := time.Now()
		if err := cmd.Run(); err != nil {
			b.Fatalf("hearth ask: %v\n%s", err, out.String())
		}
		wall = time.Since(start)
		cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		if first.Load() == 0 {
			b.Fatalf("the model got no request:\n%s", out.String())
		}
		return time.Duration(first.Load() - start.UnixNano()), wall, cpu
	}
	ask(b) // installs the SDKs, creates the database, caches the plugin's registration
	for _, mode := range []string{"wait", "cached"} {
		b.Run(mode, func(b *testing.B) {
			var firsts, walls, cpus []float64
			for b.Loop() {
				if mode == "wait" {
					os.RemoveAll(filepath.Join(home, "plugin_cache"))
				}
				f, w, c := ask(b)
				firsts, walls, cpus = append(firsts, ms(f)), append(walls, ms(w)), append(cpus, ms(c))
			}
			b.ReportMetric(median(firsts), "first-request-ms")
			b.ReportMetric(median(walls), "wall-ms")
			b.ReportMetric(median(cpus), "cpu-ms")
			b.ReportMetric(float64(tools.Load()), "tools")
			b.ReportMetric(0, "ns/op")
		})
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func median(v []float64) float64 {
	v = slices.Clone(v)
	slices.Sort(v)
	return v[len(v)/2]
}
