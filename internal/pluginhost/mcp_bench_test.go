package pluginhost

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hearth-agent/hearth/internal/config"
	"github.com/hearth-agent/hearth/internal/kernel"
	"github.com/hearth-agent/hearth/internal/llm"
	"github.com/hearth-agent/hearth/internal/policy"
	"github.com/hearth-agent/hearth/internal/store"
)

// mcpEchoArg makes this test binary an MCP server on the official Go SDK
// over stdio, with one tool "echo" that returns its "msg".
const mcpEchoArg = "__hearth-test-mcp-echo"

// The benchmark's MCP server starts before TestMain: it must not run the
// shim's or the tests' setup. The shim (argv[1] is its own marker) runs
// this binary again with mcpEchoArg.
func init() {
	if len(os.Args) == 2 && os.Args[1] == mcpEchoArg {
		serveMCPEcho()
		os.Exit(0)
	}
}

// mcpEchoIn is the echo tool's input and output.
type mcpEchoIn struct {
	Msg string `json:"msg"`
}

func serveMCPEcho() {
	s := mcp.NewServer(&mcp.Implementation{Name: "echo", Version: "1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "echo"},
		func(_ context.Context, _ *mcp.CallToolRequest, in mcpEchoIn) (*mcp.CallToolResult, mcpEchoIn, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Msg}}}, in, nil
		})
	_ = s.Run(context.Background(), &mcp.StdioTransport{})
}

// everythingJS returns server-everything's entry point, installed by
// .ci/run into testdata/mcp; without it the benchmark skips, except in CI.
func everythingJS(b *testing.B) string {
	b.Helper()
	js, _ := filepath.Abs("../../testdata/mcp/node_modules/@modelcontextprotocol/server-everything/dist/index.js")
	_, nodeErr := exec.LookPath("node")
	if _, err := os.Stat(js); err != nil || nodeErr != nil {
		if os.Getenv("CI") != "" {
			b.Fatalf("node or testdata/mcp/node_modules is missing: .ci/run should have run `npm ci --prefix testdata/mcp` (%v, %v)", err, nodeErr)
		}
		b.Skip("run `npm ci --prefix testdata/mcp --no-audit --no-fund` (with Node.js) to benchmark a Node MCP server")
	}
	return js
}

// mcpBenchServer is one MCP server the benchmark calls: how to run it
// and what its echo tool takes.
type mcpBenchServer struct {
	name    string
	command func(b *testing.B) (string, []string)
	args    map[string]any // of the echo tool
	want    string         // in its answer
}

var mcpBenchServers = []mcpBenchServer{
	{
		name:    "go",
		command: func(*testing.B) (string, []string) { return os.Args[0], []string{mcpEchoArg} },
		args:    map[string]any{"msg": "你好, hearth"},
		want:    "你好, hearth",
	},
	{
		name: "node-everything",
		command: func(b *testing.B) (string, []string) {
			node, _ := exec.LookPath("node")
			return node, []string{everythingJS(b), "stdio"}
		},
		args: map[string]any{"message": "你好, hearth"},
		want: "Echo: 你好, hearth",
	},
}

// BenchmarkMCPToolCall makes one echo tool call to an MCP server in a
// child process (a Go server on the official SDK, and the Node
// server-everything): directly with the official Go SDK client, and
// through Hearth (the server in config.json's mcpServers, started by the
// plugin manager, its tool called as the kernel's registry has it: the
// MCP runtime, its argument and result conversion). The difference is what
// Hearth adds to a call. The "both" runs alternate one call each way, so
// the drift of a shared machine falls on both alike, and report each
// one's time per call and their ratio; docs/benchmarks.md has the numbers.
func BenchmarkMCPToolCall(b *testing.B) {
	for _, srv := range mcpBenchServers {
		b.Run(srv.name+"/direct", func(b *testing.B) {
			call := setupMCPDirect(b, srv)
			for b.Loop() {
				call()
			}
		})
		b.Run(srv.name+"/hearth", func(b *testing.B) {
			call := setupMCPHearth(b, srv)
			for b.Loop() {
				call()
			}
		})
		b.Run(srv.name+"/both", func(b *testing.B) {
			direct, hearth := setupMCPDirect(b, srv), setupMCPHearth(b, srv)
			var td, th time.Duration
			for b.Loop() {
				t0 := time.Now()
				direct()
				t1 := time.Now()
				hearth()
				th += time.Since(t1)
				td += t1.Sub(t0)
			}
			n := float64(b.N)
			b.ReportMetric(float64(td.Microseconds())/n, "direct-µs/call")
			b.ReportMetric(float64(th.Microseconds())/n, "hearth-µs/call")
			b.ReportMetric(float64(th)/float64(td), "hearth/direct")
		})
	}
}

