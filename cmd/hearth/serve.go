package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/hearth-agent/hearth/internal/app"
	"github.com/hearth-agent/hearth/internal/config"
	"github.com/hearth-agent/hearth/internal/daemon"
	"github.com/hearth-agent/hearth/internal/datadir"
	"github.com/hearth-agent/hearth/internal/server"
	"github.com/hearth-agent/hearth/web"
)

const serveUsage = `Usage: hearth serve [flags]

Runs Hearth as a service: the web UI and the HTTP API (docs/http-api.md),
the plugins, and every channel. It prints the web UI's address.

Flags (config.json's "serve" section sets the same; flags win):
  --listen HOST:PORT   address to listen on (default 127.0.0.1:8420)
  --log-level LEVEL    what is logged to stderr: debug, info, warn, error (default info)
  --tls-cert FILE      serve HTTPS with this certificate (PEM)...
  --tls-key FILE       ...and this key
  --insecure-listen    allow a non-loopback address without TLS (behind a reverse proxy)
  --grace DURATION     how long a shutdown lets requests finish (default 10s)
  --data-dir DIR       data directory (default $HEARTH_HOME or ~/.hearth)
`

// DefaultListen is where hearth serve listens unless told otherwise.
const DefaultListen = "127.0.0.1:8420"

// defaultGrace is how long a shutdown waits for requests in flight.
const defaultGrace = 10 * time.Second

// The HTTP server's timeouts: a client has readHeaderTimeout to send a
// request's headers, and an idle keep-alive connection is closed after
// idleTimeout.
const (
	readHeaderTimeout = 10 * time.Second
	idleTimeout       = 2 * time.Minute
)

// newHTTPServer is the daemon's http.Server: a client that connects and
// says nothing, or keeps an idle connection, is dropped. It has no
// WriteTimeout: event streams last as long as their client.
func newHTTPServer(h http.Handler, log *slog.Logger) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: readHeaderTimeout,
		IdleTimeout:       idleTimeout,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelDebug),
	}
}

// printServing says where Hearth serves. On a terminal the web UI's
// address carries the token in its fragment, which browsers never send
// (it reaches neither the server nor its log); anywhere else (a log file,
// a service manager's journal) the token is not printed.
func printServing(w io.Writer, tty bool, dir, url, tok string, noProvider bool) {
	if tty {
		fmt.Fprintf(w, "Hearth is serving %s\n  web UI / 网页界面: %s/#token=%s\n  API token: `hearth token` prints it; Ctrl-C stops Hearth\n",
			dir, url, tok)
	} else {
		fmt.Fprintf(w, "Hearth is serving %s\n  web UI / 网页界面: %s/\n  run `hearth token` for the token / 用 hearth token 查看令牌; Ctrl-C stops Hearth\n",
			dir, url)
	}
	if noProvider {
		fmt.Fprintln(w, "  No model provider is configured yet: open the web UI, it walks you through choosing one.\n"+
			"  尚未配置模型服务：打开网页界面，它会引导你完成设置。")
	}
}

// serveSettings are hearth serve's settings, config and flags merged.
type serveSettings struct {
	dataDir, listen, tlsCert, tlsKey string
	level                            slog.Level
	insecure                         bool
	grace                            time.Duration
	hosts                            []string
}

