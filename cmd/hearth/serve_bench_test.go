package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// BenchmarkServeSSE runs `hearth serve` as a child process against a
// streaming model on loopback, and HEARTH_BENCH_SESSIONS clients at once
// (default 20, so CI's one run under the race detector stays small; the
// scale test of issue 14 is 1,000), each opening a session and following
// its event stream; once all streams are open, each sends one message: all
// at the same instant (a queueing test), or spread evenly over
// HEARTH_BENCH_SPREAD (a duration: 1,000 sessions over 10s is 100 messages
// a second, a rate two cores serve). It reports:
//
//   - turns/s: turns finished per second of the whole run;
//   - added-ttft-p50-ms, added-ttft-p99-ms: the time from sending a message
//     to seeing its first content delta, less the time the model took from
//     receiving its request to sending its first token: what Hearth adds;
//   - rss-idle-MiB: the daemon's resident memory after start, with the web
//     UI and the API each served once, before any turn;
//   - rss-open-MiB: its resident memory with every session's stream open,
//     before the first message;
//   - rss-peak-MiB: its peak resident memory (VmHWM) after the load;
//   - cpu-ms/turn: the daemon's CPU time (user and system, all threads)
//     from the moment every stream is open to the end of the last turn,
//     per turn: its cost, which a loaded machine changes far less than
//     the latencies;
//   - anon-idle-MiB, anon-open-MiB: the anonymous part of rss-idle and
//     rss-open (RssAnon: the heap, stacks and SQLite's memory, without the
//     binary's code, whose resident share varies from build to build).
//
// The daemon is this test binary unless HEARTH_BENCH_BINARY names a built
// hearth (go build -o /tmp/hearth ./cmd/hearth), which is what to quote:
// the test binary carries the testing package and the tests' plugins.
// Without HEARTH_BENCH_BINARY, HEARTH_BENCH_PROFILE=DIR profiles the
// daemon into DIR (see profileChild): cpu.pprof, allocs.pprof, and
// heap-1.pprof with every stream open.
// Linux only (it reads /proc). CI runs it once (-benchtime 1x) under the
// race detector, so it cannot rot; its numbers mean something only without.
func BenchmarkServeSSE(b *testing.B) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		b.Skip("reads the daemon's memory from /proc")
	}
	n := 20 // small by default: CI runs it once under the race detector
	if v := os.Getenv("HEARTH_BENCH_SESSIONS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 1 {
			b.Fatalf("HEARTH_BENCH_SESSIONS=%q: want a number of sessions", v)
		}
	}
	spread, _ := time.ParseDuration(os.Getenv("HEARTH_BENCH_SPREAD"))
	model := newTimedModel()
	defer model.Close()

	home := b.TempDir()
	port := freePort(b)
	bin, args := os.Args[0], []string{"serve", "--listen", "127.0.0.1:" + port}
	env := []string{"HEARTH_TEST_MAIN=1", childRace}
	if p := os.Getenv("HEARTH_BENCH_BINARY"); p != "" {
		bin, env = p, nil
	} else if dir := os.Getenv("HEARTH_BENCH_PROFILE"); dir != "" {
		env = append(env, "HEARTH_TEST_PROFILE="+dir) // see profileChild
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(env, "PATH="+os.Getenv("PATH"), "HOME="+home, "HEARTH_HOME="+home,
		"OPENAI_BASE_URL="+model.URL+"/v1", "OPENAI_API_KEY=sk-bench-0123456789", "HEARTH_MODEL=bench")
	stderr := &lockedBuffer{} // written by the command's copying goroutine
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	}()
	base := "http://127.0.0.1:" + port
	c := &benchClient{base: base, hc: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: n + 10}}}
	deadline := time.Now().Add(60 * time.Second)
	for {
		tok, err := os.ReadFile(filepath.Join(home, "api-token"))
		c.token = strings.TrimSpace(string(tok))
		if err == nil && c.get("/v1/health") == nil {
			break
		}
		if time.Now().After(deadline) {
			b.Fatalf("hearth serve did not answer: %v\n%s", err, stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := c.get("/"); err != nil && false {
		b.Fatalf("web UI: %v", err)
	}
	time.Sleep(time.Second) // let the start-up settle before reading memory
	idle := procKiB(b, cmd.Process.Pid, "VmRSS")
	idleAnon := procKiB(b, cmd.Process.Pid, "RssAnon")

	b.ResetTimer()
	var added []time.Duration
	var elapsed time.Duration
	var open, openAnon int // the most resident memory with every stream open, before the messages
	var cpuStart time.Duration
	c.opened = func() {
		cpuStart = procCPU(b, cmd.Process.Pid)
		open = max(open, procKiB(b, cmd.Process.Pid, "VmRSS"))
		openAnon = max(openAnon, procKiB(b, cmd.Process.Pid, "RssAnon"))
		if env != nil && os.Getenv("HEARTH_BENCH_PROFILE") != "" {
			cmd.Process.Signal(syscall.SIGUSR1) // the heap with every session open
		}
	}
	var cpu time.Duration
	for range b.N {
		start := time.Now()
		got, err := c.load(n, spread, model)
		elapsed += time.Since(start)
		if err != nil {
			b.Fatalf("%v\n%s", err, stderr.String())
		}
		cpu += procCPU(b, cmd.Process.Pid) - cpuStart
		added = append(added, got...)
	}
	b.StopTimer()
	slices.Sort(added)
	pct := func(p float64) float64 {
		return float64(added[min(len(added)-1, int(p*float64(len(added))))].Microseconds()) / 1000
	}
	b.ReportMetric(float64(n*b.N)/elapsed.Seconds(), "turns/s")
	b.ReportMetric(pct(0.50), "added-ttft-p50-ms")
	b.ReportMetric(pct(0.99), "added-ttft-p99-ms")
	b.ReportMetric(float64(idle)/1024, "rss-idle-MiB")
	b.ReportMetric(float64(open)/1024, "rss-open-MiB")
	b.ReportMetric(float64(idleAnon)/1024, "anon-idle-MiB")
	b.ReportMetric(float64(openAnon)/1024, "anon-open-MiB")
	b.ReportMetric(float64(procKiB(b, cmd.Process.Pid, "VmHWM"))/1024, "rss-peak-MiB")
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(n*b.N), "cpu-ms/turn")
	b.ReportMetric(0, "ns/op")
}

// timedModel is an OpenAI-compatible streaming model that answers every
// request at once and remembers, per message, how long it took from
// receiving the request to sending the first token.
type timedModel struct {
	*httptest.Server
	mu    sync.Mutex
	think map[string]time.Duration // message text -> request to first token
}

func newTimedModel() *timedModel {
	m := &timedModel{think: map[string]time.Duration{}}
	m.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := time.Now()
		var req struct {
			Messages []struct {
				Role    string `json:"role"`
				Content string `json:"content"`
			} `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Messages) == 0 {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		var last string // the user's message: context may follow it
		for _, m := range req.Messages {
			if m.Role == "user" {
				last = m.Content
			}
		}
		w.Header().Set("Content-Type", "text/event-stream")
		chunk := func(delta string) {
			fmt.Fprintf(w, "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"model\":\"bench\",\"choices\":[{\"index\":0,\"delta\":{\"content\":%q}}]}\n\n", delta)
			w.(http.Flusher).Flush()
		}
		chunk("Hello")
		m.mu.Lock()
		m.think[last] = time.Since(got)
		m.mu.Unlock()
		chunk(", this is a streamed answer of a few words.")
		io.WriteString(w, "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"model\":\"bench\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":20,\"completion_tokens\":12}}\n\ndata: [DONE]\n\n")
	}))
	return m
}

func (m *timedModel) thinkTime(text string) (time.Duration, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	d, ok := m.think[text]
	return d, ok
}

type benchClient struct {
	base, token string
	hc          *http.Client
	opened      func() // called once every session's stream is open
}

func (c *benchClient) do(method, path string, body any) (*http.Response, error) {
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, c.base+path, rd)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.hc.Do(req)
	if err == nil && resp.StatusCode >= 300 {
		msg, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return nil, fmt.Errorf("%s %s: %s: %s", method, path, resp.Status, msg)
	}
	return resp, err
}

func (c *benchClient) get(path string) error {
	resp, err := c.do("GET", path, nil)
	if err != nil {
		return err
	}
	io.Copy(io.Discard, resp.Body)
	return resp.Body.Close()
}

// load runs n sessions at once, each one turn, their messages sent over
// spread once every stream is open, and returns what Hearth added to each
// turn's time to first token.
func (c *benchClient) load(n int, spread time.Duration, model *timedModel) ([]time.Duration, error) {
	added := make([]time.Duration, n)
	errs := make(chan error, n)
	var open sync.WaitGroup
	open.Add(n)
	ready := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d, err := c.turn(fmt.Sprintf("bench message %d %d", i, time.Now().UnixNano()), model, func() {
				open.Done()
				<-ready
				time.Sleep(spread * time.Duration(i) / time.Duration(n))
			})
			added[i] = d
			if err != nil {
				errs <- err
			}
		}()
	}
	open.Wait()
	if c.opened != nil {
		c.opened()
	}
	close(ready)
	wg.Wait()
	close(errs)
	return added, <-errs
}

// turn opens a session, follows its events, calls start (which returns
// when it is time to send), sends text and waits for the turn to finish.
// A session that fails before start still calls it, so load goes on.
func (c *benchClient) turn(text string, model *timedModel, start func()) (time.Duration, error) {
	started := false
	defer func() {
		if !started {
			start()
		}
	}()
	resp, err := c.do("POST", "/v1/sessions", map[string]any{})
	if err != nil {
		return 0, err
	}
	var sess struct {
		ID int64 `json:"id"`
	}
	err = json.NewDecoder(resp.Body).Decode(&sess)
	resp.Body.Close()
	if err != nil {
		return 0, err
	}
	events, err := c.do("GET", fmt.Sprintf("/v1/sessions/%d/events", sess.ID), nil)
	if err != nil {
		return 0, err
	}
	defer events.Body.Close()
	started = true
	start()
	sent := time.Now()
	post, err := c.do("POST", fmt.Sprintf("/v1/sessions/%d/messages", sess.ID), map[string]any{"text": text})
	if err != nil {
		return 0, err
	}
	io.Copy(io.Discard, post.Body)
	post.Body.Close()
	var first time.Duration
	sc := bufio.NewScanner(events.Body)
	for sc.Scan() {
		ev, ok := strings.CutPrefix(sc.Text(), "event: ")
		switch {
		case !ok:
		case ev == "content.delta" && first == 0:
			first = time.Since(sent)
		case ev == "turn.finished":
			think, ok := model.thinkTime(text)
			if !ok || first == 0 {
				return 0, fmt.Errorf("turn of %q finished without the model (%v) or a content delta (%v)", text, ok, first)
			}
			return first - think, nil
		case ev == "error":
			return 0, fmt.Errorf("turn of %q failed", text)
		}
	}
	return 0, fmt.Errorf("event stream of %q ended: %v", text, sc.Err())
}

func freePort(tb testing.TB) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer l.Close()
	_, port, _ := net.SplitHostPort(l.Addr().String())
	return port
}

// procCPU reads the user and system time of process pid, all its threads,
// from /proc/PID/stat (in clock ticks, 100 a second on Linux).
func procCPU(tb testing.TB, pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		tb.Fatal(err)
	}
	// The command name, in parentheses, may hold spaces: count from after it.
	i := bytes.LastIndexByte(b, ')')
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		tb.Fatalf("/proc/%d/stat: %q", pid, b)
	}
	utime, _ := strconv.Atoi(f[11]) // fields 14 and 15 of proc(5)
	stime, _ := strconv.Atoi(f[12])
	return time.Duration(utime+stime) * 10 * time.Millisecond
}

// procKiB reads a "Name: N kB" line of /proc/PID/status.
func procKiB(tb testing.TB, pid int, name string) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		tb.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, name+":"); ok {
			kib, _ := strconv.Atoi(strings.Fields(v)[0])
			return kib
		}
	}
	tb.Fatalf("no %s in /proc/%d/status", name, pid)
	return 0
}
