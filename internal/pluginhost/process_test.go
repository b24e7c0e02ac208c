//go:build unix

package pluginhost

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/hearth-agent/hearth/internal/kernel"
	"github.com/hearth-agent/hearth/internal/llm"
	"github.com/hearth-agent/hearth/internal/policy"
	"github.com/hearth-agent/hearth/internal/tools"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/llmtest"
	"github.com/hearth-agent/hearth/sdk/toolcall"
)

// cleanups run after all tests (files that outlive one test's run).
var cleanups []func()

func TestMain(m *testing.M) {
	ShimMain() // plugins run under the shim, as in hearth
	// The children these tests start are this binary, built with -race
	// under the race detector, which sleeps a second before it exits;
	// they inherit GORACE (minimalEnv passes it), so they need not.
	os.Setenv("GORACE", strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
	runMCPChild(os.Getenv("HEARTH_TEST_MCP"))
	if mode := os.Getenv("HEARTH_TEST_CHILD"); mode != "" {
		runContainChild(mode)
		runChild(mode)
	}
	goleak.VerifyTestMain(m, goleak.Cleanup(func(code int) {
		for _, f := range cleanups {
			f()
		}
		os.Exit(code)
	}))
}

type fixture struct {
	k    *kernel.Kernel
	eng  *policy.Engine
	srv  *llmtest.Server
	logs *logBuf
	data string
	opts Options
}

func newFixture(t *testing.T, replies ...llmtest.Reply) *fixture {
	t.Helper()
	srv := llmtest.NewServer(t, replies...)
	logs := &logBuf{}
	log := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	src, _ := llm.NewSources([]llm.Source{{Name: "main", BaseURL: srv.URL}, {Name: "other", BaseURL: srv.URL}}, "main")
	eng, err := policy.NewEngine(context.Background(), policy.DiscardStore{}, log)
	if err != nil {
		t.Fatal(err)
	}
	eng.LocalChannels = append(eng.LocalChannels, "test") // the owner speaks on "test"
	k := kernel.New(src, nil, &kernel.Options{Logger: log, Policy: eng})
	t.Cleanup(func() { k.Close() })
	f := &fixture{k: k, eng: eng, srv: srv, logs: logs, data: t.TempDir()}
	f.opts = Options{Host: k, LLM: src, Log: log, DataDir: f.data, BackoffMin: 20 * time.Millisecond, BackoffMax: 200 * time.Millisecond,
		GracePeriod: time.Second, HandshakeTimeout: 20 * time.Second}
	return f
}

// pluginDir writes a plugin folder whose command re-executes this test
// binary in the given child mode.
func pluginDir(t *testing.T, id, mode string, capabilities ...string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), id)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	m := Manifest{ID: id, Command: []string{os.Args[0]}, Env: map[string]string{"HEARTH_TEST_CHILD": mode}, Capabilities: capabilities}
	b, _ := json.Marshal(m)
	if err := os.WriteFile(filepath.Join(dir, ManifestFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func (f *fixture) start(t *testing.T, id, mode string, capabilities ...string) *Process {
	t.Helper()
	p, err := Start(pluginDir(t, id, mode, capabilities...), &f.opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Stop)
	return p
}

func ready(t *testing.T, p *Process) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := p.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) call(name, args string) (content string, isError bool) {
	r := callTool(f.k, name, args)
	return r.Content, r.IsError
}

// waitStatus waits, with a generous bound, until p's status satisfies
// cond, looking again at each change of it.
func waitStatus(t *testing.T, p *Process, what string, cond func(Status) bool) {
	t.Helper()
	timeout := time.NewTimer(30 * time.Second)
	defer timeout.Stop()
	for {
		st, changed := p.statusChange()
		if cond(st) {
			return
		}
		select {
		case <-changed:
		case <-timeout.C:
			t.Fatalf("never: %s (status %+v)", what, st)
		}
	}
}

// eventually polls cond with a generous bound, for what no event tells:
// another process's life, seen through /proc or the files it writes.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("never: %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestChildPluginToolsAndResults(t *testing.T) {
	f := newFixture(t)
	p := f.start(t, "child", "ok")
	ready(t, p)
	tests := []struct {
		tool, args, want string
		isError          bool
	}{
		{"child__echo", `{"city":"北京"}`, `{"actor":"agent","args":{"city":"北京"},"tool":"echo"}`, false},
		{"child__text", `{}`, `plain text`, false},
		{"child__iserr", `{}`, `{"content":"城市不存在","isError":true}`, true},
		{"child__fail", `{}`, `{"error":"broken on purpose"}`, true},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			got, isErr := f.call(tt.tool, tt.args)
			if got != tt.want || isErr != tt.isError {
				t.Errorf("%s: got (%s, %v), want (%s, %v)", tt.tool, got, isErr, tt.want, tt.isError)
			}
		})
	}
	// The environment is minimal: no host secrets.
	t.Setenv("OPENAI_API_KEY", "sk-host-secret")
	env, _ := f.call("child__env", `{}`)
	if strings.Contains(env, "sk-host-secret") || !strings.Contains(env, "HEARTH_PLUGIN_ID=child") {
		t.Fatalf("child env: %s", env)
	}
	// A capability group the manifest does not declare is refused, naming it.
	got, isErr := f.call("child__switch_source", `{}`)
	if !isErr || !strings.Contains(got, `add \"llm\" to \"capabilities\"`) {
		t.Fatalf("undeclared group: %s", got)
	}
}

