//go:build unix

package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hearth-agent/hearth/internal/daemon"
	"github.com/hearth-agent/hearth/internal/datadir"
	"github.com/hearth-agent/hearth/internal/kernel"
	"github.com/hearth-agent/hearth/internal/redact"
	"github.com/hearth-agent/hearth/internal/store"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// In the child, HEARTH_TEST_INJECT registers a plugin that injects that
// text into its own channel at start: a turn the daemon runs by itself.
func init() {
	if text := os.Getenv("HEARTH_TEST_INJECT"); text != "" && os.Getenv("HEARTH_TEST_MAIN") == "1" {
		sdk.RegisterFactory("injector", func(name string, _ map[string]any) (sdk.Plugin, error) {
			return &injector{name: name, text: text}, nil
		})
	}
}

type injector struct{ name, text string }

func (p *injector) Name() string { return p.name }
func (p *injector) Stop() error  { return nil }
func (p *injector) Start(s *sdk.PluginSDK) error {
	go func() {
		if err := s.InjectInput(sdk.Injection{Channel: p.name, ChatID: "c1", Text: p.text}); err != nil {
			s.Logger().Error("inject", "err", err)
		}
	}()
	return nil
}

// lockedBuffer is a bytes.Buffer a child process writes while the test
// reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// served is a running hearth serve.
type served struct {
	cmd            *exec.Cmd
	home           string
	info           *daemon.ServeInfo
	stdout, stderr *lockedBuffer
	done           chan error
}

// startServe runs hearth serve on a free loopback port of home and waits
// for its serve.json.
func startServe(t *testing.T, home string, env []string, args ...string) *served {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"serve", "--listen", "127.0.0.1:0"}, args...)...)
	cmd.Env = append([]string{"HEARTH_TEST_MAIN=1", childRace, "PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "HEARTH_HOME=" + home}, env...)
	s := &served{cmd: cmd, home: home, stdout: &lockedBuffer{}, stderr: &lockedBuffer{}, done: make(chan error, 1)}
	cmd.Stdout, cmd.Stderr = s.stdout, s.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { s.done <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-s.done
		if t.Failed() {
			t.Logf("hearth serve's stderr:\n%s", s.stderr.String())
		}
	})
	waitFor(t, "serve.json", func() bool {
		info, err := daemon.ReadServeFile(home)
		if err == nil && info.PID == cmd.Process.Pid {
			s.info = info
			return true
		}
		select {
		case err := <-s.done:
			t.Fatalf("hearth serve exited: %v\n%s", err, s.stderr.String())
		default:
		}
		return false
	})
	return s
}

// stop sends sig and returns the exit code.
func (s *served) stop(t *testing.T, sig os.Signal) int {
	t.Helper()
	if err := s.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	err := <-s.done
	s.done <- err // for the cleanup
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0
}

