// Package bench measures one echo tool call through each plugin transport,
// side by side with the peers: in process, a Go child plugin over the Hearth
// protocol, a raw pipe ping-pong between two processes (the floor), the
// official MCP Go SDK over stdio, and hashicorp/go-plugin (net/rpc). It is
// its own module so Hearth does not depend on the peers.
//
//	cd bench && go test -run '^$' -bench . -benchtime 3s
//
// Each benchmark reports sequential p50/p99 latency (µs) and, in its /par16
// variant, calls per second with 16 concurrent callers.
package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/rpc"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hearth-agent/hearth/internal/kernel"
	"github.com/hearth-agent/hearth/internal/pluginhost"
	"github.com/hearth-agent/hearth/internal/tools"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/pluginrpc"
	"github.com/hearth-agent/hearth/sdk/toolcall"
)

const payload = `{"msg":"你好, hearth"}`

func TestMain(m *testing.M) {
	switch os.Getenv("BENCH_CHILD") {
	case "raw":
		serveRaw()
	case "hearth":
		if path := os.Getenv("BENCH_CHILD_PROFILE"); path != "" {
			serveProfiled(path)
		}
		pluginrpc.Serve(newEcho)
	case "mcp":
		serveMCP()
	case "conn":
		serveConn()
	case "goplugin":
		serveGoPlugin()
	case "goplugingrpc":
		serveGoPluginGRPC()
	}
	os.Exit(m.Run())
}

// --- the echo tool ---------------------------------------------------------

type EchoIn struct {
	Msg string `json:"msg"`
}

type echoPlugin struct{ name string }

func newEcho(name string, _ map[string]any) (sdk.Plugin, error) {
	return &echoPlugin{name}, nil
}
func (p *echoPlugin) Name() string { return p.name }
func (p *echoPlugin) Stop() error  { return nil }
func (p *echoPlugin) Start(s *sdk.PluginSDK) error {
	return sdk.AddTool(s, sdk.ToolDef{Name: "echo", Effect: sdk.EffectRead},
		func(_ context.Context, _ *sdk.ToolContext, in EchoIn) (EchoIn, error) { return in, nil })
}

// caller is one transport's way to make a call.
type caller func(ctx context.Context) error

// setup starts one transport and returns its call and its cleanup.
type setup func(b *testing.B) (caller, func())

// run measures one transport alone: sequential latency and throughput
// with 16 callers. BenchmarkSideBySide measures them all interleaved,
// which is what the ratios come from.
func run(b *testing.B, s setup) {
	call, done := s(b)
	defer done()
	ctx := context.Background()
	b.Run("seq", func(b *testing.B) {
		lat := make([]time.Duration, 0, b.N)
		for b.Loop() {
			start := time.Now()
			if err := call(ctx); err != nil {
				b.Fatal(err)
			}
			lat = append(lat, time.Since(start))
		}
		slices.Sort(lat)
		b.ReportMetric(micros(percentile(lat, 50)), "p50-µs")
		b.ReportMetric(micros(percentile(lat, 99)), "p99-µs")
	})
	b.Run("par16", func(b *testing.B) {
		d := parallel(b, call, b.N)
		b.ReportMetric(float64(b.N)/d.Seconds(), "calls/s")
	})
}

// parallel makes n calls from 16 goroutines and returns how long it took.
func parallel(b *testing.B, call caller, n int) time.Duration {
	ctx := context.Background()
	start := time.Now()
	var wg sync.WaitGroup
	next := make(chan struct{})
	for w := 0; w < 16; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range next {
				if err := call(ctx); err != nil {
					b.Error(err)
				}
			}
		}()
	}
	for i := 0; i < n; i++ {
		next <- struct{}{}
	}
	close(next)
	wg.Wait()
	return time.Since(start)
}

func percentile(sorted []time.Duration, p int) time.Duration {
	return sorted[(len(sorted)-1)*p/100]
}

func micros(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }

func child(mode string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "BENCH_CHILD="+mode)
	cmd.Stderr = os.Stderr
	return cmd
}

// --- (a) in process ---------------------------------------------------------

func setupInProcess(b *testing.B) (caller, func()) {
	k := echoKernel(b)
	return kernelCaller(k), func() { k.Close() }
}