func TestChildPluginCapabilityGroupAllowed(t *testing.T) {
	f := newFixture(t)
	p := f.start(t, "llmchild", "ok", "llm")
	ready(t, p)
	if got, isErr := f.call("llmchild__switch_source", `{}`); isErr {
		t.Fatalf("declared group refused: %s", got)
	}
}

func TestChildPluginStagesInjectionAndGracefulStop(t *testing.T) {
	f := newFixture(t, llmtest.Reply{Text: "answer"}, llmtest.Reply{Text: "injected answer"})
	p := f.start(t, "child", "ok", sdk.CapabilityInjectChannels)
	ready(t, p)
	out := f.k.Ask(context.Background(), kernel.Input{Injection: sdk.Injection{Channel: "test", Text: "hi"}})
	if out.Err != nil || out.Text != "answer" {
		t.Fatalf("%+v", out)
	}
	msgs := f.srv.Requests()[0].Messages
	if msgs[1]["content"] != "hi (seen by child)" || msgs[len(msgs)-1]["content"] != "from the child plugin" {
		t.Fatalf("stage writes lost: %v", msgs)
	}
	if !strings.Contains(f.logs.String(), "field=FinalText") {
		t.Fatal("a forbidden write by the child was not undone and logged")
	}

	got := make(chan sdk.Injection, 1)
	f.k.SetSink("childchan", func(in sdk.Injection, ev kernel.Event) {
		if ev.Kind == kernel.EventFinal {
			got <- in
		}
	})
	f.call("child__inject", `{}`)
	select {
	case in := <-got:
		if in.Source != "child" || in.Text != "hello from the child" {
			t.Fatalf("injection %+v", in)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("injected input never answered")
	}

	pid := p.Status().PID
	p.Stop()
	if _, err := os.Stat(filepath.Join(f.data, "plugin_data", "child", "stopped")); err != nil {
		t.Fatalf("stop handler did not run: %v", err)
	}
	if _, ok := f.k.Tools().Lookup("child__echo"); ok {
		t.Fatal("tools of a stopped plugin remain")
	}
	if alive(pid) {
		t.Fatal("plugin process still alive after Stop")
	}
	if p.Status().State != Stopped {
		t.Fatalf("state %s", p.Status().State)
	}
}

func alive(pid int) bool {
	return pid > 0 && syscall.Kill(pid, 0) == nil
}

func TestHungCallDoesNotBlockOtherCalls(t *testing.T) {
	f := newFixture(t)
	p := f.start(t, "child", "ok")
	ready(t, p)
	slept := make(chan string, 1)
	go func() { c, _ := f.call("child__sleep", `{}`); slept <- c }()
	for i := 0; i < 20; i++ {
		if got, isErr := f.call("child__echo", `{"i":1}`); isErr {
			t.Fatalf("echo failed while another call hangs: %s", got)
		}
	}
	if got := <-slept; !strings.Contains(got, "timed out") {
		t.Fatalf("hung call: %s", got)
	}
	eventually(t, "the child saw the cancellation", func() bool {
		_, err := os.Stat(filepath.Join(f.data, "plugin_data", "child", "cancelled"))
		return err == nil
	})
	if got, isErr := f.call("child__echo", `{}`); isErr || p.Status().Restarts != 0 {
		t.Fatalf("plugin disturbed: %s, restarts %d", got, p.Status().Restarts)
	}
}

func TestCrashMidCallRestarts(t *testing.T) {
	f := newFixture(t)
	p := f.start(t, "child", "ok")
	ready(t, p)
	got, isErr := f.call("child__crash", `{}`)
	if !isErr || !strings.Contains(got, "not running") {
		t.Fatalf("crashed call: %s", got)
	}
	waitStatus(t, p, "restarted", func(s Status) bool { return s.Restarts >= 1 })
	ready(t, p)
	if got, isErr := f.call("child__echo", `{}`); isErr {
		t.Fatalf("after restart: %s", got)
	}
	if !strings.Contains(p.Status().LastError, "exit status 3") {
		t.Fatalf("last error %q", p.Status().LastError)
	}
}

func TestCrashAtStartKeepsRetryingWithBackoff(t *testing.T) {
	f := newFixture(t)
	bad := f.start(t, "bad", "crash-start")
	good := f.start(t, "child", "ok")
	ready(t, good)
	waitStatus(t, bad, "several restarts", func(s Status) bool { return s.Restarts >= 3 })
	if st := bad.Status(); !strings.Contains(st.LastError, "exit status 2") {
		t.Fatalf("status %+v", st)
	}
	if got, isErr := f.call("child__echo", `{}`); isErr {
		t.Fatalf("a crashing plugin disturbed another: %s", got)
	}
}

func TestExitDuringHandshake(t *testing.T) {
	f := newFixture(t)
	p := f.start(t, "quitter", "exit-handshake")
	waitStatus(t, p, "a failed handshake", func(s Status) bool { return strings.Contains(s.LastError, "during the handshake") })
}

func TestNoHandshakeTimesOut(t *testing.T) {
	f := newFixture(t)
	f.opts.HandshakeTimeout = 200 * time.Millisecond
	p := f.start(t, "mute", "silent")
	waitStatus(t, p, "a handshake timeout", func(s Status) bool { return strings.Contains(s.LastError, "no handshake within") })
}

func TestWrongProtocolVersion(t *testing.T) {
	f := newFixture(t)
	p := f.start(t, "future", "wrong-version")
	waitStatus(t, p, "a version error", func(s Status) bool {
		return strings.Contains(s.LastError, "protocol version mismatch: the plugin speaks protocol version 2")
	})
}

func TestGarbageAndHugeLinesOnStdout(t *testing.T) {
	f := newFixture(t)
	p := f.start(t, "noisy", "garbage")
	ready(t, p)
	if got, isErr := f.call("noisy__echo", `{}`); isErr {
		t.Fatalf("%s", got)
	}
	logs := f.logs.String()
	if strings.Count(logs, "not a JSON-RPC 2.0 message") != 3 || !strings.Contains(logs, `line=xxxxxxxx`) {
		t.Fatalf("garbage not reported:\n%s", logs[:min(len(logs), 2000)])
	}
}

// Review 2 of issue 8: an answer over the protocol's limit fails its call
// at once, saying so, instead of leaving it to time out.
func TestAnswerTooLargeFailsTheCall(t *testing.T) {
	f := newFixture(t)
	p := f.start(t, "child", "ok")
	ready(t, p)
	got, isErr := f.call("child__huge", `{}`)
	if !isErr || !strings.Contains(got, "larger than 32 MiB") || strings.Contains(got, "timed out") {
		t.Fatalf("huge answer: %.300s", got)
	}
	if !strings.Contains(f.logs.String(), "discarded a message longer than the limit") {
		t.Fatal("not logged")
	}
	// The connection is fine: the next call gets its answer.
	if got, isErr := f.call("child__text", `{}`); isErr || got != "plain text" {
		t.Fatalf("after a huge answer: %s", got)
	}
	if p.Status().Restarts != 0 {
		t.Fatal("restarted for an answer whose id could be read")
	}
}

// When the id of an answer too large cannot be read, any pending call may
// be the one it answers: they fail saying why, and the plugin restarts.
func TestAnswerTooLargeWithoutIDRestarts(t *testing.T) {
	f := newFixture(t)
	p := f.start(t, "child", "ok")
	ready(t, p)
	got, isErr := f.call("child__hugenoid", `{}`)
	if !isErr || !strings.Contains(got, "larger than 32 MiB") || strings.Contains(got, "timed out") {
		t.Fatalf("huge answer: %.300s\n%s", got, f.logs.String())
	}
	waitStatus(t, p, "restarted", func(s Status) bool { return s.Restarts >= 1 })
	ready(t, p)
	if got, isErr := f.call("child__text", `{}`); isErr || got != "plain text" {
		t.Fatalf("after the restart: %s", got)
	}
	if !strings.Contains(p.Status().LastError, "larger than 32 MiB") {
		t.Fatalf("last error %q", p.Status().LastError)
	}
}

func TestGrandchildHoldingStdoutDoesNotHideACrash(t *testing.T) {
	f := newFixture(t)
	p := f.start(t, "child", "ok")
	ready(t, p)
	got, isErr := f.call("child__grandchild", `{}`)
	if !isErr {
		t.Fatalf("call on a dying plugin: %s", got)
	}
	waitStatus(t, p, "restarted", func(s Status) bool { return s.Restarts >= 1 })
	ready(t, p)
	b, err := os.ReadFile(filepath.Join(f.data, "plugin_data", "child", "grandchild.pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(string(b))
	eventually(t, "the grandchild killed", func() bool { return !alive(pid) || zombie(pid) })
}

// zombie reports a dead process not yet reaped by its (dead) parent.
func zombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	return err == nil && strings.Contains(string(b), ") Z ")
}

func TestUnresponsiveProcessIsRestarted(t *testing.T) {
	f := newFixture(t)
	f.opts.PingInterval, f.opts.PingTimeout = 100*time.Millisecond, 200*time.Millisecond
	p := f.start(t, "child", "ok")
	ready(t, p)
	go f.call("child__freeze", `{}`)
	waitStatus(t, p, "restarted after freezing", func(s Status) bool { return s.Restarts >= 1 })
	if !strings.Contains(p.Status().LastError, "stopped answering") {
		t.Fatalf("last error %q", p.Status().LastError)
	}
	ready(t, p)
	if got, isErr := f.call("child__echo", `{}`); isErr {
		t.Fatalf("after restart: %s", got)
	}
}

func TestManifestErrors(t *testing.T) {
	for _, b := range []string{
		`{"id": "Bad", "command": ["x"]}`,
		`{"id": "ok-id"}`,
		`{"id": "ok-id", "command": ["x"], "runtime": "wasm"}`,
		`{"id": "ok-id", "command": ["x"], "capabilities": ["teleport"]}`,
		`{"id": "ok-id", "command": ["x"], "timeout": "soon"}`,
		`{`,
	} {
		t.Run(b, func(t *testing.T) {
			if _, err := ParseManifest("plugin.json", []byte(b)); err == nil {
				t.Errorf("accepted %s", b)
			}
		})
	}
	m, err := ParseManifest("plugin.json", []byte(`{"id": "py", "entry": "python3 main.py", "timeout": "5s"}`))
	if err != nil || len(m.Command) != 2 || m.ToolTimeout() != 5*time.Second {
		t.Fatalf("%+v %v", m, err)
	}
	if _, err := Start(t.TempDir(), &Options{}); !errors.Is(err, ErrNoManifest) {
		t.Fatalf("missing manifest: %v", err)
	}
}

// The HomeAgent example plugin behaves the same as a child process as it
// does compiled in (internal/kernel's TestHomeAgentStageExamples).
func TestSameSourceRunsAsAChild(t *testing.T) {
	f := newFixture(t,
		llmtest.Reply{ToolCalls: []llmtest.Call{{ID: "w", Name: "weather__weather_query", Arguments: `{"city":"北京"}`}}},
		llmtest.Reply{Text: "北京晴。"},
	)
	f.eng.LocalChannels = append(f.eng.LocalChannels, "qq") // the example's tool declares no effect: write
	p := f.start(t, "weather", "weather")
	ready(t, p)
	blocked := f.k.Ask(context.Background(), kernel.Input{Injection: sdk.Injection{Channel: "qq", UserID: "blocked_user", Text: "hi"}})
	if blocked.Text != "已被限制使用" || len(f.srv.Requests()) != 0 {
		t.Fatalf("blacklist over the wire: %+v", blocked)
	}
	out := f.k.Ask(context.Background(), kernel.Input{Injection: sdk.Injection{Channel: "qq", UserID: "alice", Text: "北京天气？"}})
	if out.Text != "北京晴。" {
		t.Fatalf("%+v", out)
	}
	req := f.srv.Requests()
	if last := req[0].Messages[len(req[0].Messages)-1]["content"].(string); !strings.HasPrefix(last, "当前时间: ") {
		t.Fatalf("pre_action over the wire: %v", req[0].Messages)
	}
	for _, m := range req[1].Messages {
		if m["tool_call_id"] == "w" && m["content"] != `{"city":"北京","temp":25,"weather":"晴"}` {
			t.Fatalf("tool result %v", m["content"])
		}
	}
	if got, isErr := f.call("weather__weather_query", `{"city":"火星"}`); !isErr || !strings.Contains(got, "不支持的城市") {
		t.Fatalf("isError map over the wire: %s", got)
	}
}

// callTool runs a call of a registered tool as a turn does between its
// stages and its policy (toolcall.Tool.Call), for an agent; a tool that is
// not registered gives an error result.
func callTool(k *kernel.Kernel, name, args string) toolcall.Result {
	tool, ok := k.Tools().Lookup(name)
	if !ok {
		return toolcall.ErrorResult(tools.ErrUnknownTool, "unknown tool "+name)
	}
	return tool.Call(context.Background(), &sdk.ToolContext{Actor: sdk.ActorAgent}, json.RawMessage(args))
}
