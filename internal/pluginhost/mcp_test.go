//go:build unix

package pluginhost

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/oauth2"

	"github.com/hearth-agent/hearth/internal/config"
	"github.com/hearth-agent/hearth/internal/tools"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/toolcall"
)

// mcpStdio is the config of a stdio MCP server running this test binary
// in the given mode.
func mcpStdio(mode string, env map[string]string) config.MCPServer {
	e := map[string]string{"HEARTH_TEST_MCP": mode}
	for k, v := range env {
		e[k] = v
	}
	return config.MCPServer{Command: os.Args[0], Env: e}
}

func (f *fixture) startMCP(t *testing.T, server string, cfg config.MCPServer) *Process {
	t.Helper()
	p, err := StartMCP(server, cfg, &f.opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Stop)
	ready(t, p)
	return p
}

// callMCP calls a tool as an agent with tc's Progress set to progress.
func callMCP(t *testing.T, f *fixture, ctx context.Context, name, args string, progress func(done, total float64, msg string)) toolcall.Result {
	t.Helper()
	tool, ok := f.k.Tools().Lookup(name)
	if !ok {
		return toolcall.ErrorResult(tools.ErrUnknownTool, "unknown tool "+name)
	}
	return tool.Call(ctx, &sdk.ToolContext{Actor: sdk.ActorAgent, Progress: progress}, json.RawMessage(args))
}

func TestMCPStdioToolsResultsAndPolicy(t *testing.T) {
	f := newFixture(t)
	t.Setenv("HEARTH_TEST_TOKEN", "tok-from-host")
	t.Setenv("OPENAI_API_KEY", "sk-host-secret")
	f.startMCP(t, "t", mcpStdio("basic", map[string]string{"GIVEN": "${HEARTH_TEST_TOKEN}", "PLAIN": "a$b"}))

	defs := map[string]sdk.ToolDef{}
	for _, name := range []string{"echo", "get-sum", "picture", "fail", "files_read_v2", "list_resources", "read_resource"} {
		tool, ok := f.k.Tools().Lookup("mcp-t__" + name)
		if !ok {
			t.Fatalf("tool mcp-t__%s not registered", name)
		}
		if !tool.Def.Untrusted {
			t.Errorf("%s: not untrusted", name)
		}
		defs[name] = tool.Def
	}
	if d := defs["echo"]; d.Effect != sdk.EffectWrite || d.AlwaysAsk || d.Description != "Echoes." {
		t.Errorf("echo: %+v", d)
	}
	if d := defs["picture"]; d.Effect != sdk.EffectPublic { // readOnlyHint never loosens; openWorldHint tightens
		t.Errorf("picture: effect %s", d.Effect)
	}
	if d := defs["fail"]; !d.AlwaysAsk || d.Effect != sdk.EffectWrite {
		t.Errorf("fail: %+v", d)
	}
	if d := defs["get-sum"]; d.Title != "Sum" || d.Timeout != mcpDefaultTimeout {
		t.Errorf("get-sum: %+v", d)
	}
	if defs["list_resources"].Effect != sdk.EffectRead {
		t.Errorf("list_resources: %+v", defs["list_resources"])
	}

	tests := []struct {
		tool, args, want string
		isError          bool
	}{
		{"echo", `{"text":"北京"}`, "北京", false},
		{"get-sum", `{"a":2,"b":3}`, `{"sum":5}`, false},
		{"picture", `{}`, "a dot\n\n[image image/png, 67 B]\n\n[resource file:///dot.png (dot)]\n\n[resource mem://note]\nembedded note", false},
		{"fail", `{}`, "no such file", true},
		{"files_read_v2", `{"path":"x"}`, `read {"path":"x"}`, false},
		{"list_resources", `{}`, "mem://readme — readme (text/plain)\nTemplates (fill in the {placeholders} and read the URI):\nmem://notes/{id} — note\n", false},
		{"read_resource", `{"uri":"mem://notes/7"}`, "[resource mem://notes/7]\nnote mem://notes/7", false},
		{"read_resource", `{"uri":"mem://readme"}`, "[resource mem://readme]\nread me", false},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			r := callMCP(t, f, context.Background(), "mcp-t__"+tt.tool, tt.args, nil)
			if r.Content != tt.want || r.IsError != tt.isError {
				t.Errorf("got (%q, %v), want (%q, %v)", r.Content, r.IsError, tt.want, tt.isError)
			}
		})
	}
	// Hearth's schema check applies to the draft-07 schema too.
	if r := callMCP(t, f, context.Background(), "mcp-t__files_read_v2", `{}`, nil); !r.IsError || !strings.Contains(r.Content, "path") {
		t.Errorf("missing required argument: %+v", r)
	}
	// Images reach the result as sdk.ImageResult.
	r := callMCP(t, f, context.Background(), "mcp-t__picture", `{}`, nil)
	ir, ok := r.Value.(sdk.ImageResult)
	if !ok || len(ir.ResultImages()) != 1 || ir.ResultImages()[0].MIMEType != "image/png" || string(ir.ResultImages()[0].Data) != string(pngBytes) {
		t.Fatalf("images: %#v", r.Value)
	}
	if len(r.Images) != 1 || r.Images[0].MIMEType != "image/png" {
		t.Fatalf("images of the result: %+v", r.Images)
	}
	// The environment: the config's, expanded, and no host secrets; the
	// working directory is the data folder.
	env := callMCP(t, f, context.Background(), "mcp-t__env", `{}`, nil).Content
	if !strings.Contains(env, "GIVEN=tok-from-host\n") || !strings.Contains(env, "PLAIN=a$b\n") || strings.Contains(env, "sk-host-secret") ||
		!strings.Contains(env, "PWD="+filepath.Join(f.data, "plugin_data", "mcp-t")+"\n") ||
		!strings.Contains(env, "\nHOME="+os.Getenv("HOME")+"\n") || strings.Contains(env, "HOME="+filepath.Join(f.data, "plugin_data")) {
		t.Fatalf("env: %s", env)
	}
	// The server's log messages reach the plugin's log; env values never.
	logs := f.logs.String()
	if !strings.Contains(logs, "echoing 北京") || !strings.Contains(logs, "plugin=mcp-t") {
		t.Errorf("server log missing:\n%s", logs)
	}
	if strings.Contains(logs, "tok-from-host") {
		t.Errorf("an env value was logged:\n%s", logs)
	}
}

