package main

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// The official MCP conformance suite (@modelcontextprotocol/conformance,
// run under Node 24) against Hearth's MCP server and client. Only the
// scenarios that apply to Hearth run: the suite's other server scenarios
// call tools, prompts and resources of its own reference server
// (test_simple_text and the like), which Hearth does not have, or
// completion/complete and resources/subscribe, which Hearth does not
// offer; its client scenario of elicitation defaults needs elicitation,
// which Hearth's client does not declare. The authorization scenarios
// (auth/*) run `hearth mcp login` with a stand-in browser that follows
// the authorization address, which the suite's server approves at once.
var (
	// conformanceServerCore must pass: the lifecycle, ping, tools/list
	// and the refusal of a foreign Host or Origin.
	conformanceServerCore = []string{"server-initialize", "ping", "tools-list", "dns-rebinding-protection"}
	// conformanceServerOther run and are reported, not required.
	conformanceServerOther = []string{"logging-set-level", "server-sse-polling", "server-sse-multiple-streams", "resources-list", "prompts-list"}
	// conformanceClientCore must pass: initialize, and a tool called with
	// its arguments.
	conformanceClientCore = []string{"initialize", "tools_call"}
	// conformanceClientOther run and are reported, not required.
	conformanceClientOther = []string{"sse-retry"}
	// conformanceAuthCore must pass: the authorization flow with dynamic
	// client registration (or a client registered beforehand, in
	// config.json), PKCE, the resource parameter, every metadata location,
	// scopes and token endpoint authentication method.
	conformanceAuthCore = []string{
		"auth/metadata-default", "auth/metadata-var1", "auth/metadata-var2", "auth/metadata-var3",
		"auth/scope-from-www-authenticate", "auth/scope-from-scopes-supported",
		"auth/scope-omitted-when-undefined", "auth/scope-retry-limit",
		"auth/token-endpoint-auth-basic", "auth/token-endpoint-auth-post", "auth/token-endpoint-auth-none",
		"auth/2025-03-26-oauth-endpoint-fallback", "auth/basic-cimd", "auth/pre-registration",
	}
	// conformanceAuthOther run and are reported, not required: a scope
	// step-up while connected (the login's tokens are used as they are)
	// and the 2025-03-26 metadata fallback.
	conformanceAuthOther = []string{"auth/scope-step-up", "auth/2025-03-26-oauth-metadata-backcompat"}
)

// conformanceCheck is one check of a scenario's checks.json.
type conformanceCheck struct {
	ID           string `json:"id"`
	Status       string `json:"status"` // SUCCESS, FAILURE, WARNING, INFO
	ErrorMessage string `json:"errorMessage"`
}

// conformance runs the suite's CLI with args (its results go to a new
// folder) and returns the failed checks of what it ran, the output, and
// judgeScenario fails the test when a core scenario ran no check or
// failed one, and logs how any other scenario did.
func judgeScenario(t *testing.T, kind, sc string, core bool, failed []conformanceCheck, out string, ran bool) {
	t.Helper()
	switch {
	case !ran && core:
		t.Errorf("%s scenario %s ran no check:\n%s", kind, sc, out)
	case len(failed) > 0 && core:
		t.Errorf("%s scenario %s: %d failed checks: %+v\n%s", kind, sc, len(failed), failed, out)
	case len(failed) > 0 || !ran:
		t.Logf("%s scenario %s (not required): failed %+v", kind, sc, failed)
	default:
		t.Logf("%s scenario %s: passed", kind, sc)
	}
}