// echoKernel is a kernel with the echo plugin compiled in.
func echoKernel(b *testing.B) *kernel.Kernel {
	k := kernel.New(nil, nil, &kernel.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err := k.LoadPlugin("echo", newEcho, nil); err != nil {
		b.Fatal(err)
	}
	return k
}

// kernelCaller calls the echo tool as a turn does between its stages and
// its policy (which are the same for every transport; the kernel's
// BenchmarkToolCallPath measures them): toolcall.Tool.Call, decoding and
// validating the arguments and invoking the handler with a deadline.
func kernelCaller(k *kernel.Kernel) caller {
	tc := &sdk.ToolContext{Actor: sdk.ActorAgent}
	lookup := sync.OnceValues(func() (*tools.Tool, bool) { return k.Tools().Lookup("echo__echo") })
	return func(ctx context.Context) error {
		tool, ok := lookup()
		if !ok {
			return fmt.Errorf("no tool echo__echo")
		}
		if r := tool.Call(ctx, tc, json.RawMessage(payload)); r.IsError {
			return fmt.Errorf("%s", r.Content)
		}
		return nil
	}
}

func BenchmarkEchoInProcess(b *testing.B) { run(b, setupInProcess) }

// setupInProcessFloor is the floor of the in-process call: what any host
// must do with the same call, nothing else. The model's argument text is
// decoded and checked against the tool's schema, decoded into the
// handler's type, and its answer encoded for the model; no lookup, no
// deadline, no goroutine, no panic guard.
func setupInProcessFloor(b *testing.B) (caller, func()) {
	k := echoKernel(b)
	tool, ok := k.Tools().Lookup("echo__echo")
	if !ok {
		b.Fatal("no tool echo__echo")
	}
	return func(context.Context) error {
		args, raw, err := toolcall.DecodeArguments(json.RawMessage(payload))
		if err != nil {
			return err
		}
		if err := tool.Validate(args); err != nil {
			return err
		}
		var in EchoIn
		if err := jsonv2.Unmarshal(raw, &in); err != nil {
			return err
		}
		if r := toolcall.Encode(in); r.IsError {
			return fmt.Errorf("%s", r.Content)
		}
		return nil
	}, func() { k.Close() }
}

// --- (b) a Go child plugin over the Hearth protocol -------------------------

func setupHearthChild(b *testing.B) (caller, func()) {
	k := kernel.New(nil, nil, &kernel.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	dir := b.TempDir()
	env := map[string]string{"BENCH_CHILD": "hearth"}
	if p := os.Getenv("BENCH_CHILD_PROFILE"); p != "" {
		env["BENCH_CHILD_PROFILE"] = p
	}
	m := map[string]any{"id": "echo", "command": []string{os.Args[0], "-test.run=^$"}, "env": env}
	raw, _ := json.Marshal(m)
	if err := os.WriteFile(filepath.Join(dir, pluginhost.ManifestFile), raw, 0o644); err != nil {
		b.Fatal(err)
	}
	p, err := pluginhost.Start(dir, &pluginhost.Options{Host: k, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), DataDir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := p.WaitReady(ctx); err != nil {
		b.Fatal(err)
	}
	return kernelCaller(k), func() { p.Stop(); k.Close() }
}

func BenchmarkEchoHearthChild(b *testing.B) { run(b, setupHearthChild) }

// --- (c) raw pipe ping-pong, multiplexed by id (the floor) ------------------

func serveRaw() {
	in := bufio.NewReader(os.Stdin)
	out := bufio.NewWriter(os.Stdout)
	for {
		line, err := in.ReadBytes('\n')
		if err != nil {
			os.Exit(0)
		}
		out.Write(line)
		if in.Buffered() == 0 {
			out.Flush()
		}
	}
}

type rawPipe struct {
	w       io.Writer
	mu      sync.Mutex
	nextID  int
	pending map[string]chan string
}

func setupRawPipe(b *testing.B) (caller, func()) {
	cmd := child("raw")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	rp := &rawPipe{w: stdin, pending: map[string]chan string{}}
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			id, rest, _ := strings.Cut(sc.Text(), " ")
			rp.mu.Lock()
			ch := rp.pending[id]
			delete(rp.pending, id)
			rp.mu.Unlock()
			if ch != nil {
				ch <- rest
			}
		}
	}()
	return func(ctx context.Context) error {
		ch := make(chan string, 1)
		rp.mu.Lock()
		rp.nextID++
		id := strconv.Itoa(rp.nextID)
		rp.pending[id] = ch
		_, err := io.WriteString(rp.w, id+" "+payload+"\n")
		rp.mu.Unlock()
		if err != nil {
			return err
		}
		if got := <-ch; got != payload {
			return fmt.Errorf("echo %q", got)
		}
		return nil
	}, func() { stdin.Close(); cmd.Wait() }
}

func BenchmarkEchoRawPipe(b *testing.B) { run(b, setupRawPipe) }

// --- (d) the official MCP Go SDK over stdio ---------------------------------

func serveMCP() {
	s := mcp.NewServer(&mcp.Implementation{Name: "echo", Version: "1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "echo"},
		func(_ context.Context, _ *mcp.CallToolRequest, in EchoIn) (*mcp.CallToolResult, EchoIn, error) {
			return nil, in, nil
		})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		os.Exit(1)
	}
	os.Exit(0)
}

func setupMCP(b *testing.B) (caller, func()) {
	c := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1.0.0"}, nil)
	session, err := c.Connect(context.Background(), &mcp.CommandTransport{Command: child("mcp")}, nil)
	if err != nil {
		b.Fatal(err)
	}
	return func(ctx context.Context) error {
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"msg": "你好, hearth"}})
		if err != nil {
			return err
		}
		if res.IsError {
			return fmt.Errorf("tool error")
		}
		return nil
	}, func() { session.Close() }
}

