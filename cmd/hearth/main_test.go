package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hearth-agent/hearth/examples/homeagent/weather"
	"github.com/hearth-agent/hearth/internal/pluginhost"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/llmtest"
	"github.com/hearth-agent/hearth/sdk/pluginrpc"
)

// TestMain lets tests run this test binary as the hearth command, so the
// end-to-end tests exercise the real main in a real child process.
func TestMain(m *testing.M) {
	pluginhost.ShimMain()         // first, as in main
	os.Setenv("GORACE", raceOpts) // for the plugins the tests start in process (see raceOpts)
	runTestChild()
	if n := os.Getenv("HEARTH_TEST_SPEW_STDERR"); n != "" {
		spewStderr(n, os.Getenv("HEARTH_TEST_SPEW_LINE")) // a plugin that floods its stderr, then serves
	}
	if os.Getenv("HEARTH_TEST_SERVE_REMOVER") == "1" {
		pluginrpc.Serve(newRemover) // a Go child with a remove handler (onremove_test.go)
	}
	if os.Getenv("HEARTH_TEST_SERVE_WEATHER") == "1" {
		pluginrpc.Serve(weather.NewPlugin) // the example plugin as a child process
	}
	if os.Getenv("HEARTH_TEST_MAIN") == "1" {
		if f := os.Getenv("HEARTH_TEST_PING_FILE"); f != "" {
			sdk.RegisterFactory("pinger", pinger(f))
		}
		if os.Getenv("HEARTH_TEST_BIG_TOOLS") == "1" {
			sdk.RegisterFactory("big", newBigPlugin)
		}
		if d := os.Getenv("HEARTH_TEST_SLOW_DIR"); d != "" {
			sdk.RegisterFactory("slow", slowPlugin(d))
		}
		stop := profileChild(os.Getenv("HEARTH_TEST_PROFILE"))
		code := run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
		stop()
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// pinger is a test plugin whose tool pinger__later injects "ping" into the
// plugin's own channel once the file trigger exists, as a reminder plugin
// would.
func pinger(trigger string) sdk.NewPlugin {
	return func(name string, _ map[string]any) (sdk.Plugin, error) {
		return &pingerPlugin{name: name, trigger: trigger}, nil
	}
}

type pingerPlugin struct {
	name, trigger string
}

func (p *pingerPlugin) Name() string { return p.name }
func (p *pingerPlugin) Stop() error  { return nil }
func (p *pingerPlugin) Start(s *sdk.PluginSDK) error {
	return s.RegisterTool("later", sdk.ToolDef{Description: "remind later"}, func(map[string]any) (any, error) {
		go func() {
			for { // runs inside hearth; the test's cue comes through a file
				if _, err := os.Stat(p.trigger); err == nil {
					s.InjectText(p.name, p.name, "ping")
					return
				}
				time.Sleep(10 * time.Millisecond)
			}
		}()
		return "scheduled", nil
	})
}

// raceOpts are the race detector's options for the processes the tests
// start (the test binary run as hearth, and the plugins it starts, which
// inherit GORACE): a race-built program sleeps a second before it exits
// (atexit_sleep_ms, 1000 by default) so that other goroutines can finish
// reporting; with hundreds of short hearth runs that second was most of
// this package's time under -race. Races are still reported and still fail
// the run (exit status 66).
var raceOpts = strings.TrimSpace(os.Getenv("GORACE") + " atexit_sleep_ms=0")

// childRace is raceOpts as an environment entry.
var childRace = "GORACE=" + raceOpts

// hearth runs the command as a child process with a clean environment.
func hearth(t *testing.T, env []string, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append([]string{"HEARTH_TEST_MAIN=1", childRace, "PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}, env...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

func timeToolScript() []llmtest.Reply {
	return []llmtest.Reply{
		{ToolCalls: []llmtest.Call{{ID: "call_time_1", Name: "time__now", Arguments: `{"zone":"Asia/Shanghai"}`}}},
		{Text: "现在是北京时间下午三点。"},
	}
}

func checkToolResultSent(t *testing.T, srv *llmtest.Server) {
	t.Helper()
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("server got %d requests", len(reqs))
	}
	if names := reqs[0].ToolNames(); !slices.Contains(names, "time__now") {
		t.Fatalf("tools offered: %v", names)
	}
	for _, m := range reqs[1].Messages {
		if m["role"] == "tool" && m["tool_call_id"] == "call_time_1" {
			var out map[string]any
			if err := json.Unmarshal([]byte(m["content"].(string)), &out); err != nil || out["zone"] != "Asia/Shanghai" {
				t.Fatalf("tool result %v (%v)", m["content"], err)
			}
			return
		}
	}
	t.Fatalf("no tool message with tool_call_id call_time_1 in %v", reqs[1].Messages)
}

func TestAskWithToolCall(t *testing.T) {
	srv := llmtest.NewServer(t, timeToolScript()...)
	env := []string{"OPENAI_BASE_URL=" + srv.URL, "HEARTH_MODEL=test-model", "OPENAI_API_KEY=sk-test-123456789", "HEARTH_HOME=" + t.TempDir()}
	stdout, stderr, code := hearth(t, env, "", "ask", "现在几点？")
	if code != 0 || stdout != "现在是北京时间下午三点。\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	checkToolResultSent(t, srv)
	if srv.Requests()[0].Authorization != "Bearer sk-test-123456789" {
		t.Fatal("key not sent")
	}
}

func TestChatFromPipeRemembersAcrossRestarts(t *testing.T) {
	srv := llmtest.NewServer(t, timeToolScript()...)
	home := t.TempDir()
	env := []string{"OPENAI_BASE_URL=" + srv.URL, "HEARTH_HOME=" + home, "HEARTH_MODEL=test-model"}
	stdout, stderr, code := hearth(t, env, "现在几点？\n")
	if code != 0 || !strings.Contains(stdout, "现在是北京时间下午三点。") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	checkToolResultSent(t, srv)
	if srv.Requests()[0].Model != "test-model" {
		t.Fatalf("model %q", srv.Requests()[0].Model)
	}

	srv.Push(llmtest.Reply{Text: "你问了时间。"})
	stdout, _, code = hearth(t, env, "我刚才问了什么？\\\n请简短回答。\n", "chat")
	if code != 0 || !strings.Contains(stdout, "你问了时间。") {
		t.Fatalf("second run: exit %d, %q", code, stdout)
	}
	msgs := srv.Requests()[2].Messages
	if len(msgs) < 6 || msgs[1]["content"] != "现在几点？" {
		t.Fatalf("history not restored: %v", msgs)
	}
	// The last message is the time plugin's context; the user's comes before it.
	if last := msgs[len(msgs)-2]["content"]; last != "我刚才问了什么？\n请简短回答。" {
		t.Fatalf("continued line split or altered: %q", last)
	}
}

func TestAskReadsStdin(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Reply{Text: "ok"})
	env := []string{"OPENAI_BASE_URL=" + srv.URL, "HEARTH_MODEL=test-model", "HEARTH_HOME=" + t.TempDir()}
	if stdout, _, code := hearth(t, env, "line 1\nline 2\n", "ask"); code != 0 || stdout != "ok\n" {
		t.Fatalf("exit %d %q", code, stdout)
	}
	msgs := srv.Requests()[0].Messages
	if got := msgs[len(msgs)-2]["content"]; got != "line 1\nline 2" {
		t.Fatalf("message %q", got)
	}
}

func TestRejectedKeyIsExplained(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Reply{Status: 401, ErrorMessage: "Authentication Fails"})
	env := []string{"OPENAI_BASE_URL=" + srv.URL, "HEARTH_MODEL=test-model", "OPENAI_API_KEY=sk-wrong-000000000", "HEARTH_HOME=" + t.TempDir()}
	stdout, stderr, code := hearth(t, env, "", "ask", "hi")
	if code != 1 || stdout != "" || !strings.Contains(stderr, "rejected the API key") || !strings.Contains(stderr, "OPENAI_API_KEY") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if strings.Contains(stderr, "sk-wrong-000000000") {
		t.Fatal("the key was printed")
	}
}

func TestNoProviderIsExplained(t *testing.T) {
	for _, args := range [][]string{{"ask", "hi"}, {"chat"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			_, stderr, code := hearth(t, []string{"HEARTH_HOME=" + t.TempDir()}, "", args...)
			if code != 2 || !strings.Contains(stderr, "OPENAI_BASE_URL") || !strings.Contains(stderr, "OPENAI_API_KEY") {
				t.Fatalf("%v: exit %d, stderr %q", args, code, stderr)
			}
		})
	}
}

func TestToolsCommand(t *testing.T) {
	stdout, _, code := hearth(t, []string{"HEARTH_HOME=" + t.TempDir()}, "", "tools")
	if code != 0 || !strings.Contains("\n"+stdout, "\ntime__now\t") {
		t.Fatalf("exit %d %q", code, stdout)
	}
	stdout, _, _ = hearth(t, []string{"HEARTH_HOME=" + t.TempDir()}, "", "tools", "--json")
	var specs []map[string]any
	if err := json.Unmarshal([]byte(stdout), &specs); err != nil || !slices.ContainsFunc(specs, func(s map[string]any) bool { return s["name"] == "time__now" }) {
		t.Fatalf("%v %q", err, stdout)
	}
}

func TestBadConfigIsReported(t *testing.T) {
	home := t.TempDir()
	if err := os.WriteFile(home+"/config.json", []byte(`{"sources": {"x": {"base_url": "nope"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := hearth(t, []string{"HEARTH_HOME=" + home}, "", "ask", "hi")
	if code != 1 || !strings.Contains(stderr, "config.json") || !strings.Contains(stderr, "base_url") {
		t.Fatalf("exit %d %q", code, stderr)
	}
}

func TestPolicyAndAuditCommands(t *testing.T) {
	home := t.TempDir()
	base := []string{"HEARTH_HOME=" + home}
	if out, errOut, code := hearth(t, base, "", "policy", "set", "time__now", "ask"); code != 0 || out != "time__now: ask\n" {
		t.Fatalf("set: %d %q %q", code, out, errOut)
	}
	if _, errOut, code := hearth(t, base, "", "policy", "set", "time__now", "sometimes"); code != 2 || !strings.Contains(errOut, "unknown mode") {
		t.Fatalf("bad mode: %d %q", code, errOut)
	}
	out, _, _ := hearth(t, base, "", "policy")
	if !strings.Contains(out, "time__now") || !strings.Contains(out, "ask (override)") {
		t.Fatalf("list:\n%s", out)
	}

	// ask without a terminal cannot ask anyone: the call is refused and
	// the model is told how to allow it.
	srv := llmtest.NewServer(t, timeToolScript()...)
	env := append([]string{"OPENAI_BASE_URL=" + srv.URL, "HEARTH_MODEL=test-model"}, base...)
	if _, errOut, code := hearth(t, env, "", "ask", "现在几点？"); code != 0 {
		t.Fatalf("ask: %d %q", code, errOut)
	}
	reqs := srv.Requests()
	var result string
	for _, m := range reqs[1].Messages {
		if m["role"] == "tool" {
			result = m["content"].(string)
		}
	}
	if !strings.Contains(result, "hearth policy set time__now auto") {
		t.Fatalf("tool result %q", result)
	}

	out, _, code := hearth(t, base, "", "audit")
	if code != 0 || !strings.Contains(out, "time__now") || !strings.Contains(out, "deny by policy (mode-ask)") || !strings.Contains(out, "agent for owner@ask (owner)") {
		t.Fatalf("audit:\n%s", out)
	}

	if out, _, code := hearth(t, base, "", "policy", "role", "qq", "alice", "admin", "--group", "g1"); code != 0 || !strings.Contains(out, "alice on qq group g1: admin") {
		t.Fatalf("role: %q", out)
	}
	if out, _, code := hearth(t, base, "", "policy", "grant", "admin", "read,write", "--channel", "qq"); code != 0 || !strings.Contains(out, "admin on qq: read,write") {
		t.Fatalf("grant: %q", out)
	}
	if _, errOut, code := hearth(t, base, "", "policy", "grant", "admin", "read,fly"); code != 2 || !strings.Contains(errOut, "unknown effect") {
		t.Fatalf("bad grant: %q", errOut)
	}
	out, _, _ = hearth(t, base, "", "policy")
	if !strings.Contains(out, "alice on qq group g1: admin") || !strings.Contains(out, "admin on qq: read,write") {
		t.Fatalf("list:\n%s", out)
	}
	hearth(t, base, "", "policy", "reset", "time__now")
	if out, _, _ := hearth(t, base, "", "policy"); !strings.Contains(out, "auto (default)") {
		t.Fatalf("after reset:\n%s", out)
	}
}

func TestProcessPluginInstallUseDisable(t *testing.T) {
	home := t.TempDir()
	base := []string{"HEARTH_HOME=" + home}
	src := filepath.Join(t.TempDir(), "weather-plugin")
	os.MkdirAll(src, 0o755)
	manifest := fmt.Sprintf(`{"id": "weather", "command": [%q], "env": {"HEARTH_TEST_SERVE_WEATHER": "1"}}`, os.Args[0])
	os.WriteFile(filepath.Join(src, "plugin.json"), []byte(manifest), 0o644)

	if out, errOut, code := hearth(t, base, "", "plugin", "install", src); code != 0 || !strings.Contains(out, "installed weather") {
		t.Fatalf("install: %d %q %q", code, out, errOut)
	}
	out, _, _ := hearth(t, base, "", "tools")
	if !strings.Contains(out, "weather__weather_query") {
		t.Fatalf("tools after install:\n%s", out)
	}
	srv := llmtest.NewServer(t,
		llmtest.Reply{ToolCalls: []llmtest.Call{{ID: "w", Name: "weather__weather_query", Arguments: `{"city":"上海"}`}}},
		llmtest.Reply{Text: "上海晴。"},
	)
	// The weather tool declares no effect (write); the terminal user is the owner, so it runs.
	env := append([]string{"OPENAI_BASE_URL=" + srv.URL, "HEARTH_MODEL=test-model"}, base...)
	if out, errOut, code := hearth(t, env, "", "ask", "上海天气"); code != 0 || out != "上海晴。\n" {
		t.Fatalf("ask: %d %q %q", code, out, errOut)
	}
	var result string
	for _, m := range srv.Requests()[1].Messages {
		if m["tool_call_id"] == "w" {
			result = m["content"].(string)
		}
	}
	if result != `{"city":"上海","temp":25,"weather":"晴"}` {
		t.Fatalf("tool result %q", result)
	}
	if out, _, code := hearth(t, base, "", "plugin", "disable", "weather"); code != 0 || !strings.Contains(out, "disabled") {
		t.Fatalf("disable: %q", out)
	}
	if out, _, _ := hearth(t, base, "", "tools"); strings.Contains(out, "weather__") {
		t.Fatalf("tools after disable:\n%s", out)
	}
	if out, _, _ := hearth(t, base, "", "plugin"); !strings.Contains(out, "weather") || !strings.Contains(out, "false") {
		t.Fatalf("plugin list:\n%s", out)
	}
}

func TestSettingsCommand(t *testing.T) {
	base := []string{"HEARTH_HOME=" + t.TempDir()}
	if out, errOut, code := hearth(t, base, "sk-秘密\n", "settings", "set", "time", "token"); code != 0 || out != "time.token set\n" {
		t.Fatalf("set from stdin: %d %q %q", code, out, errOut)
	}
	if out, _, code := hearth(t, base, "", "settings", "set", "time", "napcat_url", "ws://127.0.0.1:3001"); code != 0 || out != "time.napcat_url = \"ws://127.0.0.1:3001\"\n" {
		t.Fatalf("set text: %d %q", code, out)
	}
	if out, _, code := hearth(t, base, "", "settings", "set", "time", "retries", "3"); code != 0 || out != "time.retries = 3\n" {
		t.Fatalf("set JSON: %d %q", code, out)
	}
	out, _, code := hearth(t, base, "", "settings")
	if code != 0 || strings.Contains(out, "sk-秘密") || !strings.Contains(out, "token       ******") || !strings.Contains(out, "retries") {
		t.Fatalf("list:\n%s", out)
	}
	if out, _, _ := hearth(t, base, "", "settings", "get", "time", "token"); out != "******\n" {
		t.Fatalf("get secret: %q", out)
	}
	if _, errOut, code := hearth(t, base, "", "settings", "get", "time", "nope"); code != 1 || !strings.Contains(errOut, "not found") {
		t.Fatalf("get missing: %d %q", code, errOut)
	}
	if _, errOut, code := hearth(t, base, "", "settings", "set", "core", "core.daemon.data_dir", "/tmp"); code != 2 || !strings.Contains(errOut, "read-only") {
		t.Fatalf("read-only core key: %d %q", code, errOut)
	}
}
