package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// inspector runs the MCP Inspector's CLI (under Node 24: it needs Node
// 22 or newer) against target with the given options, and returns its
// standard output, which is the JSON answer.
func inspector(t *testing.T, dir string, target []string, opts ...string) (string, error) {
	t.Helper()
	cli := mcpPackage(dir, "inspector", "cli/build/index.js")
	// The target comes first: --tool-arg takes every argument after it.
	cmd := exec.Command(node24(t, dir), append(append([]string{cli}, target...), opts...)...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "NODE_NO_WARNINGS=1"}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return string(out), &inspectorError{err: err, stderr: stderr.String()}
	}
	return string(out), nil
}

// inspectorError is a failed run of the Inspector, with what it said.
type inspectorError struct {
	err    error
	stderr string
}

func (e *inspectorError) Error() string { return e.err.Error() + ": " + e.stderr }

// inspectorTools checks the Inspector's tools/list answer offers the time
// plugin's tool with its schema and annotations.
func inspectorTools(t *testing.T, out string) {
	t.Helper()
	var list struct {
		Tools []struct {
			Name        string         `json:"name"`
			InputSchema map[string]any `json:"inputSchema"`
			Annotations map[string]any `json:"annotations"`
		} `json:"tools"`
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("tools/list: %v\n%s", err, out)
	}
	for _, tool := range list.Tools {
		if tool.Name == "time__now" {
			if tool.InputSchema["type"] != "object" {
				t.Errorf("time__now's input schema: %v", tool.InputSchema)
			}
			if tool.Annotations["readOnlyHint"] != true {
				t.Errorf("time__now's annotations: %v (a read tool is read-only)", tool.Annotations)
			}
			return
		}
	}
	t.Fatalf("tools/list has no time__now:\n%s", out)
}

// inspectorCall checks the Inspector's tools/call answer of time__now in
// zone Asia/Shanghai.
func inspectorCall(t *testing.T, out string) {
	t.Helper()
	var res struct {
		Content []struct {
			Type, Text string
		} `json:"content"`
		IsError bool `json:"isError"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("tools/call: %v\n%s", err, out)
	}
	if res.IsError || len(res.Content) == 0 || !strings.Contains(res.Content[0].Text, "Asia/Shanghai") {
		t.Fatalf("tools/call time__now: %s", out)
	}
}

// TestMCPInspectorStdio drives `hearth mcp serve` over stdio with the MCP
// Inspector's CLI, as a user configuring Hearth in an MCP client would:
// tools/list, then tools/call.
func TestMCPInspectorStdio(t *testing.T) {
	dir := needMCPPackages(t)
	// The Inspector gives a stdio server only a minimal environment, so
	// the test's variables go through env(1).
	target := []string{"/usr/bin/env", "HEARTH_TEST_MAIN=1", childRace, "HEARTH_HOME=" + t.TempDir(), os.Args[0], "mcp", "serve"}
	out, err := inspector(t, dir, target, "--method", "tools/list")
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	inspectorTools(t, out)
	out, err = inspector(t, dir, target, "--method", "tools/call", "--tool-name", "time__now", "--tool-arg", "zone=Asia/Shanghai")
	if err != nil {
		t.Fatalf("tools/call: %v", err)
	}
	inspectorCall(t, out)
}

// TestMCPInspectorHTTP drives `hearth mcp serve --http` with the MCP
// Inspector's CLI over Streamable HTTP with the owner's token, and checks
// a wrong token is refused.
func TestMCPInspectorHTTP(t *testing.T) {
	dir := needMCPPackages(t)
	url, tok := startMCPServeHTTP(t)
	target := []string{url, "--transport", "http"}
	out, err := inspector(t, dir, target, "--header", "Authorization: Bearer "+tok, "--method", "tools/list")
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	inspectorTools(t, out)
	out, err = inspector(t, dir, target, "--header", "Authorization: Bearer "+tok, "--method", "tools/call", "--tool-name", "time__now", "--tool-arg", "zone=Asia/Shanghai")
	if err != nil {
		t.Fatalf("tools/call: %v", err)
	}
	inspectorCall(t, out)
	if out, err := inspector(t, dir, target, "--header", "Authorization: Bearer wrong-"+tok, "--method", "tools/list"); err == nil {
		t.Fatalf("a wrong token was let in: %s", out)
	}
}
