package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// installWeather installs the example weather plugin, run as a child
// process, into a new data directory.
func installWeather(t *testing.T) []string {
	t.Helper()
	base := []string{"HEARTH_HOME=" + t.TempDir()}
	src := filepath.Join(t.TempDir(), "weather-plugin")
	if err := os.MkdirAll(src, 0o755); err != nil {
		t.Fatal(err)
	}
	manifest := fmt.Sprintf(`{"id": "weather", "command": [%q], "env": {"HEARTH_TEST_SERVE_WEATHER": "1"}}`, os.Args[0])
	if err := os.WriteFile(filepath.Join(src, "plugin.json"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := hearth(t, base, "", "plugin", "install", src); code != 0 {
		t.Fatalf("install: %q", errOut)
	}
	return base
}

func toolResult(srv *llmtest.Server, req int, id string) string {
	for _, m := range srv.Requests()[req].Messages {
		if m["tool_call_id"] == id {
			return m["content"].(string)
		}
	}
	return ""
}

// hearth policy lists a child plugin's tools, which it does not start,
// with their mode and where they come from, and hearth policy set on one
// takes effect.
func TestPolicyListsAndSetsAChildPluginsTools(t *testing.T) {
	base := installWeather(t)
	_, pyErr := exec.LookPath("python3")
	if pyErr == nil { // an xbot stdio plugin too
		if _, errOut, code := hearth(t, base, "", "plugin", "install", "../../internal/pluginhost/testdata/xbot-hello"); code != 0 {
			t.Fatalf("install xbot plugin: %q", errOut)
		}
	}
	if out, _, _ := hearth(t, base, "", "tools"); !strings.Contains(out, "weather__weather_query") {
		t.Fatalf("tools:\n%s", out)
	}
	out, _, _ := hearth(t, base, "", "policy")
	line := lineWith(out, "weather__weather_query")
	if !strings.Contains(line, "write (undeclared)") || !strings.Contains(line, "auto (default)") || !strings.Contains(line, "child process in ") {
		t.Fatalf("policy list:\n%s", out)
	}
	if pyErr == nil && !strings.Contains(lineWith(out, "__python_greet"), "xbot stdio plugin in ") {
		t.Fatalf("policy list without the xbot plugin's tool:\n%s", out)
	}
	out, errOut, code := hearth(t, base, "", "policy", "set", "weather__weather_query", "off")
	if code != 0 || out != "weather__weather_query: off\n" || errOut != "" {
		t.Fatalf("set: %d %q %q", code, out, errOut)
	}
	if out, _, _ := hearth(t, base, "", "policy"); !strings.Contains(lineWith(out, "weather__weather_query"), "off (override)") {
		t.Fatalf("policy list after set:\n%s", out)
	}
	// Overrides for tools never seen are listed too.
	hearth(t, base, "", "policy", "set", "ghost__haunt", "auto")
	if out, _, _ := hearth(t, base, "", "policy"); !strings.Contains(lineWith(out, "ghost__haunt"), "override for a tool not loaded now") {
		t.Fatalf("policy list with an unknown tool's override:\n%s", out)
	}

	srv := llmtest.NewServer(t,
		llmtest.Reply{ToolCalls: []llmtest.Call{{ID: "w", Name: "weather__weather_query", Arguments: `{"city":"上海"}`}}},
		llmtest.Reply{Text: "查不了。"},
	)
	env := append([]string{"OPENAI_BASE_URL=" + srv.URL, "HEARTH_MODEL=test-model"}, base...)
	if out, errOut, code := hearth(t, env, "", "ask", "上海天气"); code != 0 || out != "查不了。\n" {
		t.Fatalf("ask: %d %q %q", code, out, errOut)
	}
	if r := toolResult(srv, 1, "w"); strings.Contains(r, "晴") || r == "" {
		t.Fatalf("the tool set to off ran: %q", r)
	}
}

// A mode set with hearth policy set applies in a Hearth that is already
// running.
func TestPolicySetTakesEffectInARunningChat(t *testing.T) {
	base := installWeather(t)
	call := func(id string) llmtest.Reply {
		return llmtest.Reply{ToolCalls: []llmtest.Call{{ID: id, Name: "weather__weather_query", Arguments: `{"city":"上海"}`}}}
	}
	srv := llmtest.NewServer(t, call("w1"), llmtest.Reply{Text: "上海晴。"}, call("w2"), llmtest.Reply{Text: "这次不行。"})
	cmd := exec.Command(os.Args[0], "chat")
	cmd.Env = append([]string{"HEARTH_TEST_MAIN=1", childRace, "PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "OPENAI_BASE_URL=" + srv.URL, "HEARTH_MODEL=test-model"}, base...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out := &screen{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	// The chat starts its plugins without waiting: ask until it is up,
	// waiting for each answer (every one has a "weather: " line). The
	// plugin's state lives in another process and no event tells of it:
	// the pause only paces the asking.
	deadline := time.Now().Add(30 * time.Second)
	for asked := 1; ; asked++ {
		fmt.Fprintln(stdin, "/plugins")
		out.waitUntil(t, "an answer to /plugins", func(shown string) bool { return strings.Count(shown, "weather: ") >= asked })
		if strings.Contains(out.String(), "weather: running") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the plugin did not start:\n%s", out)
		}
		time.Sleep(20 * time.Millisecond)
	}
	fmt.Fprintln(stdin, "上海天气")
	out.waitFor(t, "上海晴。")
	if r := toolResult(srv, 1, "w1"); !strings.Contains(r, "晴") {
		t.Fatalf("first call: %q", r)
	}
	if _, errOut, code := hearth(t, base, "", "policy", "set", "weather__weather_query", "off"); code != 0 {
		t.Fatalf("set: %q", errOut)
	}
	fmt.Fprintln(stdin, "再查一次")
	out.waitFor(t, "这次不行。")
	stdin.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatalf("chat did not end:\n%s", out)
	}
	if r := toolResult(srv, 3, "w2"); strings.Contains(r, "晴") || r == "" {
		t.Fatalf("the tool set to off while chat ran still ran: %q", r)
	}
}

func lineWith(out, s string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, s) {
			return l
		}
	}
	return ""
}

// hearth policy says an MCP server's tools come from an MCP server of
// config.json (here another Hearth's hearth mcp serve), not from a .so.
func TestPolicyNamesAnMCPServerAsTheOrigin(t *testing.T) {
	env := []string{"HEARTH_HOME=" + t.TempDir()}
	if _, errOut, code := hearth(t, env, "", "mcp", "add", "self", "--env", "HEARTH_TEST_MAIN=1", "--env", "HEARTH_HOME="+t.TempDir(),
		"--", os.Args[0], "mcp", "serve"); code != 0 {
		t.Fatalf("mcp add: %q", errOut)
	}
	// hearth tools runs the plugins, so their tools are recorded.
	if out, errOut, code := hearth(t, env, "", "tools"); code != 0 || !strings.Contains(out, "mcp-self__") {
		t.Fatalf("tools: %d %q\n%s", code, errOut, out)
	}
	out, errOut, code := hearth(t, env, "", "policy")
	l := lineWith(out, "mcp-self__")
	if code != 0 || !strings.Contains(l, "MCP server (config.json)") || strings.Contains(l, ".so") {
		t.Fatalf("policy: %d %q\n%s", code, errOut, out)
	}
}