func BenchmarkEchoMCP(b *testing.B) { run(b, setupMCP) }

// --- (e) hashicorp/go-plugin (net/rpc) --------------------------------------

var handshake = plugin.HandshakeConfig{ProtocolVersion: 1, MagicCookieKey: "HEARTH_BENCH", MagicCookieValue: "echo"}

// Echoer is the go-plugin interface.
type Echoer interface{ Echo(in EchoIn) EchoIn }

type echoImpl struct{}

func (echoImpl) Echo(in EchoIn) EchoIn { return in }

type EchoRPCServer struct{ Impl Echoer }

func (s *EchoRPCServer) Echo(in EchoIn, out *EchoIn) error { *out = s.Impl.Echo(in); return nil }

type echoRPCClient struct{ c *rpc.Client }

func (e *echoRPCClient) Echo(in EchoIn) EchoIn {
	var out EchoIn
	if err := e.c.Call("Plugin.Echo", in, &out); err != nil {
		panic(err)
	}
	return out
}

type echoPluginDef struct{ Impl Echoer }

func (p *echoPluginDef) Server(*plugin.MuxBroker) (any, error) {
	return &EchoRPCServer{Impl: p.Impl}, nil
}

func (p *echoPluginDef) Client(_ *plugin.MuxBroker, c *rpc.Client) (any, error) {
	return &echoRPCClient{c: c}, nil
}

func serveGoPlugin() {
	plugin.Serve(&plugin.ServeConfig{HandshakeConfig: handshake, Plugins: map[string]plugin.Plugin{"echo": &echoPluginDef{Impl: echoImpl{}}}})
	os.Exit(0)
}

// dispense starts a go-plugin child speaking protocol and returns its
// "echo" plugin and the client that stops it.
func dispense(b *testing.B, cmd *exec.Cmd, def plugin.Plugin, protocol plugin.Protocol) (any, *plugin.Client) {
	client := plugin.NewClient(&plugin.ClientConfig{
		HandshakeConfig: handshake, Plugins: map[string]plugin.Plugin{"echo": def},
		Cmd: cmd, AllowedProtocols: []plugin.Protocol{protocol}, Logger: hclog.NewNullLogger(),
	})
	rpcClient, err := client.Client()
	if err != nil {
		client.Kill()
		b.Fatal(err)
	}
	raw, err := rpcClient.Dispense("echo")
	if err != nil {
		client.Kill()
		b.Fatal(err)
	}
	return raw, client
}

func goPluginCmd() *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "BENCH_CHILD=goplugin")
	return cmd // go-plugin sets its own stderr
}

func setupGoPlugin(b *testing.B) (caller, func()) {
	raw, client := dispense(b, goPluginCmd(), &echoPluginDef{}, plugin.ProtocolNetRPC)
	e := raw.(Echoer)
	return func(context.Context) error {
		if e.Echo(EchoIn{Msg: "你好, hearth"}).Msg == "" {
			return fmt.Errorf("empty echo")
		}
		return nil
	}, client.Kill
}

func BenchmarkEchoGoPlugin(b *testing.B) { run(b, setupGoPlugin) }