func healthStatus(t *testing.T, client *http.Client, url, token string) int {
	t.Helper()
	req, _ := http.NewRequest("GET", url+"/v1/health", nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// hearth serve answers /v1/health with the token and only with it; it
// prints the web UI's address, without the token when stdout is not a
// terminal; a second serve and a chat on the same data directory are
// refused, naming it.
func TestServeAnswersWithTheTokenAndOwnsTheDataDirectory(t *testing.T) {
	home := t.TempDir()
	s := startServe(t, home, nil)
	token, _, code := hearth(t, []string{"HEARTH_HOME=" + home}, "", "token")
	token = strings.TrimSpace(token)
	if code != 0 || len(token) < 40 {
		t.Fatalf("hearth token: %d %q", code, token)
	}
	if got := healthStatus(t, http.DefaultClient, s.info.URL, token); got != http.StatusOK {
		t.Fatalf("with the token: %d", got)
	}
	if got := healthStatus(t, http.DefaultClient, s.info.URL, ""); got != http.StatusUnauthorized {
		t.Fatalf("without the token: %d", got)
	}
	waitFor(t, "the printed address", func() bool { return strings.Contains(s.stdout.String(), "walks you through") })
	out := s.stdout.String()
	if !strings.Contains(out, s.info.URL+"/\n") || !strings.Contains(out, "run `hearth token` for the token") ||
		strings.Contains(out, token) || strings.Contains(out, "#token=") {
		t.Fatalf("stdout %q", out)
	}
	for _, name := range []string{daemon.ServeFile, daemon.TokenFile, daemon.SocketFile} {
		if fi, err := os.Stat(filepath.Join(home, name)); err != nil || fi.Mode().Perm() != 0o600 {
			t.Fatalf("%s: %v %v", name, fi, err)
		}
	}
	// The commands on this machine reach the daemon through its socket in
	// the private data directory, not the port another user could take.
	if s.info.Socket != filepath.Join(home, daemon.SocketFile) {
		t.Fatalf("serve.json names socket %q", s.info.Socket)
	}
	c, err := daemon.Find(context.Background(), home)
	if err != nil || c.BaseURL != "http://localhost" {
		t.Fatalf("Find: %+v, %v", c, err)
	}
	if h, err := c.Health(context.Background()); err != nil || h.PID != s.cmd.Process.Pid {
		t.Fatalf("health through the socket: %+v, %v", h, err)
	}
	if b, _ := os.ReadFile(filepath.Join(home, "hearth.log")); bytes.Contains(b, []byte(token)) {
		t.Fatal("the token is in hearth.log")
	}

	pid := fmt.Sprint(s.cmd.Process.Pid)
	env := []string{"HEARTH_HOME=" + home}
	_, errOut, code := hearth(t, env, "", "serve", "--listen", "127.0.0.1:0")
	if code == 0 || !strings.Contains(errOut, "already serving") || !strings.Contains(errOut, "pid "+pid) || !strings.Contains(errOut, "kill "+pid) ||
		!strings.Contains(errOut, "已在") {
		t.Fatalf("second serve: %d %q", code, errOut)
	}
}

// While hearth serve runs, hearth ask and hearth chat are terminals of
// the daemon: their turns run there (its model, its plugins, its store),
// the answer streams here.
func TestChatAndAskThroughTheDaemon(t *testing.T) {
	home := t.TempDir()
	srv := llmtest.NewServer(t, timeToolScript()...)
	startServe(t, home, []string{"OPENAI_BASE_URL=" + srv.URL, "HEARTH_MODEL=test-model", "OPENAI_API_KEY=sk-test-123456789"})
	// The client's own environment names no provider: the daemon's is used.
	env := []string{"HEARTH_HOME=" + home}
	stdout, stderr, code := hearth(t, env, "", "ask", "现在几点？")
	if code != 0 || stdout != "现在是北京时间下午三点。\n" {
		t.Fatalf("ask: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	checkToolResultSent(t, srv)

	srv.Push(llmtest.Reply{Text: "你好！"})
	stdout, stderr, code = hearth(t, env, "你好\n", "chat")
	if code != 0 || !strings.Contains(stdout, "你好！") {
		t.Fatalf("chat: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	st, err := store.Open(context.Background(), home)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sess, err := st.FindSession(context.Background(), "terminal", "")
	if err != nil {
		t.Fatalf("the chat's session is not in the daemon's store: %v", err)
	}
	if msgs, err := st.RecentMessages(context.Background(), sess.ID, 10); err != nil || len(msgs) != 2 || msgs[1].Content != "你好！" {
		t.Fatalf("stored: %+v, %v", msgs, err)
	}
}

// SIGTERM during a turn: hearth serve exits 0, the user's message is
// stored and the turn closed, the lock is free and serve.json is gone.
func TestServeShutsDownDuringATurn(t *testing.T) {
	home := t.TempDir()
	srv := llmtest.NewServer(t, llmtest.Reply{Text: "never", Hang: true})
	s := startServe(t, home, []string{"OPENAI_BASE_URL=" + srv.URL, "HEARTH_MODEL=test-model", "HEARTH_TEST_INJECT=提醒我喝水"}, "--grace", "2s")
	waitFor(t, "the turn's model call", func() bool { return len(srv.Requests()) > 0 })
	if code := s.stop(t, syscall.SIGTERM); code != 0 {
		t.Fatalf("exit %d\n%s", code, s.stderr.String())
	}
	if _, err := os.Stat(filepath.Join(home, daemon.ServeFile)); !os.IsNotExist(err) {
		t.Fatalf("serve.json after shutdown: %v", err)
	}
	lock, err := datadir.Acquire(home)
	if err != nil {
		t.Fatalf("the lock after shutdown: %v", err)
	}
	lock.Release()
	st, err := store.Open(context.Background(), home)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sess, err := st.FindSession(context.Background(), kernel.PluginChannel("injector"), "c1")
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := st.RecentMessages(context.Background(), sess.ID, 10)
	// The user's message, and the turn closed as interrupted: nothing
	// half-written.
	if err != nil || len(msgs) != 2 || msgs[0].Role != "user" || !strings.HasSuffix(msgs[0].Content, "提醒我喝水") ||
		msgs[1].Role != "assistant" || !strings.Contains(msgs[1].Content, "interrupted") {
		t.Fatalf("stored: %+v, %v", msgs, err)
	}
}

// A daemon killed with SIGKILL leaves its serve.json; nobody believes it,
// and the commands work alone.
func TestKilledServeIsNotBelieved(t *testing.T) {
	home := t.TempDir()
	s := startServe(t, home, nil)
	s.stop(t, syscall.SIGKILL)
	if _, err := os.Stat(filepath.Join(home, daemon.ServeFile)); err != nil {
		t.Fatalf("serve.json after SIGKILL: %v", err)
	}
	if _, err := daemon.Find(context.Background(), home); !errors.Is(err, daemon.ErrNoDaemon) {
		t.Fatalf("Find after SIGKILL: %v", err)
	}
	if out, errOut, code := hearth(t, []string{"HEARTH_HOME=" + home}, "", "policy", "set", "time__now", "ask"); code != 0 {
		t.Fatalf("policy alone: %d %q %q", code, out, errOut)
	}
}

func TestServeRefusesNonLoopbackWithoutTLS(t *testing.T) {
	env := []string{"HEARTH_HOME=" + t.TempDir()}
	_, errOut, code := hearth(t, env, "", "serve", "--listen", "0.0.0.0:0")
	if code != 2 || !strings.Contains(errOut, "refusing to listen on 0.0.0.0:0 without TLS") || !strings.Contains(errOut, "--insecure-listen") ||
		!strings.Contains(errOut, "拒绝") {
		t.Fatalf("exit %d, %q", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(strings.TrimPrefix(env[0], "HEARTH_HOME="), "hearth.db")); !os.IsNotExist(err) {
		t.Fatal("the refused serve opened the data directory")
	}
	home := t.TempDir()
	s := startServe(t, home, nil, "--listen", "0.0.0.0:0", "--insecure-listen")
	if !strings.Contains(s.stderr.String(), "WARNING: listening on 0.0.0.0:0 without TLS") || !strings.HasPrefix(s.info.URL, "http://127.0.0.1:") {
		t.Fatalf("stderr %q, url %s", s.stderr.String(), s.info.URL)
	}
	if code := s.stop(t, syscall.SIGINT); code != 0 {
		t.Fatalf("exit %d", code)
	}
}

// With TLS (a self-signed certificate) it listens anywhere; the CLI finds
// it and pins the certificate.
func TestServeWithTLS(t *testing.T) {
	home, dir := t.TempDir(), t.TempDir()
	cert, key := selfSigned(t, dir)
	s := startServe(t, home, nil, "--listen", "0.0.0.0:0", "--tls-cert", cert, "--tls-key", key)
	if !s.info.TLS || !strings.HasPrefix(s.info.URL, "https://127.0.0.1:") {
		t.Fatalf("serve.json %+v", s.info)
	}
	c, err := daemon.Find(context.Background(), home)
	if err != nil {
		t.Fatal(err)
	}
	if got := healthStatus(t, c.HTTP, c.BaseURL, c.Token); got != http.StatusOK {
		t.Fatalf("health over TLS: %d", got)
	}
	if out, errOut, code := hearth(t, []string{"HEARTH_HOME=" + home}, "", "policy", "set", "time__now", "off"); code != 0 || out != "time__now: off\n" {
		t.Fatalf("policy through TLS: %d %q %q", code, out, errOut)
	}
}

func selfSigned(t *testing.T, dir string) (certFile, keyFile string) {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "hearth.test"},
		DNSNames: []string{"hearth.test"}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.PublicKey, k)
	if err != nil {
		t.Fatal(err)
	}
	kb, _ := x509.MarshalECPrivateKey(k)
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600)
	return certFile, keyFile
}

// hearth token --rotate replaces the token of a running daemon: the old
// one is refused at once, the new one works, and a CLI still finds it.
func TestTokenRotateOnARunningDaemon(t *testing.T) {
	home := t.TempDir()
	s := startServe(t, home, nil)
	env := []string{"HEARTH_HOME=" + home}
	old, _, _ := hearth(t, env, "", "token")
	tok, errOut, code := hearth(t, env, "", "token", "--rotate")
	old, tok = strings.TrimSpace(old), strings.TrimSpace(tok)
	if code != 0 || tok == old || !strings.Contains(errOut, "old token no longer works") {
		t.Fatalf("rotate: %d %q %q", code, tok, errOut)
	}
	if got := healthStatus(t, http.DefaultClient, s.info.URL, old); got != http.StatusUnauthorized {
		t.Fatalf("old token: %d", got)
	}
	if got := healthStatus(t, http.DefaultClient, s.info.URL, tok); got != http.StatusOK {
		t.Fatalf("new token: %d", got)
	}
	if _, errOut, code := hearth(t, env, "", "policy"); code != 0 {
		t.Fatalf("policy after rotate: %d %q", code, errOut)
	}
	// A client with the old token cannot verify the daemon (whose proof
	// is made with the new one): it sends nothing, and says what to do.
	c := &daemon.Client{BaseURL: s.info.URL, Token: old}
	err := c.Do(context.Background(), "GET", "/v1/health", nil, nil)
	if !errors.Is(err, daemon.ErrUnproven) || !strings.Contains(err.Error(), "hearth token") {
		t.Fatalf("wrong token: %v", err)
	}
}

// A turn still answering when the daemon is told to stop finishes within
// the grace period, and its answer is stored.
func TestServeLetsATurnFinishOnShutdown(t *testing.T) {
	home := t.TempDir()
	srv := llmtest.NewServer(t, llmtest.Reply{Text: "好的，记得喝水。", ChunkDelay: 200 * time.Millisecond})
	s := startServe(t, home, []string{"OPENAI_BASE_URL=" + srv.URL, "HEARTH_MODEL=test-model", "HEARTH_TEST_INJECT=提醒我喝水"}, "--grace", "60s")
	waitFor(t, "the turn's model call", func() bool { return len(srv.Requests()) > 0 })
	if code := s.stop(t, syscall.SIGTERM); code != 0 {
		t.Fatalf("exit %d\n%s", code, s.stderr.String())
	}
	st, err := store.Open(context.Background(), home)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sess, err := st.FindSession(context.Background(), kernel.PluginChannel("injector"), "c1")
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := st.RecentMessages(context.Background(), sess.ID, 10)
	if err != nil || len(msgs) != 2 || msgs[1].Role != "assistant" || msgs[1].Content != "好的，记得喝水。" {
		t.Fatalf("stored: %+v, %v", msgs, err)
	}
}

// On a terminal the web UI's address carries the token in its fragment;
// anywhere else (a pipe, a log, a journal) the token is not printed.
func TestServePrintsTheTokenOnlyOnATerminal(t *testing.T) {
	const tok = "tok-0123456789abcdef"
	var tty, pipe strings.Builder
	printServing(&tty, true, "/d", "http://127.0.0.1:8420", tok, false)
	printServing(&pipe, false, "/d", "http://127.0.0.1:8420", tok, true)
	if !strings.Contains(tty.String(), "http://127.0.0.1:8420/#token="+tok+"\n") {
		t.Fatalf("terminal: %q", tty.String())
	}
	if p := pipe.String(); strings.Contains(p, tok) || !strings.Contains(p, "http://127.0.0.1:8420/\n") ||
		!strings.Contains(p, "hearth token") || !strings.Contains(p, "查看令牌") || !strings.Contains(p, "walks you through") {
		t.Fatalf("pipe: %q", p)
	}
}

// At shutdown serve.json goes first, while the daemon still drains and
// holds the lock: once the listener is closed no client is sent to the
// port, which another user may bind.
func TestServeRemovesServeFileBeforeDraining(t *testing.T) {
	home := t.TempDir()
	srv := llmtest.NewServer(t, llmtest.Reply{Text: "never", Hang: true})
	s := startServe(t, home, []string{"OPENAI_BASE_URL=" + srv.URL, "HEARTH_MODEL=test-model", "HEARTH_TEST_INJECT=提醒我喝水"}, "--grace", "10m")
	waitFor(t, "the turn's model call", func() bool { return len(srv.Requests()) > 0 })
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "serve.json removed", func() bool {
		_, err := os.Stat(filepath.Join(home, daemon.ServeFile))
		return os.IsNotExist(err)
	})
	// Still draining the hung turn: the lock is held.
	if lock, err := datadir.Acquire(home); err == nil {
		lock.Release()
		t.Fatal("serve.json outlived the lock")
	}
	if _, err := daemon.Find(context.Background(), home); !errors.Is(err, daemon.ErrNoDaemon) {
		t.Fatalf("Find while draining: %v", err)
	}
	if code := s.stop(t, syscall.SIGTERM); code != 1 { // again: at once
		t.Fatalf("exit %d", code)
	}
}

// hearth serve adds the API token to the secrets the traces and the log
// mask: a tool result holding it (here the time tool's error, naming
// the "zone" it was given) is stored masked.
func TestServeMasksTheTokenInTraces(t *testing.T) {
	home := t.TempDir()
	tok, _, code := hearth(t, []string{"HEARTH_HOME=" + home}, "", "token")
	tok = strings.TrimSpace(tok)
	if code != 0 || tok == "" {
		t.Fatalf("hearth token: %d", code)
	}
	srv := llmtest.NewServer(t,
		llmtest.Reply{ToolCalls: []llmtest.Call{{Name: "time__now", Arguments: `{"zone":"` + tok + `"}`}}},
		llmtest.Reply{Text: "done"})
	s := startServe(t, home, []string{"OPENAI_BASE_URL=" + srv.URL, "HEARTH_MODEL=test-model", "HEARTH_TEST_INJECT=what time is it"}, "--grace", "60s")
	waitFor(t, "the turn's second model call", func() bool { return len(srv.Requests()) > 1 })
	if !strings.Contains(fmt.Sprint(srv.Requests()[1].Messages), tok) {
		t.Fatalf("the tool result did not hold the token: %v", srv.Requests()[1].Messages)
	}
	if code := s.stop(t, syscall.SIGTERM); code != 0 {
		t.Fatalf("exit %d\n%s", code, s.stderr.String())
	}
	st, err := store.Open(context.Background(), home)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	trs, err := st.Traces(context.Background(), store.TraceFilter{})
	if err != nil || len(trs) != 1 {
		t.Fatalf("traces %+v, %v", trs, err)
	}
	full, err := st.Trace(context.Background(), trs[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(full)
	if strings.Contains(string(b), tok[:redact.GramLen]) || !strings.Contains(string(b), "time__now") {
		t.Fatalf("the trace: %s", b)
	}
	if b, _ := os.ReadFile(filepath.Join(home, "hearth.log")); bytes.Contains(b, []byte(tok[:redact.GramLen])) {
		t.Fatal("the token is in hearth.log")
	}
}

// Idle and silent connections are dropped; a stream is not cut.
func TestServeTimesOutIdleConnections(t *testing.T) {
	hs := newHTTPServer(http.NotFoundHandler(), slog.New(slog.DiscardHandler))
	if hs.ReadHeaderTimeout != 10*time.Second || hs.IdleTimeout != 2*time.Minute || hs.WriteTimeout != 0 || hs.ReadTimeout != 0 {
		t.Fatalf("timeouts: header %v, idle %v, write %v, read %v", hs.ReadHeaderTimeout, hs.IdleTimeout, hs.WriteTimeout, hs.ReadTimeout)
	}
}

// An OpenAI client streaming an answer when the grace period runs out is
// told Hearth is shutting down, in the stream, not cut off.
func TestServeTellsAStreamItIsShuttingDown(t *testing.T) {
	home := t.TempDir()
	srv := llmtest.NewServer(t, llmtest.Reply{Text: "never", Hang: true})
	s := startServe(t, home, []string{"OPENAI_BASE_URL=" + srv.URL, "HEARTH_MODEL=test-model"}, "--grace", "1s")
	tok, err := daemon.ClientToken(home)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest("POST", s.info.URL+"/v1/chat/completions",
		strings.NewReader(`{"model":"hearth","stream":true,"messages":[{"role":"user","content":"hi"}]}`))
	req.Header.Set("Authorization", "Bearer "+tok)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	waitFor(t, "the turn's model call", func() bool { return len(srv.Requests()) > 0 })
	if code := s.stop(t, syscall.SIGTERM); code != 0 {
		t.Fatalf("exit %d\n%s", code, s.stderr.String())
	}
	body, _ := io.ReadAll(resp.Body)
	if !bytes.Contains(body, []byte(`"shutting_down"`)) {
		t.Fatalf("the stream ended with %q", body)
	}
}