// whether any check ran at all.
func conformance(t *testing.T, dir string, env []string, args ...string) (failed []conformanceCheck, out string, ran bool) {
	t.Helper()
	results := t.TempDir()
	cli := mcpPackage(dir, "conformance", "dist/index.js")
	cmd := exec.Command(node24(t, dir), append([]string{cli}, append(args, "-o", results)...)...)
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "NODE_NO_WARNINGS=1"}, env...)
	b, _ := cmd.CombinedOutput() // its exit status says the same as the checks
	err := filepath.WalkDir(results, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.Name() != "checks.json" {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var checks []conformanceCheck
		if err := json.Unmarshal(data, &checks); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		ran = ran || len(checks) > 0
		for _, c := range checks {
			if c.Status == "FAILURE" {
				failed = append(failed, c)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return failed, string(b), ran
}

// startMCPServeHTTP runs `hearth mcp serve --http` on a free loopback
// port and returns its URL and the token its clients send.
func startMCPServeHTTP(t *testing.T) (endpoint, token string) {
	t.Helper()
	home := t.TempDir()
	tok, errOut, code := hearth(t, []string{"HEARTH_HOME=" + home}, "", "token")
	if code != 0 {
		t.Fatalf("hearth token: exit %d, %s", code, errOut)
	}
	cmd := exec.Command(os.Args[0], "mcp", "serve", "--http", "127.0.0.1:"+freePort(t))
	cmd.Env = []string{"HEARTH_TEST_MAIN=1", childRace, "PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "HEARTH_HOME=" + home}
	// It names its URL on stderr once it listens.
	endpoint, said, ok := startUntil(t, cmd, func(line string) (string, bool) {
		_, rest, found := strings.Cut(line, "MCP over Streamable HTTP at ")
		if !found || len(strings.Fields(rest)) == 0 {
			return "", false
		}
		return strings.TrimRight(strings.Fields(rest)[0], ";,"), true
	})
	if !ok || !strings.HasPrefix(endpoint, "http://") {
		t.Fatalf("hearth mcp serve --http did not start: %q\n%s", endpoint, said)
	}
	if !strings.HasSuffix(endpoint, "/mcp") {
		endpoint += "/mcp"
	}
	return endpoint, strings.TrimSpace(tok)
}

// TestConformanceServer runs the suite's server scenarios that apply
// against `hearth mcp serve --http`. The suite sends no credentials, so
// a loopback proxy adds the owner's token, as a configured client would;
// it passes the Host and Origin headers on untouched.
func TestConformanceServer(t *testing.T) {
	dir := needMCPPackages(t)
	endpoint, token := startMCPServeHTTP(t)
	target, err := url.Parse(endpoint)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: target.Scheme, Host: target.Host})
	direct := proxy.Director
	proxy.Director = func(r *http.Request) {
		direct(r)
		r.Header.Set("Authorization", "Bearer "+token)
	}
	front := httptest.NewServer(proxy)
	t.Cleanup(front.Close)

	for _, sc := range append(append([]string{}, conformanceServerCore...), conformanceServerOther...) {
		failed, out, ran := conformance(t, dir, nil, "server", "--url", front.URL+"/mcp", "--scenario", sc)
		judgeScenario(t, "server", sc, slices.Contains(conformanceServerCore, sc), failed, out, ran)
	}
}

// TestConformanceClient runs the suite's client scenarios that apply
// against Hearth's MCP client: the suite starts its server and runs a
// command with the server's URL as its last argument; the command writes
// config.json with that server and runs `hearth ask`, whose scripted model
// calls the server's tool (tools_call: add_numbers).
func TestConformanceClient(t *testing.T) {
	dir := needMCPPackages(t)
	script := filepath.Join(t.TempDir(), "hearth-client.sh")
	err := os.WriteFile(script, []byte(`#!/bin/sh
set -e
printf '{"mcpServers": {"conformance": {"type": "http", "url": "%s"}}}\n' "$1" > "$HEARTH_HOME/config.json"
exec "$HEARTH_BIN" ask "use the conformance server"
`), 0o755)
	if err != nil {
		t.Fatal(err)
	}
	for _, sc := range append(append([]string{}, conformanceClientCore...), conformanceClientOther...) {
		llm := llmtest.NewServer(t)
		if sc == "tools_call" {
			llm.Push(llmtest.Reply{ToolCalls: []llmtest.Call{{ID: "call_add", Name: "mcp-conformance__add_numbers", Arguments: `{"a":2,"b":3}`}}})
		}
		llm.SetFallback(llmtest.Reply{Text: "done"})
		env := []string{"HEARTH_TEST_MAIN=1", childRace, "HEARTH_BIN=" + os.Args[0], "HEARTH_HOME=" + t.TempDir(), "OPENAI_BASE_URL=" + llm.URL, "HEARTH_MODEL=test-model"}
		failed, out, ran := conformance(t, dir, env, "client", "--command", script, "--scenario", sc)
		judgeScenario(t, "client", sc, slices.Contains(conformanceClientCore, sc), failed, out, ran)
	}
}

// fakeBrowser is the name under which this test binary stands in for the
// user's browser: `hearth mcp login` runs xdg-open with the authorization
// address when there is a display, and this follows it, redirects and all,
// as a browser whose user approves at once would.
const fakeBrowser = "xdg-open"

func init() {
	if filepath.Base(os.Args[0]) == fakeBrowser && len(os.Args) == 2 {
		resp, err := http.Get(os.Args[1])
		if err != nil {
			fmt.Fprintln(os.Stderr, "stand-in browser:", err)
			os.Exit(1)
		}
		resp.Body.Close()
		os.Exit(0)
	}
}

// TestConformanceClientAuth runs the suite's authorization scenarios
// against `hearth mcp login` (then `hearth tools`, which connects with
// the stored tokens): the suite's server asks for authorization, and the
// stand-in browser approves.
func TestConformanceClientAuth(t *testing.T) {
	dir := needMCPPackages(t)
	bin := t.TempDir()
	if err := os.Symlink(os.Args[0], filepath.Join(bin, fakeBrowser)); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(t.TempDir(), "hearth-login.sh")
	err := os.WriteFile(script, []byte(`#!/bin/sh
set -e
# A client registered beforehand comes in the suite's context.
node -e '
const ctx = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT || "{}");
const s = {type: "http", url: process.argv[1]};
if (ctx.client_id) s.oauth = {client_id: ctx.client_id, client_secret: ctx.client_secret};
require("fs").writeFileSync(process.env.HEARTH_HOME + "/config.json", JSON.stringify({mcpServers: {conformance: s}}));
' "$1"
PATH="$FAKE_BROWSER_DIR:$PATH" DISPLAY=:0 "$HEARTH_BIN" mcp login conformance
exec "$HEARTH_BIN" tools
`), 0o755)
	if err != nil {
		t.Fatal(err)
	}
	for _, sc := range append(append([]string{}, conformanceAuthCore...), conformanceAuthOther...) {
		env := []string{"HEARTH_TEST_MAIN=1", childRace, "HEARTH_BIN=" + os.Args[0], "HEARTH_HOME=" + t.TempDir(), "FAKE_BROWSER_DIR=" + bin}
		failed, out, ran := conformance(t, dir, env, "client", "--command", script, "--scenario", sc, "--timeout", "60000")
		judgeScenario(t, "client", sc, slices.Contains(conformanceAuthCore, sc), failed, out, ran)
	}
}