// serveFlags reads hearth serve's flags over config.json's serve section.
func serveFlags(args []string, stderr io.Writer) (*serveSettings, error) {
	fs := flag.NewFlagSet("hearth serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, serveUsage) }
	var s serveSettings
	var level string
	fs.StringVar(&s.dataDir, "data-dir", "", "")
	fs.StringVar(&s.listen, "listen", "", "")
	fs.StringVar(&level, "log-level", "", "")
	fs.StringVar(&s.tlsCert, "tls-cert", "", "")
	fs.StringVar(&s.tlsKey, "tls-key", "", "")
	fs.BoolVar(&s.insecure, "insecure-listen", false, "")
	fs.DurationVar(&s.grace, "grace", 0, "")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	dir, err := config.DataDir(s.dataDir, nil)
	if err != nil {
		return nil, err
	}
	s.dataDir = dir
	cfg, err := config.Load(dir)
	if err != nil {
		return nil, err
	}
	if c := cfg.Serve; c != nil {
		s.listen = or(s.listen, c.Listen)
		level = or(level, c.LogLevel)
		s.tlsCert = or(s.tlsCert, c.TLSCert)
		s.tlsKey = or(s.tlsKey, c.TLSKey)
		s.hosts = c.Hosts
		if s.grace == 0 {
			s.grace = time.Duration(c.ShutdownGrace)
		}
	}
	s.listen = or(s.listen, DefaultListen)
	if s.grace <= 0 {
		s.grace = defaultGrace
	}
	if level != "" {
		if err := s.level.UnmarshalText([]byte(level)); err != nil {
			return nil, fmt.Errorf("log level %q: use debug, info, warn or error", level)
		}
	}
	if (s.tlsCert == "") != (s.tlsKey == "") {
		return nil, errors.New("TLS needs both --tls-cert and --tls-key")
	}
	return &s, nil
}

func or(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// checkListen refuses a non-loopback address without TLS unless forced;
// forced, it returns the warning to print.
func checkListen(addr string, tls, insecure bool) (warning string, err error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("listen address %q: %w (write it as host:port, e.g. 127.0.0.1:8420)", addr, err)
	}
	if isLoopback(host) || tls {
		return "", nil
	}
	if !insecure {
		return "", fmt.Errorf("refusing to listen on %s without TLS: the token and your conversations would cross the network in clear text.\n"+
			"Use --tls-cert and --tls-key, or put a reverse proxy with TLS in front and pass --insecure-listen, or listen on 127.0.0.1.\n"+
			"拒绝在 %s 上不加密监听：令牌和对话会以明文在网络上传输。请使用 --tls-cert 和 --tls-key，"+
			"或在前面放置启用 TLS 的反向代理并加上 --insecure-listen，或监听 127.0.0.1。", addr, addr)
	}
	return fmt.Sprintf("WARNING: listening on %s without TLS (--insecure-listen). Anyone on the network path can read the token and your conversations "+
		"unless a reverse proxy with TLS is in front of Hearth and the port is not reachable otherwise. "+
		"Requests must name a host Hearth answers to: list the names it is reached by in config.json's serve.hosts.\n"+
		"警告：正在 %s 上不加密监听（--insecure-listen）。除非 Hearth 前面有启用 TLS 的反向代理且该端口无法被直接访问，"+
		"否则网络路径上的任何人都能读取令牌和对话。请在 config.json 的 serve.hosts 中列出访问 Hearth 所用的主机名。", addr, addr), nil
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// clientURL is how clients on this machine reach a listener: an
// unspecified address (0.0.0.0, ::) by the loopback one.
func clientURL(addr net.Addr, useTLS bool) string {
	scheme := "http"
	if useTLS {
		scheme = "https"
	}
	host, port, _ := net.SplitHostPort(addr.String())
	if ip := net.ParseIP(host); ip == nil || ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return scheme + "://" + net.JoinHostPort(host, port)
}

// runServe is hearth serve: it owns the data directory until a signal.
func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	s, err := serveFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "hearth serve: %v\n", err)
		return 2
	}
	useTLS := s.tlsCert != ""
	warning, err := checkListen(s.listen, useTLS, s.insecure)
	if err != nil {
		fmt.Fprintf(stderr, "hearth serve: %v\n", err)
		return 2
	}
	var tlsConfig *tls.Config
	var fingerprint string
	if useTLS {
		cert, err := tls.LoadX509KeyPair(s.tlsCert, s.tlsKey)
		if err != nil {
			fmt.Fprintf(stderr, "hearth serve: the TLS certificate: %v\n", err)
			return 1
		}
		tlsConfig = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
		// Clients pin the certificate loaded here, not the file, which
		// may change while this one is served.
		fingerprint = daemon.CertFingerprint(cert.Certificate[0])
	}
	// Signals before anything starts: a SIGTERM during start-up still
	// shuts down cleanly.
	sigc := make(chan os.Signal, 2)
	signal.Notify(sigc, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigc)

	a, err := app.Open(ctx, &app.Options{DataDir: s.dataDir, Plugins: app.PluginsStart, LogTo: stderr, LogLevel: s.level,
		// The token is masked before a plugin's first turn can hold it.
		Secrets: func(dir string) ([]string, error) {
			tok, err := daemon.Token(dir)
			return []string{tok}, err
		}})
	var busy *datadir.LockedError
	if errors.As(err, &busy) {
		if c, ferr := daemon.Find(ctx, busy.Dir); ferr == nil {
			fmt.Fprintf(stderr, "hearth serve: Hearth is already serving %s at %s (pid %d): use that one, or stop it first (kill %d)\n"+
				"hearth serve：Hearth 已在 %s 为 %s 提供服务（pid %d）：请使用它，或先停止它（kill %d）\n",
				busy.Dir, c.BaseURL, c.PID, c.PID, c.BaseURL, busy.Dir, c.PID, c.PID)
			return 1
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "hearth serve: %v\n", err)
		return 1
	}
	closeApp := func() {
		if err := a.Close(); err != nil {
			fmt.Fprintf(stderr, "hearth serve: closing: %v\n", err)
		}
	}
	for _, w := range a.Warnings {
		fmt.Fprintf(stderr, "hearth serve: %s\n", w)
	}
	tok, err := daemon.Token(a.DataDir)
	if err != nil {
		closeApp()
		fmt.Fprintf(stderr, "hearth serve: %v\n", err)
		return 1
	}
	// The token is a secret like the model keys: logs, traces, tool
	// results and events mask it, and each one a rotation brings.
	secrets := a.Sources.Secrets()
	secrets.Add(tok)
	tokens := daemon.WatchToken(a.DataDir, func(t string) { secrets.Add(t) })
	ln, err := net.Listen("tcp", s.listen)
	if err != nil {
		closeApp()
		fmt.Fprintf(stderr, "hearth serve: %v\n", err)
		if errors.Is(err, syscall.EADDRINUSE) {
			fmt.Fprintf(stderr, "another program uses %s: pass --listen 127.0.0.1:PORT with a free port / 端口已被占用：用 --listen 127.0.0.1:端口 换一个空闲端口\n", s.listen)
		}
		return 1
	}
	if tlsConfig != nil {
		ln = tls.NewListener(ln, tlsConfig)
	}
	hosts := s.hosts
	if host, _, _ := net.SplitHostPort(s.listen); !isLoopback(host) {
		if ip := net.ParseIP(host); ip == nil || !ip.IsUnspecified() {
			hosts = append(hosts, host) // the name it was told to listen on
		}
	}
	srv := server.New(a, &server.Options{
		TokenFunc:       tokens,
		ClientTokenFunc: daemon.WatchClientToken(a.DataDir, func(t string) { secrets.Add(t) }),
		Hosts:           hosts,
		CLI:             server.CLIHandler(cliRunner(a)),
		UI:              web.FS(),
	})
	hs := newHTTPServer(daemon.ThroughSocket(srv.Handler()), a.Logger)
	errc := make(chan error, 2)
	go func() { errc <- hs.Serve(ln) }()
	// The commands on this machine come through the socket in the private
	// data directory, where no other user can listen; without one (a
	// path too long for a socket, a file system without them) they use
	// the port and prove the daemon before each request.
	socket := ""
	if sl, err := daemon.ListenSocket(a.DataDir); err != nil {
		a.Logger.Warn("no socket in the data directory; commands will use the TCP port", "err", err)
	} else {
		socket = sl.Addr().String()
		go func() { errc <- hs.Serve(sl) }()
	}

	url := clientURL(ln.Addr(), useTLS)
	info := &daemon.ServeInfo{PID: os.Getpid(), URL: url, Listen: ln.Addr().String(), Socket: socket, TLS: useTLS, TLSFingerprint: fingerprint, Started: time.Now().UTC()}
	if useTLS {
		info.TLSCert, _ = filepath.Abs(s.tlsCert)
	}
	if err := daemon.WriteServeFile(a.DataDir, info); err != nil {
		hs.Close()
		closeApp()
		fmt.Fprintf(stderr, "hearth serve: %v\n", err)
		return 1
	}
	if warning != "" {
		fmt.Fprintln(stderr, warning)
		a.Logger.Warn("listening on a non-loopback address without TLS", "listen", s.listen)
	}
	a.Logger.Info("serving", "listen", info.Listen, "tls", useTLS) // never the token
	f, isFile := stdout.(*os.File)
	printServing(stdout, isFile && isTerminal(f), a.DataDir, url, tok, len(a.Sources.ListSources()) == 0)

	code := 0
	select {
	case sig := <-sigc:
		fmt.Fprintf(stderr, "hearth serve: %v: shutting down, letting requests finish for up to %v (again to stop at once)\n", sig, s.grace)
		go func() {
			<-sigc
			fmt.Fprintln(stderr, "hearth serve: stopped at once")
			os.Exit(1)
		}()
	case err := <-errc:
		fmt.Fprintf(stderr, "hearth serve: %v\n", err)
		code = 1
	}
	// serve.json goes first: once the listener is closed another user may
	// bind the port, and no client must be sent there (the lock is held
	// until closeApp, so the file alone says a daemon is here).
	if err := daemon.RemoveServeFile(a.DataDir); err != nil {
		fmt.Fprintf(stderr, "hearth serve: %v\n", err)
	}
	shutdown(a, srv, hs, s.grace)
	closeApp() // cancels the turns left, stops the plugins, releases the lock
	if code == 0 {
		fmt.Fprintln(stderr, "hearth serve: stopped")
	}
	return code
}

// shutdown stops accepting, ends the event streams, and lets requests and
// turns in flight finish for up to grace; App.Close then cancels what is
// left (its user message is already stored, the turn closed as
// interrupted).
func shutdown(a *app.App, srv *server.Server, hs *http.Server, grace time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	_ = srv.Close() // SSE streams end, or Shutdown would wait for them
	err := hs.Shutdown(ctx)
	if err == nil {
		err = a.Kernel.Drain(ctx)
	}
	if err == nil {
		return
	}
	// Past the grace period: the turns still running are cancelled
	// (stored as interrupted), so the requests waiting for them answer
	// "shutting down" (an OpenAI stream gets its error event) instead of
	// being cut off; then whatever is left is.
	a.Logger.Warn("turns still running at the end of the grace period; cancelling them", "err", err)
	_ = a.Kernel.Close()
	last, cancelLast := context.WithTimeout(context.Background(), finalAnswers)
	defer cancelLast()
	if err := hs.Shutdown(last); err != nil {
		_ = hs.Close()
	}
}

// finalAnswers is how long requests get to answer once their turns are
// cancelled at shutdown.
const finalAnswers = 2 * time.Second