func TestMCPProgressAndCancellation(t *testing.T) {
	f := newFixture(t)
	flag := filepath.Join(t.TempDir(), "cancelled")
	f.startMCP(t, "t", mcpStdio("basic", map[string]string{"HEARTH_TEST_MCP_HANG": flag}))
	ctx, cancel := context.WithCancel(context.Background())
	var mu sync.Mutex
	var got []string
	r := callMCP(t, f, ctx, "mcp-t__slow", `{}`, func(done, total float64, msg string) {
		mu.Lock()
		got = append(got, msg)
		mu.Unlock()
		if done == 1 && total == 2 {
			cancel() // the user gives up once the progress is seen
		}
	})
	if !r.IsError {
		t.Fatalf("cancelled call: %+v", r)
	}
	mu.Lock()
	if len(got) != 1 || got[0] != "half way" {
		t.Errorf("progress: %q", got)
	}
	mu.Unlock()
	// The server hears of the cancellation (notifications/cancelled).
	eventually(t, "the server saw the cancellation", func() bool {
		b, _ := os.ReadFile(flag)
		return string(b) == "cancelled"
	})
}

func TestMCPToolListChangedLive(t *testing.T) {
	f := newFixture(t)
	p := f.startMCP(t, "t", mcpStdio("basic", nil))
	pid := p.Status().PID
	if r := callMCP(t, f, context.Background(), "mcp-t__grow", `{}`, nil); r.Content != "grew" {
		t.Fatalf("grow: %+v", r)
	}
	has := func(n string) bool { _, ok := f.k.Tools().Lookup(n); return ok }
	eventually(t, "grown registered and fail withdrawn", func() bool { return has("mcp-t__grown") && !has("mcp-t__fail") })
	eventually(t, "the new prompt listed", func() bool {
		p.mcp.mu.Lock()
		defer p.mcp.mu.Unlock()
		return len(p.mcp.prompts) == 2
	})
	if r := callMCP(t, f, context.Background(), "mcp-t__grown", `{}`, nil); r.Content != "new" {
		t.Fatalf("grown: %+v", r)
	}
	if st := p.Status(); st.PID != pid || st.Restarts != 0 {
		t.Fatalf("restarted: %+v", st)
	}
}

