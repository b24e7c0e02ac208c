package main

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// hearthBinary builds Hearth's binary for the test.
func hearthBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "hearth")
	if _, err := buildHearth(bin); err != nil {
		t.Fatal(err)
	}
	return bin
}

// The harness against Hearth alone, small, so it cannot rot: one round
// with two answer-only turns and 8 tools (the built-in ones and a child
// plugin served by this test binary). Every measured request must have
// offered exactly 8 tools, the tool must have run, and every metric must
// have a value. The peers are optional inputs (HEARTH_PEERS_PICOCLAW,
// HEARTH_PEERS_XBOT), measured too when given.
func TestHearthAlone(t *testing.T) {
	cfg := config{
		hearth: hearthBinary(t), tools: 8, rounds: 1, turns: 2,
		picoclaw: os.Getenv("HEARTH_PEERS_PICOCLAW"), xbot: os.Getenv("HEARTH_PEERS_XBOT"),
		self: os.Args[0], dir: t.TempDir(), log: io.Discard,
	}
	res, err := run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range res.hosts {
		if len(res.offered[h.name]) < 3 { // two answer-only turns and the tool turn's two requests
			t.Errorf("%s: %d measured requests", h.name, len(res.offered[h.name]))
		}
		for _, n := range res.offered[h.name] {
			if n != 8 {
				t.Errorf("%s: a request offered %d tools", h.name, n)
			}
		}
		for _, metric := range metricOrder {
			if h.tty && (metric == mAnswer || metric == mRSS || metric == mRSSTree) {
				continue // a terminal UI's turns are not driven
			}
			if v := res.values[h.name][metric]; len(v) != 1 || v[0] <= 0 {
				t.Errorf("%s: %s = %v", h.name, metric, v)
			}
		}
	}
	var out bytes.Buffer
	res.print(&out)
	if !strings.Contains(out.String(), "| host time per answer-only turn (ms) | ") ||
		!strings.Contains(out.String(), "×1.00") {
		t.Errorf("table:\n%s", out.String())
	}
}

// A host binary that does not exist fails the run with its name.
func TestMissingHost(t *testing.T) {
	cfg := config{hearth: filepath.Join(t.TempDir(), "no-such-hearth"), tools: 8, rounds: 1, turns: 1,
		self: os.Args[0], dir: t.TempDir(), log: io.Discard}
	if _, err := run(cfg); err == nil || !strings.Contains(err.Error(), "no-such-hearth") {
		t.Fatalf("run with a missing binary: %v", err)
	}
}

// The provider follows its script from the request alone and records
// what it could not follow.
func TestProviderScript(t *testing.T) {
	p, err := newProvider()
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	post := func(body string) string {
		resp, err := http.Post(p.URL()+"/chat/completions", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	tools := `[{"type":"function","function":{"name":"x__tool17"}},{"type":"function","function":{"name":"x__tool7"}}]`
	if out := post(`{"stream":true,"tools":` + tools + `,"messages":[{"role":"user","content":"call tool7 M1x"}]}`); !strings.Contains(out, `"name":"x__tool7"`) {
		t.Errorf("tool call: %s", out)
	}
	if out := post(`{"tools":` + tools + `,"messages":[{"role":"user","content":[{"type":"text","text":"call tool7 M2x"}]},` +
		`{"role":"assistant","content":null},{"role":"tool","content":"tool 7 ran"}]}`); !strings.Contains(out, `"answer M2x"`) {
		t.Errorf("answer after the tool result: %s", out)
	}
	post(`{"stream":true,"tools":[],"messages":[{"role":"user","content":"call tool3 M3x"}]}`)
	post(`not json`)
	// A response may reach the client before its handler has recorded it.
	reqs, idle := p.since(time.Time{})
	for !idle || len(reqs) < 4 {
		time.Sleep(time.Millisecond)
		reqs, idle = p.since(time.Time{})
	}
	if len(reqs) != 4 {
		t.Fatalf("%d requests recorded", len(reqs))
	}
	if r := reqs[0]; r.ToolCall != "x__tool7" || len(r.Tools) != 2 || r.Marker != "M1x" || r.ToolBytes == 0 || r.Err != "" {
		t.Errorf("first request: %+v", r)
	}
	if r := reqs[1]; r.ToolResult != "tool 7 ran" || r.ToolCall != "" {
		t.Errorf("second request: %+v", r)
	}
	if r := reqs[2]; r.ToolCall != "" || r.Wanted != "tool3" || r.Err != "" {
		t.Errorf("a call of a tool not offered: %+v", r)
	}
	if r := reqs[3]; r.Err == "" {
		t.Errorf("a body not JSON: %+v", r)
	}
}
