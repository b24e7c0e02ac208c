//go:build unix

package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hearth-agent/hearth/internal/daemon"
)

// mcpStdio runs `hearth mcp serve` on home as an MCP client launches it,
// and returns the client's session.
func mcpStdio(t *testing.T, home string) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command(os.Args[0], "mcp", "serve")
	cmd.Env = []string{"HEARTH_TEST_MAIN=1", childRace, "PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "HEARTH_HOME=" + home}
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	c := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	t.Cleanup(func() {
		cs.Close()
		if t.Failed() {
			t.Logf("hearth mcp serve's stderr:\n%s", stderr.String())
		}
	})
	return cs
}

// checkMCPTools lists the tools and calls time__now.
func checkMCPTools(t *testing.T, cs *mcp.ClientSession) {
	t.Helper()
	ctx := context.Background()
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, tool := range list.Tools {
		found = found || tool.Name == "time__now"
	}
	if !found {
		t.Fatalf("time__now not among %d tools", len(list.Tools))
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "time__now"})
	if err != nil {
		t.Fatal(err)
	}
	text := ""
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text += tc.Text
		}
	}
	if res.IsError || !strings.Contains(text, "20") {
		t.Fatalf("time__now: %q (error %v)", text, res.IsError)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "nothing__here"}); err == nil {
		t.Fatal("an unknown tool was called")
	}
}

func TestMCPServeOverStdio(t *testing.T) {
	checkMCPTools(t, mcpStdio(t, t.TempDir()))
}

func TestMCPServeBridgesToTheDaemon(t *testing.T) {
	home := t.TempDir()
	srv := startServe(t, home, nil)
	checkMCPTools(t, mcpStdio(t, home))
	// --http while the daemon serves: it names the daemon's own address,
	// not the socket's placeholder host.
	var stderr strings.Builder
	code := runMCPServe(context.Background(), []string{"--data-dir", home, "--http", "127.0.0.1:0"}, strings.NewReader(""), io.Discard, &stderr)
	if want := srv.info.URL + "/mcp"; code != 1 || !strings.Contains(stderr.String(), want) {
		t.Fatalf("mcp serve --http beside the daemon: %d %q, want it to name %s", code, stderr.String(), want)
	}
}

// bearerRT adds a token to a test client's requests.
type bearerRT string

func (b bearerRT) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}

func TestMCPServeOverHTTP(t *testing.T) {
	home := t.TempDir()
	cmd := exec.Command(os.Args[0], "mcp", "serve", "--http", "127.0.0.1:0")
	cmd.Env = []string{"HEARTH_TEST_MAIN=1", childRace, "PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "HEARTH_HOME=" + home}
	pr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-done
	})
	// The address is told on stderr once the listener is up.
	sc := bufio.NewScanner(pr)
	url := ""
	for url == "" && sc.Scan() {
		if _, rest, ok := strings.Cut(sc.Text(), "Streamable HTTP at "); ok {
			url, _, _ = strings.Cut(rest, ";")
		}
	}
	if url == "" {
		t.Fatalf("no address on stderr: %v", sc.Err())
	}
	go io.Copy(io.Discard, pr)
	tok, err := daemon.Token(home)
	if err != nil {
		t.Fatal(err)
	}
	connect := func(token string) (*mcp.ClientSession, error) {
		c := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil)
		return c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url,
			HTTPClient: &http.Client{Transport: bearerRT(token)}}, nil)
	}
	if cs, err := connect("wrong"); err == nil {
		cs.Close()
		t.Fatal("connected with a wrong token")
	}
	cs, err := connect(tok)
	if err != nil {
		t.Fatal(err)
	}
	checkMCPTools(t, cs)
	cs.Close()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("after SIGTERM: %v", err)
	}
	done <- nil // for the cleanup
}

func TestMCPServeHTTPRefusesANetworkAddress(t *testing.T) {
	var stderr strings.Builder
	if code := runMCPServe(context.Background(), []string{"--http", "0.0.0.0:0"}, strings.NewReader(""), io.Discard, &stderr); code != 2 ||
		!strings.Contains(stderr.String(), "--insecure-listen") || !strings.Contains(stderr.String(), "hearth serve --tls-cert") {
		t.Fatalf("code %d: %s", code, stderr.String())
	}
}
