package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// config is one run of the harness.
type config struct {
	hearth, hearthRev, picoclaw, picoclawRev, xbot, xbotRev string

	tools, rounds, turns int

	self string    // this program, served as the tool servers
	dir  string    // scratch space for the hosts' homes
	log  io.Writer // progress
}

// metric names, in the table's order.
const (
	mOneShot   = "one-shot tool turn, wall (ms)"
	mOneShotH  = "  of it host time (ms; less the provider's time and the tool's 5 ms)"
	mAnswer    = "host time per answer-only turn (ms)"
	mRSS0      = "idle RSS at start, host process (MiB)"
	mRSSTree0  = "idle RSS at start, with tool servers (MiB)"
	mRSS       = "idle RSS after the turns, host process (MiB)"
	mRSSTree   = "idle RSS after the turns, with tool servers (MiB)"
	mReqBytes  = "first request of a turn (KiB)"
	mToolBytes = "  of it the tool list (KiB)"
	mReqTokens = "  ≈ tokens (bytes / 4)"
	mTurnReqs  = "requests in the one-shot tool turn"
	mTurnBytes = "bytes sent in the one-shot tool turn (KiB)"
)

var metricOrder = []string{mOneShot, mOneShotH, mAnswer, mRSS0, mRSSTree0, mRSS, mRSSTree, mReqBytes, mToolBytes, mReqTokens, mTurnReqs, mTurnBytes}

// result is what run measured: per host, per metric, one value a round.
type result struct {
	cfg      config
	hosts    []*host
	builtins map[string]int   // built-in tools counted per host
	offered  map[string][]int // tool counts seen in every measured request
	// side is the tool count of each side request (one that did not
	// offer the tool list: a title, a summary).
	side map[string][]int
	// warmTurns is how many warm-up turns each interactive process took
	// to offer all its tools.
	warmTurns map[string][]int
	values    map[string]map[string][]float64
}

func (r *result) add(h, metric string, v float64) {
	if r.values[h] == nil {
		r.values[h] = map[string][]float64{}
	}
	r.values[h][metric] = append(r.values[h][metric], v)
}

// run configures every host, then measures them in interleaved rounds.
func run(cfg config) (*result, error) {
	if cfg.rounds < 1 || cfg.turns < 1 || cfg.tools < 1 {
		return nil, fmt.Errorf("rounds, turns and tools must be at least 1")
	}
	hosts := []*host{hearthHost(cfg.hearth, cfg.hearthRev)}
	if cfg.picoclaw != "" {
		hosts = append(hosts, picoclawHost(cfg.picoclaw, cfg.picoclawRev))
	}
	if cfg.xbot != "" {
		hosts = append(hosts, xbotHost(cfg.xbot, cfg.xbotRev))
	}
	p, err := newProvider()
	if err != nil {
		return nil, err
	}
	defer p.Close()
	res := &result{cfg: cfg, hosts: hosts, builtins: map[string]int{}, offered: map[string][]int{}, warmTurns: map[string][]int{}, side: map[string][]int{},
		values: map[string]map[string][]float64{}}
	m := &measurer{p: p, res: res, cfg: cfg, extra: map[string]int{}}

	for _, h := range hosts {
		// Count the built-in tools: a fresh home, no extra tools.
		if err := m.setup(h, "calibrate", 0); err != nil {
			return nil, err
		}
		start := time.Now()
		marker := m.marker()
		if _, out, err := runOnceEnv(h, h.oneShotEnv(h, "calibrate"), h.oneShot("Just say hello. "+marker, "calibrate")...); err != nil {
			return nil, err
		} else if !strings.Contains(out, "answer "+marker) {
			return nil, fmt.Errorf("%s: calibration turn did not print the answer:\n%s", h.name, tail(out))
		}
		builtin := 0
		for _, q := range m.settled(start) {
			builtin = max(builtin, len(q.Tools))
		}
		res.builtins[h.name] = builtin
		extra := cfg.tools - builtin
		if extra < 1 {
			return nil, fmt.Errorf("%s offers %d built-in tools, not fewer than -tools %d", h.name, builtin, cfg.tools)
		}
		fmt.Fprintf(cfg.log, "%s: %d built-in tools, adding %d\n", h.name, builtin, extra)
		if h.tty {
			// A terminal UI gets a home of its own, so what it leaves
			// behind (it is killed, not quit) does not reach the one-shot
			// turns.
			tui := *h
			if err := m.setup(&tui, "tui", extra); err != nil {
				return nil, err
			}
			h.tui = &tui
		}
		if err := m.setup(h, "measure", extra); err != nil {
			return nil, err
		}
		m.extra[h.name] = extra
	}

	for r := range cfg.rounds {
		for j := range hosts {
			h := hosts[(j+r)%len(hosts)]
			fmt.Fprintf(cfg.log, "round %d: %s\n", r+1, h.name)
			if err := m.round(h, r); err != nil {
				return nil, err
			}
		}
	}
	return res, nil
}