// setupMCPDirect starts srv with the official Go SDK client and returns
// a function making one echo call; the session ends with the benchmark.
func setupMCPDirect(b *testing.B, srv mcpBenchServer) func() {
	name, args := srv.command(b)
	// No roots: with them server-everything outlives its stdin, and the
	// SDK's Close waits 5 s before it terminates the server.
	c := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1.0.0"}, &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}})
	cs, err := c.Connect(context.Background(), &mcp.CommandTransport{Command: exec.Command(name, args...)}, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cs.Close() })
	call := func() string {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: srv.args})
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Content) == 0 {
			b.Fatalf("empty result")
		}
		t, _ := res.Content[0].(*mcp.TextContent)
		if t == nil {
			b.Fatalf("result %+v", res.Content[0])
		}
		return t.Text
	}
	if got := call(); !strings.Contains(got, srv.want) {
		b.Fatalf("echo answered %q", got)
	}
	return func() { call() }
}

// newMCPBenchManager returns a kernel and a plugin manager on it, with
// no plugins yet; they stop when the benchmark ends.
func newMCPBenchManager(b *testing.B) (*kernel.Kernel, *Manager) {
	log := slog.New(slog.DiscardHandler)
	src, err := llm.NewSources([]llm.Source{{Name: "main", BaseURL: "http://127.0.0.1:1"}}, "main") // never asked
	if err != nil {
		b.Fatal(err)
	}
	eng, err := policy.NewEngine(context.Background(), policy.DiscardStore{}, log)
	if err != nil {
		b.Fatal(err)
	}
	k := kernel.New(src, nil, &kernel.Options{Logger: log, Policy: eng})
	b.Cleanup(func() { k.Close() })
	opts := Options{Host: k, LLM: src, Log: log, DataDir: b.TempDir(), HandshakeTimeout: 20 * time.Second} // the stop's grace periods as in production
	st, err := store.Open(context.Background(), b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	m := NewManager(b.TempDir(), st, &opts)
	b.Cleanup(m.Close)
	return k, m
}

// setupMCPHearth starts srv as config.json's MCP server "bench" under a
// plugin manager and returns a function making one call of its echo
// tool through the kernel's registry; all of it stops with the benchmark.
func setupMCPHearth(b *testing.B, srv mcpBenchServer) func() {
	name, args := srv.command(b)
	k, m := newMCPBenchManager(b)
	m.SetMCPServers(map[string]config.MCPServer{"bench": {Command: name, Args: args}})
	if err := m.Scan(context.Background()); err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	m.WaitReady(ctx)
	in, _ := json.Marshal(srv.args)
	tool := MCPPluginName("bench") + "__echo"
	if r := callTool(k, tool, string(in)); r.IsError || !strings.Contains(r.Content, srv.want) {
		b.Fatalf("%s answered %+v", tool, r)
	}
	return func() {
		if r := callTool(k, tool, string(in)); r.IsError {
			b.Fatalf("%s answered %+v", tool, r)
		}
	}
}

// BenchmarkMCPServerStop measures how long stopping a running stdio MCP
// server takes: server-everything, to which Hearth's client declares
// roots, keeps running after its stdin closes once it has asked for them,
// so the stop must not wait for it to leave on its own. Each iteration
// starts the server through the plugin manager, calls get-roots-list (so
// the roots were asked for), and times only the Scan that stops it once
// config.json no longer names it.
func BenchmarkMCPServerStop(b *testing.B) {
	node, _ := exec.LookPath("node")
	cfg := map[string]config.MCPServer{"bench": {Command: node, Args: []string{everythingJS(b), "stdio"}}}
	k, m := newMCPBenchManager(b)
	var total time.Duration
	for b.Loop() {
		b.StopTimer()
		m.SetMCPServers(cfg)
		if err := m.Scan(context.Background()); err != nil {
			b.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		m.WaitReady(ctx)
		cancel()
		if r := callTool(k, "mcp-bench__get-roots-list", "{}"); r.IsError {
			b.Fatalf("get-roots-list: %+v", r)
		}
		m.SetMCPServers(nil)
		b.StartTimer()
		t0 := time.Now()
		if err := m.Scan(context.Background()); err != nil {
			b.Fatal(err)
		}
		total += time.Since(t0)
	}
	b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "stop-ms")
}