func TestMCPNotificationsBeforeInitializeResponse(t *testing.T) {
	f := newFixture(t)
	p := f.startMCP(t, "t", mcpStdio("early", nil))
	if r := callMCP(t, f, context.Background(), "mcp-t__echo", `{"text":"ok"}`, nil); r.Content != "ok" {
		t.Fatalf("echo: %+v", r)
	}
	if st := p.Status(); st.Restarts != 0 {
		t.Fatalf("restarted: %+v", st)
	}
	// "early" is the server's env value HEARTH_TEST_MCP: masked in its log.
	if !strings.Contains(f.logs.String(), "*** bird") {
		t.Error("the log message sent before the initialize response was lost")
	}
}

func TestMCPServerThatDiesIsRestarted(t *testing.T) {
	f := newFixture(t)
	p := f.startMCP(t, "t", mcpStdio("basic", nil))
	if r := callMCP(t, f, context.Background(), "mcp-t__die", `{}`, nil); !r.IsError {
		t.Fatalf("die: %+v", r)
	}
	waitStatus(t, p, "restarted and running", func(st Status) bool { return st.Restarts >= 1 && st.State == Running })
	if r := callMCP(t, f, context.Background(), "mcp-t__echo", `{"text":"back"}`, nil); r.Content != "back" {
		t.Fatalf("after the restart: %+v", r)
	}
}

func TestMCPStopKillsAServerIgnoringEOFAndSIGTERM(t *testing.T) {
	f := newFixture(t)
	eof := filepath.Join(t.TempDir(), "eof")
	p, err := StartMCP("t", mcpStdio("stubborn", map[string]string{"HEARTH_TEST_MCP_EOF": eof}), &f.opts)
	if err != nil {
		t.Fatal(err)
	}
	ready(t, p)
	pid := p.Status().PID
	start := time.Now()
	p.Stop()
	t.Logf("stopped in %s", time.Since(start))
	if b, _ := os.ReadFile(eof); string(b) != "eof" {
		t.Fatal("the server never saw the end of its input")
	}
	if err := syscall.Kill(pid, 0); err == nil && !zombie(pid) {
		t.Fatalf("process %d still alive", pid)
	}
	if _, ok := f.k.Tools().Lookup("mcp-t__echo"); ok {
		t.Fatal("tools not withdrawn")
	}
}