type measurer struct {
	p     *provider
	res   *result
	cfg   config
	n     int
	extra map[string]int
}

// settled returns the requests of a turn that started at start, once
// the provider has recorded them all: a host may print its answer, or
// even exit, before the provider's handler has returned. A turn that
// printed its answer made at least one request.
func (m *measurer) settled(start time.Time) []request {
	reqs, idle := m.p.since(start)
	for len(reqs) == 0 || !idle {
		time.Sleep(100 * time.Microsecond)
		reqs, idle = m.p.since(start)
	}
	return reqs
}

func (m *measurer) marker() string {
	m.n++
	return fmt.Sprintf("M%dx", m.n)
}

// setup gives h a fresh home named for what it is for, with extra tools.
func (m *measurer) setup(h *host, what string, extra int) error {
	h.home = filepath.Join(m.cfg.dir, h.name+"-"+what)
	if err := os.MkdirAll(h.home, 0o755); err != nil {
		return err
	}
	if err := h.configure(h, m.p.URL(), m.cfg.self, extra); err != nil {
		return fmt.Errorf("configuring %s: %w", h.name, err)
	}
	return nil
}

// check records the tool counts of a measured turn's requests. Each
// request must offer all the tools, except a host's side requests (a
// title, a summary: they offer another list, or none), which are counted
// apart; at least one must offer all.
func (m *measurer) check(h *host, reqs []request) error {
	full := 0
	for _, q := range reqs {
		if q.Err != "" {
			return fmt.Errorf("%s: bad request: %s", h.name, q.Err)
		}
		if len(q.Tools) == m.cfg.tools {
			full++
			m.res.offered[h.name] = append(m.res.offered[h.name], len(q.Tools))
		} else {
			m.res.side[h.name] = append(m.res.side[h.name], len(q.Tools))
		}
	}
	if full == 0 {
		counts := make([]int, len(reqs))
		for i, q := range reqs {
			counts[i] = len(q.Tools)
		}
		return fmt.Errorf("%s: no request of the turn offered %d tools (tools per request: %v)", h.name, m.cfg.tools, counts)
	}
	return nil
}

func providerTime(reqs []request) time.Duration {
	var d time.Duration
	for _, q := range reqs {
		d += q.End.Sub(q.Start)
	}
	return d
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// round measures h once: a one-shot tool turn, then answer-only turns
// and idle memory in an interactive process.
func (m *measurer) round(h *host, r int) error {
	// The tool to call: one of the extra tools, so the call crosses the
	// host's plugin or MCP boundary.
	k := min(7, m.extra[h.name]-1)
	marker := m.marker()
	start := time.Now()
	session := fmt.Sprintf("oneshot%d", r)
	wall, out, err := runOnceEnv(h, h.oneShotEnv(h, session),
		h.oneShot(fmt.Sprintf("Please call tool%d once and tell me what it returns. %s", k, marker), session)...)
	if err != nil {
		return err
	}
	reqs := m.settled(start)
	if err := m.check(h, reqs); err != nil {
		return err
	}
	called, answered := false, false
	var results []string
	for _, q := range reqs {
		called = called || q.ToolCall != ""
		answered = answered || strings.Contains(q.ToolResult, toolOutput(k))
		if q.ToolResult != "" {
			results = append(results, q.ToolResult)
		}
	}
	if !called || !answered || !strings.Contains(out, "answer "+marker) {
		return fmt.Errorf("%s: the one-shot tool turn did not complete (tool called %v, tool results sent %q):\n%s",
			h.name, called, results, tail(out))
	}
	m.res.add(h.name, mOneShot, ms(wall))
	m.res.add(h.name, mOneShotH, ms(wall-providerTime(reqs)-toolDelay))
	first := reqs[slices.IndexFunc(reqs, func(q request) bool { return len(q.Tools) == m.cfg.tools })]
	m.res.add(h.name, mReqBytes, float64(first.Bytes)/1024)
	m.res.add(h.name, mToolBytes, float64(first.ToolBytes)/1024)
	m.res.add(h.name, mReqTokens, float64(first.Bytes)/4)
	sent := 0
	for _, q := range reqs {
		sent += q.Bytes
	}
	m.res.add(h.name, mTurnReqs, float64(len(reqs)))
	m.res.add(h.name, mTurnBytes, float64(sent)/1024)

	if h.interactive == nil {
		return nil
	}
	ih := h
	if h.tui != nil {
		ih = h.tui
	}
	s, err := startSession(ih, h.interactive(fmt.Sprintf("chat%d", r))...)
	if err != nil {
		return err
	}
	defer s.close()
	// Idle at start: two seconds after the process started, before any
	// turn (a terminal UI is still started by then; a host's tool servers
	// may not be).
	time.Sleep(2 * time.Second)
	self, tree, err := s.rss()
	if err != nil {
		return err
	}
	m.res.add(h.name, mRSS0, float64(self)/(1<<20))
	m.res.add(h.name, mRSSTree0, float64(tree)/(1<<20))
	if h.tty {
		return nil
	}
	turn := func() (time.Duration, []request, error) {
		marker := m.marker()
		start := time.Now()
		wall, err := s.turn("Just say hello. "+marker, "answer "+marker)
		if err != nil {
			return 0, nil, err
		}
		return wall, m.settled(start), nil
	}
	// Warm-up turns, not measured, until the host offers all its tools: a
	// host may answer before its tool servers have registered (Hearth's
	// chat does not wait for its child plugins), as a user typing would
	// not notice. How many it took is reported.
	warm := 0
	for {
		_, reqs, err := turn()
		if err != nil {
			return err
		}
		warm++
		if slices.ContainsFunc(reqs, func(q request) bool { return len(q.Tools) == m.cfg.tools }) {
			break
		}
		if warm == 100 {
			return fmt.Errorf("%s: still not %d tools offered after %d turns", h.name, m.cfg.tools, warm)
		}
		time.Sleep(100 * time.Millisecond)
	}
	m.res.warmTurns[h.name] = append(m.res.warmTurns[h.name], warm)
	var hostTimes []float64
	for range m.cfg.turns {
		wall, reqs, err := turn()
		if err != nil {
			return err
		}
		if err := m.check(h, reqs); err != nil {
			return err
		}
		hostTimes = append(hostTimes, ms(wall-providerTime(reqs)))
	}
	m.res.add(h.name, mAnswer, median(hostTimes))
	time.Sleep(time.Second) // idle
	self, tree, err = s.rss()
	if err != nil {
		return err
	}
	m.res.add(h.name, mRSS, float64(self)/(1<<20))
	m.res.add(h.name, mRSSTree, float64(tree)/(1<<20))
	return nil
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// print writes the table: per metric, each host's median and range over
// the rounds, and its ratio to Hearth's median.
func (r *result) print(w io.Writer) {
	fmt.Fprintf(w, "%d tools offered by each host, %d rounds, %d answer-only turns a round\n\n", r.cfg.tools, r.cfg.rounds, r.cfg.turns)
	for _, h := range r.hosts {
		seen := slices.Compact(slices.Sorted(slices.Values(r.offered[h.name])))
		side := slices.Compact(slices.Sorted(slices.Values(r.side[h.name])))
		fmt.Fprintf(w, "%-9s %s; %d built-in tools + %d added; tools per measured request: %v (%d requests); %d side requests (tools offered: %v); warm-up turns a round: %v\n",
			h.name, h.rev, r.builtins[h.name], r.cfg.tools-r.builtins[h.name], seen, len(r.offered[h.name]),
			len(r.side[h.name]), side, r.warmTurns[h.name])
	}
	fmt.Fprintf(w, "\n| %s |", "median (min–max) of the rounds")
	for _, h := range r.hosts {
		fmt.Fprintf(w, " %s |", h.name)
	}
	fmt.Fprint(w, "\n|---|")
	for range r.hosts {
		fmt.Fprint(w, "---|")
	}
	fmt.Fprintln(w)
	for _, metric := range metricOrder {
		base := median(r.values["hearth"][metric])
		fmt.Fprintf(w, "| %s |", metric)
		for _, h := range r.hosts {
			v := r.values[h.name][metric]
			if len(v) == 0 {
				fmt.Fprint(w, " n/a |")
				continue
			}
			med := median(v)
			ratio := ""
			if base > 0 {
				ratio = fmt.Sprintf(" ×%.2f", med/base)
			}
			fmt.Fprintf(w, " %s (%s–%s)%s |", num(med), num(slices.Min(v)), num(slices.Max(v)), ratio)
		}
		fmt.Fprintln(w)
	}
}

func num(v float64) string {
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	default:
		return fmt.Sprintf("%.2f", v)
	}
}