// httpMCP serves the test server over Streamable HTTP (or the legacy SSE
// transport) and requires the bearer token want.
func httpMCP(t *testing.T, sse bool, want string) *httptest.Server {
	t.Helper()
	srv := newTestMCPServer()
	var h http.Handler
	if sse {
		h = mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	} else {
		h = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+want {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	return ts
}

func TestMCPRemoteServers(t *testing.T) {
	t.Setenv("HEARTH_TEST_BEARER", "s3cret")
	for _, tc := range []struct {
		name, typ string
		sse       bool
	}{
		{"streamable", "", false},
		{"fallback", "http", true},
		{"sse", "sse", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			ts := httpMCP(t, tc.sse, "s3cret")
			p := f.startMCP(t, "r", config.MCPServer{Type: tc.typ, URL: ts.URL + "/mcp?key=s3cret",
				Headers: map[string]string{"Authorization": "Bearer ${HEARTH_TEST_BEARER}"}})
			if r := callMCP(t, f, context.Background(), "mcp-r__echo", `{"text":"far"}`, nil); r.Content != "far" {
				t.Fatalf("echo: %+v", r)
			}
			if st := p.Status(); st.PID != 0 || st.State != Running {
				t.Fatalf("status: %+v", st)
			}
			p.Stop()
			if logs := f.logs.String(); strings.Contains(logs, "s3cret") {
				t.Fatalf("a header value was logged:\n%s", logs)
			}
		})
	}
}

func TestMCPManagerScanListPromptsAndState(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	st := openStore(t, t.TempDir())
	m := NewManager(t.TempDir(), st, &f.opts)
	defer m.Close()
	has := func(n string) bool { _, ok := f.k.Tools().Lookup(n); return ok }
	info := func() Info {
		list, err := m.List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, i := range list {
			if i.ID == "mcp-t" {
				return i
			}
		}
		t.Fatal("mcp-t not listed")
		return Info{}
	}

	cfg := mcpStdio("basic", map[string]string{"SECRET": "v"})
	m.SetMCPServers(map[string]config.MCPServer{"t": cfg})
	if err := m.Scan(ctx); err != nil {
		t.Fatal(err)
	}
	m.WaitReady(ctx)
	if !has("mcp-t__echo") {
		t.Fatal("not started by Scan")
	}
	i := info()
	if i.Kind != "mcp" || i.Runs != os.Args[0] || !i.Enabled || i.Status == nil || i.Status.State != Running {
		t.Fatalf("info: %+v", i)
	}

	prompts := m.MCPPrompts()
	if len(prompts) != 1 || prompts[0].Plugin != "mcp-t" || prompts[0].Name != "greet" || len(prompts[0].Arguments) != 1 || !prompts[0].Arguments[0].Required {
		t.Fatalf("prompts: %+v", prompts)
	}
	text, err := m.GetMCPPrompt(ctx, "mcp-t", "greet", map[string]string{"who": "Ann"})
	if err != nil || text != "Say hello to Ann." {
		t.Fatalf("prompt: %q, %v", text, err)
	}

	// Disabled by its plugin state: stopped; enabled again: back.
	if err := m.SetEnabled(ctx, "mcp-t", false); err != nil {
		t.Fatal(err)
	}
	if has("mcp-t__echo") || info().Status != nil || info().Enabled {
		t.Fatal("still running after disable")
	}
	if _, err := m.GetMCPPrompt(ctx, "mcp-t", "greet", nil); err == nil {
		t.Fatal("prompt of a stopped server")
	}
	if err := m.SetEnabled(ctx, "mcp-t", true); err != nil {
		t.Fatal(err)
	}
	m.WaitReady(ctx)
	pid := info().Status.PID

	// A changed entry restarts the server; a reload too.
	cfg.Args = []string{"-test.run=none"}
	m.SetMCPServers(map[string]config.MCPServer{"t": cfg})
	if err := m.Scan(ctx); err != nil {
		t.Fatal(err)
	}
	m.WaitReady(ctx)
	if p2 := info().Status.PID; p2 == pid || !has("mcp-t__echo") {
		t.Fatalf("not restarted on change: %d -> %d", pid, p2)
	}
	pid = info().Status.PID
	if err := m.Reload(ctx, "mcp-t"); err != nil {
		t.Fatal(err)
	}
	m.WaitReady(ctx)
	if p2 := info().Status.PID; p2 == pid {
		t.Fatal("not restarted by a reload")
	}

	// Disabled in config.json, then removed.
	cfg.Disabled = true
	m.SetMCPServers(map[string]config.MCPServer{"t": cfg})
	if err := m.Scan(ctx); err != nil {
		t.Fatal(err)
	}
	if has("mcp-t__echo") || info().Enabled {
		t.Fatal("config's disabled ignored")
	}
	m.SetMCPServers(nil)
	if err := m.Scan(ctx); err != nil {
		t.Fatal(err)
	}
	list, _ := m.List(ctx)
	for _, i := range list {
		if i.ID == "mcp-t" {
			t.Fatal("removed server still listed")
		}
	}
}

func TestMCPHungServerIsRestarted(t *testing.T) {
	f := newFixture(t)
	f.opts.PingInterval, f.opts.PingTimeout = 200*time.Millisecond, time.Second
	p := f.startMCP(t, "t", mcpStdio("basic", nil))
	pid := p.Status().PID
	if r := callMCP(t, f, context.Background(), "mcp-t__freeze", `{}`, nil); !r.IsError {
		t.Fatalf("freeze: %+v", r)
	}
	waitStatus(t, p, "restarted after missed pings", func(st Status) bool { return st.Restarts >= 1 && st.State == Running && st.PID != pid })
	if r := callMCP(t, f, context.Background(), "mcp-t__echo", `{"text":"awake"}`, nil); r.Content != "awake" {
		t.Fatalf("after the restart: %+v", r)
	}
}

func TestMCPRemoteSessionLostReconnects(t *testing.T) {
	f := newFixture(t)
	var h atomic.Pointer[http.Handler]
	var servers []*mcp.Server
	defer func() {
		for _, srv := range servers { // the sessions a restarted server forgot
			for ss := range srv.Sessions() {
				ss.Close()
			}
		}
	}()
	fresh := func() {
		srv := newTestMCPServer()
		servers = append(servers, srv)
		var hh http.Handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
		h.Store(&hh)
	}
	fresh()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { (*h.Load()).ServeHTTP(w, r) }))
	defer ts.Close()
	p := f.startMCP(t, "r", config.MCPServer{URL: ts.URL})
	fresh() // the server restarted: it knows no session
	callMCP(t, f, context.Background(), "mcp-r__echo", `{"text":"lost"}`, nil)
	waitStatus(t, p, "reconnected", func(st Status) bool { return st.Restarts >= 1 && st.State == Running })
	if r := callMCP(t, f, context.Background(), "mcp-r__echo", `{"text":"again"}`, nil); r.Content != "again" {
		t.Fatalf("after reconnecting: %+v", r)
	}
	p.Stop()
}

func TestMCPErrorsHideSecrets(t *testing.T) {
	f := newFixture(t)
	t.Setenv("HEARTH_TEST_BEARER", "bearer-secret")
	ln := httptest.NewServer(http.NotFoundHandler())
	addr := ln.URL
	ln.Close() // nothing listens there now
	p, err := StartMCP("r", config.MCPServer{URL: addr + "/mcp?key=url-secret",
		Headers: map[string]string{"X-Key": "${HEARTH_TEST_BEARER}"}}, &f.opts)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop()
	waitStatus(t, p, "a failed connection", func(st Status) bool { return st.LastError != "" })
	st := p.Status()
	for _, secret := range []string{"url-secret", "bearer-secret"} {
		if strings.Contains(st.LastError, secret) || strings.Contains(f.logs.String(), secret) {
			t.Fatalf("%s shown: %s\n%s", secret, st.LastError, f.logs.String())
		}
	}
	if !strings.Contains(st.LastError, "key=***") {
		t.Errorf("last error: %s", st.LastError)
	}
}

// fakeOAuth is an OAuth handler with a token at hand.
type fakeOAuth struct{ token string }

func (h fakeOAuth) TokenSource(context.Context) (oauth2.TokenSource, error) {
	return oauth2.StaticTokenSource(&oauth2.Token{AccessToken: h.token, TokenType: "Bearer"}), nil
}

func (fakeOAuth) Authorize(_ context.Context, _ *http.Request, resp *http.Response) error {
	resp.Body.Close()
	return errors.New("no authorization flow in this test")
}

func TestMCPRemoteServerWithOAuth(t *testing.T) {
	f := newFixture(t)
	ts := httpMCP(t, false, "oauth-token")
	var asked string
	f.opts.MCPAuth = func(server string, cfg config.MCPServer) (auth.OAuthHandler, error) {
		asked = server
		return fakeOAuth{"oauth-token"}, nil
	}
	p := f.startMCP(t, "o", config.MCPServer{URL: ts.URL})
	if r := callMCP(t, f, context.Background(), "mcp-o__echo", `{"text":"authorized"}`, nil); r.Content != "authorized" || asked != "o" {
		t.Fatalf("echo: %+v (handler asked for %q)", r, asked)
	}
	p.Stop()
}

func TestMCPRemoteServerSilentAtInitialize(t *testing.T) {
	f := newFixture(t)
	f.opts.HandshakeTimeout = 300 * time.Millisecond
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body) // then the server sees the client hang up
		<-r.Context().Done()
	}))
	defer ts.Close()
	p, err := StartMCP("s", config.MCPServer{Type: "http", URL: ts.URL}, &f.opts)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop()
	waitStatus(t, p, "the handshake timed out", func(st Status) bool {
		return strings.Contains(st.LastError, "no answer to initialize within 300ms") && st.State != Running
	})
}
